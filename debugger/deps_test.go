package debugger

import (
	"strings"
	"testing"

	"github.com/detsim/detsim/internal/godeps"
)

// The headless debugger is what `detsim --batch --break-on` links: it
// must not pull in the terminal (bubbletea, lipgloss, bubbles or any
// charmbracelet module), so the dependency points one way, tui → debugger.
func TestImportsNothingOfTheTerminal(t *testing.T) {
	deps := godeps.List(t, ".")
	if len(deps) < 10 {
		t.Fatalf("go list -deps listed only %v", deps)
	}
	for _, d := range deps {
		if strings.HasPrefix(d, "charm.land/") || strings.HasPrefix(d, "github.com/charmbracelet/") ||
			d == "github.com/detsim/detsim/tui" || d == "github.com/detsim/detsim/batch" {
			t.Errorf("debugger depends on %s", d)
		}
	}
}
