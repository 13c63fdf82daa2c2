// Package godeps lists what a package depends on, for the tests that hold
// a package to a dependency fence: the headless debugger and the stepper's
// screen (tui/screen) must not pull in the interactive terminal program,
// so `detsim --batch --break-on` never links it.
package godeps

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// List returns the import paths of patterns and of everything they
// import, directly or not (`go list -deps`), as go list resolves them in
// the test's package directory ("." is the package under test). It fails
// t when go list does.
func List(t testing.TB, patterns ...string) []string {
	t.Helper()
	goCmd := filepath.Join(runtime.GOROOT(), "bin", "go")
	if p, err := exec.LookPath("go"); err == nil {
		goCmd = p
	}
	out, err := exec.Command(goCmd, append([]string{"list", "-deps", "-f", "{{.ImportPath}}"}, patterns...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps %s: %v\n%s", strings.Join(patterns, " "), err, out)
	}
	return strings.Fields(string(out))
}
