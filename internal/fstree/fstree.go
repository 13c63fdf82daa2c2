// Package fstree records a directory tree as a map, so a test can show
// that a command refused to touch anything: take it before, and after
// ask whether it is the Same; lists a directory's names, or holds them
// to a list; copies a tree, for a test that damages a copy; and makes a
// named pipe in one (Fifo, on unix), for a test that a reader refuses it.
package fstree

import (
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Same fails t, saying what, when the tree under dir is no longer want
// (what Of returned before).
func Same(t testing.TB, dir string, want map[string]string, what string) {
	t.Helper()
	if got := Of(t, dir); !maps.Equal(want, got) {
		t.Errorf("%s:\nwant %v\ngot  %v", what, want, got)
	}
}

// Names lists the names in dir, sorted (os.ReadDir's order).
func Names(t testing.TB, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
	}
	return names
}

// Holds fails t unless dir holds exactly the names want, in any order:
// nothing missing, nothing beside them (a temporary left behind).
func Holds(t testing.TB, dir string, want ...string) {
	t.Helper()
	got := Names(t, dir)
	want = slices.Sorted(slices.Values(want))
	if !slices.Equal(got, want) {
		t.Errorf("%s holds %v, want exactly %v", dir, got, want)
	}
}

// Of maps every path under dir, relative to it ("." for dir itself), to
// its content: a regular file's bytes, "<dir>" for a directory,
// "-> target" for a symbolic link, "<type>" for anything else. Links
// are not followed.
func Of(t testing.TB, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			got[rel] = "-> " + target
		case d.IsDir():
			got[rel] = "<dir>"
		case d.Type().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			got[rel] = string(data)
		default:
			got[rel] = "<" + d.Type().String() + ">"
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// Copy copies the regular files and directories under src to dst, for a
// test that damages a copy of a bundle and keeps the original.
func Copy(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o777)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o666)
	})
	if err != nil {
		t.Fatal(err)
	}
}
