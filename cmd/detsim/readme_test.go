package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The README's package table is where a newcomer looks for what each
// package is for: every package of the module must have a row (named as
// `path/`), so a new package cannot land undocumented.
func TestReadme_NamesEveryPackage(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	goCmd := filepath.Join(runtime.GOROOT(), "bin", "go")
	if p, err := exec.LookPath("go"); err == nil {
		goCmd = p
	}
	out, err := exec.Command(goCmd, "list", "-f", "{{.ImportPath}}", "github.com/detsim/detsim/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, p := range strings.Fields(string(out)) {
		rel, ok := strings.CutPrefix(p, "github.com/detsim/detsim/")
		if !ok {
			continue
		}
		if !strings.Contains(string(readme), "`"+rel+"/`") {
			t.Errorf("README.md's package table has no row naming `%s/`", rel)
		}
	}
}
