package tui

import (
	"strings"
	"testing"
)

// The real SWIM kind: the matrix and the host view draw from its
// snapshots, at both screen sizes.
func TestSwim_MatrixAndHostView(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {160, 48}, {200, 60}} {
		m := newTestModel(t, loadScenario(t, "reproduction/gossip_flap"), sz[0], sz[1])
		m = drive(t, m, keys("g", "text:60s", "enter")...)
		s := screenText(m)
		checkScreenShape(t, s, sz[0], sz[1])
		if m.frame().Views() == "" {
			t.Fatalf("%dx%d: SWIM snapshots not recognised", sz[0], sz[1])
		}
		for _, want := range []string{"membership", "health ", "bq ", "orch", "A "} {
			if !strings.Contains(s, want) {
				t.Errorf("%dx%d: screen lacks %q:\n%s", sz[0], sz[1], want, s)
			}
		}
	}
}
