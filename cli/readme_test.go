package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/detsim/detsim/internal/godeps"
)

// The README's package table is where a newcomer looks for what each
// package is for: every package of the module must have a row (named as
// `path/`), so a new package cannot land undocumented.
func TestReadme_NamesEveryPackage(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range godeps.Packages(t, "github.com/detsim/detsim/...") {
		rel, ok := strings.CutPrefix(p, "github.com/detsim/detsim/")
		if !ok {
			continue
		}
		if !strings.Contains(string(readme), "`"+rel+"/`") {
			t.Errorf("README.md's package table has no row naming `%s/`", rel)
		}
	}
}
