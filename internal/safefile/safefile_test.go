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

// A bundle's file is read through its directory: a link out of it
// (-> /etc/passwd, -> /dev/zero) is refused, as are a FIFO and a device;
// a link that stays inside is followed.
func TestReadFileIn_RefusesLinksOutOfTheDirectoryAndNonRegularFiles(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(outside, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "inside"), []byte("ok"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"passwd": "/etc/passwd", "zero": "/dev/zero", "secret": outside, "up": "../x", "good": "inside"} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"passwd", "zero", "secret", "up", "fifo"} {
		if data, err := ReadFileIn(dir, name, 1<<20); err == nil {
			t.Errorf("ReadFileIn(%s) read %q, want it refused", name, data)
		}
		if f, err := OpenFileIn(dir, name); err == nil {
			f.Close()
			t.Errorf("OpenFileIn(%s) opened it, want it refused", name)
		}
	}
	if data, err := ReadFileIn(dir, "good", 10); err != nil || string(data) != "ok" {
		t.Errorf("ReadFileIn(good) = %q, %v", data, err)
	}
}
