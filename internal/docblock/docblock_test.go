package docblock

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheck passes a document whose block is the output, and fails with
// a diff on one whose block is not, or that has no block.
func TestCheck(t *testing.T) {
	const cmd = "go run ./cmd/x"
	begin, end := Markers(cmd)
	dir := t.TempDir()
	out := "### T\n\n| a | b |\n|---|---:|\n| x | 1 |\n"
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	wrap := func(block string) string {
		return "# doc\n\nprose\n\n" + begin + "\n" + block + end + "\n\nmore prose\n"
	}
	var stderr bytes.Buffer
	if err := Check(write("same.md", wrap(out)), cmd, out, &stderr); err != nil {
		t.Errorf("same block: %v\n%s", err, stderr.String())
	}
	stderr.Reset()
	err := Check(write("stale.md", wrap(strings.Replace(out, "| x | 1 |", "| x | 2 |", 1))), cmd, out, &stderr)
	if !errors.Is(err, ErrStale) || !strings.Contains(stderr.String(), "-| x | 2 |") || !strings.Contains(stderr.String(), "+| x | 1 |") {
		t.Errorf("stale block: %v, stderr:\n%s", err, stderr.String())
	}
	if err := Check(write("other.md", wrap(out)), "go run ./cmd/y", out, &stderr); err == nil || errors.Is(err, ErrStale) {
		t.Errorf("another command's markers: %v", err)
	}
	if err := Check(write("none.md", "# doc\n"), cmd, out, &stderr); err == nil || errors.Is(err, ErrStale) {
		t.Errorf("no markers: %v", err)
	}
}
