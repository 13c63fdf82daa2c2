package golden

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestGoldenLog_NamesEveryGolden: docs/golden-log.md lists every golden
// file of the repository (its "How to regenerate" list), so a reader
// finds there what `.ci/update-goldens` rewrites; a golden file (a
// testdata file with "golden" in its name) missing from the list, or an
// entry that matches no file, fails.
func TestGoldenLog_NamesEveryGolden(t *testing.T) {
	root := filepath.Join("..", "..")
	doc, err := os.ReadFile(filepath.Join(root, "docs", "golden-log.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(doc)
	from, to := strings.Index(s, "## How to regenerate"), strings.Index(s, "## Changes")
	if from < 0 || to < from {
		t.Fatal(`docs/golden-log.md has no "## How to regenerate" section before "## Changes"`)
	}
	var globs []string
	for _, m := range regexp.MustCompile("(?m)^- `([^`]+)`").FindAllStringSubmatch(s[from:to], -1) {
		globs = append(globs, m[1])
	}
	if len(globs) == 0 {
		t.Fatal("docs/golden-log.md lists no golden")
	}
	matched := make([]bool, len(globs))
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && p != root {
				return fs.SkipDir
			}
			return nil
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))
		listed := false
		for i, g := range globs {
			if ok, _ := path.Match(g, rel); ok {
				matched[i], listed = true, true
			}
		}
		if !listed && strings.Contains(d.Name(), "golden") && strings.Contains(rel, "/testdata/") {
			t.Errorf("%s is a golden file docs/golden-log.md does not list", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range globs {
		if !matched[i] {
			t.Errorf("docs/golden-log.md lists %s, which matches no file", g)
		}
	}
}
