package golden

import (
	"strings"
	"testing"

	"github.com/detsim/detsim/internal/godeps"
)

// TestEveryTestBinary_KnowsUpdate: `go test ./... -update` regenerates
// every golden only if every test binary of the module knows the flag;
// one that does not exits 2 ("flag provided but not defined: -update")
// and the run fails. So every package with tests imports this package
// (goldenflag_test.go, where it compares no golden); a new package's
// tests without it fail here.
func TestEveryTestBinary_KnowsUpdate(t *testing.T) {
	const self = "github.com/detsim/detsim/internal/golden"
	lines := godeps.Lines(t, "{{.ImportPath}} {{len .TestGoFiles}} {{len .XTestGoFiles}}{{range .TestImports}} {{.}}{{end}}{{range .XTestImports}} {{.}}{{end}}", "github.com/detsim/detsim/...")
	if len(lines) < 20 {
		t.Fatalf("go list named only %d packages: %q", len(lines), lines)
	}
	for _, l := range lines {
		f := strings.Fields(l)
		pkg, imports := f[0], f[3:]
		if f[1] == "0" && f[2] == "0" || pkg == self {
			continue // no test binary, or this one
		}
		known := false
		for _, imp := range imports {
			known = known || imp == self
		}
		if !known {
			t.Errorf("%s's tests do not import %s: go test ./... -update fails in them (add a goldenflag_test.go as every other package has)", pkg, self)
		}
	}
}
