package outfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/detsim/detsim/internal/fstree"
)

func TestWrite_NeverOverwritesWithoutForce(t *testing.T) {
	dir, target, link := linkedFile(t, "target.toml", "precious", "link.toml")
	for _, p := range []string{target, link} {
		if err := Check(p, false); !errors.Is(err, ErrExists) {
			t.Errorf("Check(%s) = %v, want ErrExists", p, err)
		}
		if err := Write(p, []byte("new"), false); !errors.Is(err, ErrExists) {
			t.Errorf("Write(%s) = %v, want ErrExists", p, err)
		}
	}
	if data, _ := os.ReadFile(target); string(data) != "precious" {
		t.Errorf("the target became %q", data)
	}
	fstree.Holds(t, dir, "link.toml", "target.toml")
}

func TestWrite_ForceReplacesALinkNotItsTarget(t *testing.T) {
	dir, target, link := linkedFile(t, "target.toml", "precious", "link.toml")
	if err := Write(link, []byte("new"), true); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(target); string(data) != "precious" {
		t.Errorf("the link's target became %q", data)
	}
	if info, _ := os.Lstat(link); info.Mode()&os.ModeSymlink != 0 {
		t.Error("the link is still a link")
	}
	if data, _ := os.ReadFile(link); string(data) != "new" {
		t.Errorf("the path holds %q", data)
	}
	fstree.Holds(t, dir, "link.toml", "target.toml")
}

func TestWrite_NewFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x.toml")
	if err := Check(p, false); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, []byte("data"), false); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(p)
	if err != nil || info.Mode().Perm() != 0o644 {
		t.Errorf("stat = %v, %v; want mode 0644", info, err)
	}
	fstree.Holds(t, dir, "x.toml")
}

func TestCheck_RefusesUnusablePathsUpFront(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	os.WriteFile(file, nil, 0o644)
	for _, c := range []struct{ path, want string }{
		{"", "empty"},
		{filepath.Join(dir, "nope", "x.toml"), "no such directory"},
		{filepath.Join(file, "x.toml"), "not a directory"},
		{dir, "is a directory"},
	} {
		if err := Check(c.path, true); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Check(%q) = %v, want %q", c.path, err, c.want)
		}
	}
}

// linkedFile is a new directory holding the file name with data and
// linkName, a symbolic link to it.
func linkedFile(t *testing.T, name, data, linkName string) (dir, file, link string) {
	t.Helper()
	dir = t.TempDir()
	file, link = filepath.Join(dir, name), filepath.Join(dir, linkName)
	if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	return dir, file, link
}

// Holds recognises only a regular file with exactly the bytes: not a
// link to them, not a longer or different file.
func TestHolds_OnlyARegularFileWithExactlyTheBytes(t *testing.T) {
	dir, file, link := linkedFile(t, "f", "data", "link")
	if !Holds(file, []byte("data")) {
		t.Error("the file holding the bytes was not recognised")
	}
	for _, c := range []struct {
		path, data string
	}{{link, "data"}, {file, "dat"}, {file, "datum"}, {file, "DATA"}, {filepath.Join(dir, "missing"), ""}, {dir, ""}} {
		if Holds(c.path, []byte(c.data)) {
			t.Errorf("Holds(%s, %q) = true", filepath.Base(c.path), c.data)
		}
	}
}
