package live

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/detsim/detsim/internal/detlint"
)

// live and cmd/swimd are outside the determinism fence by design (wall
// clock, goroutines, sockets): no fenced package may depend on them, or
// the fence would hold a clock.
func TestFence_NothingFencedImportsLive(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	args := append([]string{"list", "-deps", "-f", "{{.ImportPath}}"}, detlint.DeterministicPackages...)
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p == "github.com/detsim/detsim/live" || strings.HasPrefix(p, "github.com/detsim/detsim/live/") || p == "github.com/detsim/detsim/cmd/swimd" {
			t.Errorf("a fenced package depends on %s", p)
		}
	}
	for _, pat := range detlint.DeterministicPackages {
		if strings.Contains(pat, "/live") {
			t.Errorf("live is in the fence: %s", pat)
		}
	}
}
