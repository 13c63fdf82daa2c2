package screen

import (
	"slices"
	"strings"
	"testing"

	"github.com/detsim/detsim/internal/godeps"
)

// The screen is what `detsim --batch --break-on` draws with: it must not
// pull in the interactive program (bubbletea, bubbles beyond its key
// bindings, or package tui, which imports both), only lipgloss, x/ansi
// and bubbles/key (which imports fmt alone), so the headless path links
// no terminal program. The dependency points one way, tui → screen.
func TestImportsNoBubbletea(t *testing.T) {
	deps := godeps.List(t, ".")
	if !slices.Contains(deps, "charm.land/lipgloss/v2") || !slices.Contains(deps, "github.com/detsim/detsim/debugger") {
		t.Fatalf("go list -deps did not list what the screen draws with: %v", deps)
	}
	for _, d := range deps {
		if d == "charm.land/bubbles/v2/key" {
			continue
		}
		if strings.HasPrefix(d, "charm.land/bubbletea") || strings.HasPrefix(d, "charm.land/bubbles") ||
			d == "github.com/detsim/detsim/tui" {
			t.Errorf("tui/screen depends on %s", d)
		}
	}
}
