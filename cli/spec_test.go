package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// citation is a comment's reference to the contract: "spec §5.4" or
// "DESIGN §4".
var citation = regexp.MustCompile(`\b(spec|DESIGN) §([0-9]+(?:\.[0-9]+)?)`)

// TestSpecCitations_ResolveToAHeading: every "spec §N" and "DESIGN §N"
// a Go file of the repository cites is a heading of docs/spec.md, so a
// reader following a comment finds the section in the repository.
func TestSpecCitations_ResolveToAHeading(t *testing.T) {
	doc, err := os.ReadFile("../docs/spec.md")
	if err != nil {
		t.Fatal(err)
	}
	headings := map[string]bool{}
	for _, line := range strings.Split(string(doc), "\n") {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimLeft(line, "# ")
		design := strings.HasPrefix(title, "DESIGN ")
		title = strings.TrimPrefix(title, "DESIGN ")
		if num, ok := strings.CutPrefix(title, "§"); ok {
			num, _, _ = strings.Cut(num, " ")
			headings[map[bool]string{false: "spec", true: "DESIGN"}[design]+" §"+num] = true
		}
	}
	cited := 0
	err = filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range citation.FindAllStringSubmatch(string(b), -1) {
			cited++
			if !headings[m[1]+" §"+m[2]] {
				t.Errorf("%s cites %q: docs/spec.md has no heading §%s", path, m[0], m[2])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if cited == 0 {
		t.Fatal("no citation found: the walk read nothing")
	}
}
