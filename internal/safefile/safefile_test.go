package safefile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestReadFile_RefusesWhatIsNotARegularFileWithoutBlocking(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, make([]byte, 11), 0o600); err != nil {
		t.Fatal(err)
	}
	ok := filepath.Join(dir, "ok")
	if err := os.WriteFile(ok, []byte("0123456789"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{fifo, "named pipe"},
		{dir, "is a directory"},
		{"/dev/null", "character device"},
		{big, "at most 10"},
	} {
		_, err := ReadFile(c.path, 10)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ReadFile(%s) = %v, want an error containing %q", c.path, err, c.want)
		}
	}
	data, err := ReadFile(ok, 10)
	if err != nil || string(data) != "0123456789" {
		t.Errorf("ReadFile(ok) = %q, %v", data, err)
	}
}
