// Package godeps lists packages and what they depend on, for tests: the
// ones that hold a package to a dependency fence (the headless debugger
// and the stepper's screen, tui/screen, must not pull in the interactive
// terminal program, so `detsim --batch --break-on` never links it), and
// the one that holds the README's package table to the module, and the
// one that holds every test binary to knowing -update.
package godeps

import (
	"os/exec"
	"strings"
	"testing"
)

// List returns the import paths of patterns and of everything they
// import, directly or not (`go list -deps`), as go list resolves them in
// the test's package directory ("." is the package under test). It fails
// t when go list does.
func List(t testing.TB, patterns ...string) []string {
	t.Helper()
	return strings.Fields(goList(t, "{{.ImportPath}}", append([]string{"-deps"}, patterns...)...))
}

// Packages returns the import paths patterns name (`go list`), without
// their dependencies: "github.com/detsim/detsim/..." is every package of
// the module.
func Packages(t testing.TB, patterns ...string) []string {
	t.Helper()
	return strings.Fields(goList(t, "{{.ImportPath}}", patterns...))
}

// Lines returns format (a go list -f template) applied to each package
// patterns name, one line a package.
func Lines(t testing.TB, format string, patterns ...string) []string {
	t.Helper()
	return strings.Split(strings.TrimRight(goList(t, format, patterns...), "\n"), "\n")
}

func goList(t testing.TB, format string, args ...string) string {
	t.Helper()
	// The go on PATH is the one running the tests (go test puts its
	// GOROOT/bin first).
	out, err := exec.Command("go", append([]string{"list", "-f", format}, args...)...).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("go list %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr)
	}
	return string(out)
}
