package term

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestIsTerminal_NotATerminal(t *testing.T) {
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	file, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	var nilFile *os.File
	for _, tc := range []struct {
		name string
		w    io.Writer
	}{
		{"/dev/null, a character device", devNull},
		{"a pipe", w},
		{"a regular file", file},
		{"a buffer", &bytes.Buffer{}},
		{"a nil *os.File", nilFile},
		{"nil", nil},
	} {
		if IsTerminal(tc.w) {
			t.Errorf("IsTerminal(%s) = true, want false", tc.name)
		}
	}
}
