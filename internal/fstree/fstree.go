// Package fstree records a directory tree as a map, so a test can show
// that a command refused to touch anything: take it before and after and
// compare with maps.Equal.
package fstree

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

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
