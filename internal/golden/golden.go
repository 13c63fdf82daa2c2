// Package golden compares test output with checked-in golden files, the
// same way in every package: a mismatch prints a unified diff of the file
// against the output, with the command that regenerates it, and one flag,
// -update, rewrites every golden of the test binary it is given to.
//
// A golden file changes only in a commit that says why, with a line in
// docs/golden-log.md (spec §15): -update writes the files, git diff shows
// what changed, and the commit explains it.
//
// The flag is the one github.com/charmbracelet/x/exp/golden registers:
// teatest links that package into the tui tests, and a second flag named
// update in the same test binary would panic at init ("flag redefined").
// Importing it here makes it the single definition wherever this package
// is used, so no package defines -update of its own. Every package of
// the module with tests imports this one (a goldenflag_test.go where it
// compares no golden), so that `go test ./... -update` is accepted by
// every test binary and regenerates every golden (docs/golden-log.md).
package golden

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/aymanbagabas/go-udiff"
	_ "github.com/charmbracelet/x/exp/golden" // registers -update; see the package doc
)

// Updating reports whether the test binary was given -update: goldens are
// to be rewritten from this run, and tests that pin other generated files
// (the sweep corpus's pins) regenerate them too.
func Updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// Check fails t unless got equals the golden file at path (relative to the
// test's package directory, such as testdata/x.golden). With -update it
// first writes got to path, creating its directory.
func Check[T ~[]byte | ~string](t testing.TB, path string, got T) {
	t.Helper()
	if Updating() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("golden file %s does not exist; create it with\n\t%s", path, Command(t))
	}
	if err != nil {
		t.Fatal(err)
	}
	if string(want) == string(got) {
		return
	}
	t.Errorf("output differs from golden file %s (- golden, + this run):\n%s\nif the change is intended, regenerate it with\n\t%s\nand say why in the commit and in docs/golden-log.md",
		path, Diff(path, string(want), string(got)), Command(t))
}

// Diff is the unified diff from the golden text want to got, labelled
// with the golden's path.
func Diff(path, want, got string) string {
	d := udiff.Unified(path, path+" (this run)", want, got)
	if d == "" && want != got {
		// udiff treats the texts as lines; say so when they still differ.
		d = fmt.Sprintf("(the texts differ in bytes no line diff shows: %d vs %d bytes)\n", len(want), len(got))
	}
	return d
}

// Command is the go test command that regenerates the goldens of t:
// go test ./pkg -run '^TestX$/^sub$' -update.
func Command(t testing.TB) string {
	var run []string
	for _, part := range strings.Split(t.Name(), "/") {
		run = append(run, "^"+regexp.QuoteMeta(part)+"$")
	}
	return fmt.Sprintf("go test %s -run '%s' -update", packageDir(), strings.Join(run, "/"))
}

// packageDir is the test's package directory relative to its module root
// ("./bundle"), or "." if the module root cannot be found.
func packageDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			rel, err := filepath.Rel(dir, wd)
			if err != nil || rel == "." {
				return "."
			}
			return "./" + filepath.ToSlash(rel)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "."
		}
		dir = parent
	}
}
