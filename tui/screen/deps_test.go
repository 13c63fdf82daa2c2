package screen

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// The screen is what `detsim --batch --break-on` draws with: it must not
// pull in the interactive program (bubbletea, bubbles, or package tui,
// which imports both), only lipgloss and x/ansi, so the headless path
// links no terminal program. The dependency points one way, tui → screen.
func TestImportsNoBubbletea(t *testing.T) {
	goCmd := filepath.Join(runtime.GOROOT(), "bin", "go")
	if p, err := exec.LookPath("go"); err == nil {
		goCmd = p
	}
	out, err := exec.Command(goCmd, "list", "-deps", "-f", "{{.ImportPath}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "charm.land/lipgloss/v2") || !slices.Contains(deps, "github.com/detsim/detsim/debugger") {
		t.Fatalf("go list -deps did not list what the screen draws with: %v", deps)
	}
	for _, d := range deps {
		if strings.HasPrefix(d, "charm.land/bubbletea") || strings.HasPrefix(d, "charm.land/bubbles") ||
			d == "github.com/detsim/detsim/tui" {
			t.Errorf("tui/screen depends on %s", d)
		}
	}
}
