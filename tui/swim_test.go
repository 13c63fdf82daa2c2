package tui

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/detsim/detsim/batch"
	"github.com/detsim/detsim/debugger"
)

// The real SWIM kind: the matrix and the host view draw from its
// snapshots, at both screen sizes.
func TestSwim_MatrixAndHostView(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {160, 48}, {200, 60}} {
		m := newTestModel(t, loadScenario(t, "reproduction/gossip_flap"), sz[0], sz[1])
		m = drive(t, m, keys("g", "text:60s", "enter")...)
		s := screen(m)
		checkScreenShape(t, s, sz[0], sz[1])
		if !m.fr.swim {
			t.Fatalf("%dx%d: SWIM snapshots not recognised", sz[0], sz[1])
		}
		for _, want := range []string{"membership", "health ", "bq ", "orch", "A "} {
			if !strings.Contains(s, want) {
				t.Errorf("%dx%d: screen lacks %q:\n%s", sz[0], sz[1], want, s)
			}
		}
	}
}

// At the end of a run the header's verdict counts are the ones --batch
// writes: both come from the same evaluator over the same records.
func TestEndOfRun_VerdictsMatchBatch(t *testing.T) {
	for _, name := range []string{"reproduction/gossip_flap", "reference/echo_parity"} {
		sc := loadScenario(t, name)
		res, err := batch.Run(sc, testRegistry(), batch.Config{Out: filepath.Join(t.TempDir(), "b")})
		if err != nil {
			t.Fatal(err)
		}
		pass, fail, inc := res.Counts()
		s, err := debugger.NewSession(sc, testRegistry(), nil)
		if err != nil {
			t.Fatal(err)
		}
		s.Continue(nil)
		f, err := land(s, s.Timeline().Engine().Index(), viewParams{bandHi: len(sc.Peers)})
		if err != nil {
			t.Fatal(err)
		}
		if f.pass != pass || f.fail != fail || f.inconclusive != inc || f.open != 0 {
			t.Errorf("%s: stepper %d/%d/%d (open %d), batch %d/%d/%d", name, f.pass, f.fail, f.inconclusive, f.open, pass, fail, inc)
		}
		if f.digest != res.Digest {
			t.Errorf("%s: stepper digest %s, batch %s", name, f.digest, res.Digest)
		}
	}
}
