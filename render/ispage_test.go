package render

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestIsPage_OnlyWhatWriteProduced(t *testing.T) {
	dir := t.TempDir()
	var page bytes.Buffer
	if _, err := Write(&page, libraryBundle(t, "reproduction/gossip_flap"), Options{}); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"page.html":  page.Bytes(),
		"other.html": []byte("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>mine</title>"),
		"short.html": []byte("<!DOCTYPE"),
		// A page detsim wrote that the user then changed is theirs now:
		// before, any file beginning as a page was taken for one and the
		// stepper's P replaced it, notes and all.
		"appended.html":  append(bytes.Clone(page.Bytes()), "<p>my notes</p>\n"...),
		"edited.html":    bytes.Replace(page.Bytes(), []byte("<head>"), []byte("<head><!--mine-->"), 1),
		"truncated.html": page.Bytes()[:page.Len()-1],
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(dir, "page.html"), filepath.Join(dir, "link.html")); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"page.html": true, "other.html": false, "short.html": false, "link.html": false, "missing.html": false,
		"appended.html": false, "edited.html": false, "truncated.html": false} {
		got, err := IsPage(filepath.Join(dir, name))
		if err != nil || got != want {
			t.Errorf("%s: IsPage = %v, %v; want %v", name, got, err, want)
		}
	}
}
