package swim

import (
	"path/filepath"
	"testing"

	"github.com/detsim/detsim/internal/golden"
)

// TestGolden_IsolateAndHeal pins a whole trace: three members, c cut off
// at 3 s (suspected, then declared dead, while c declares the others
// dead), healed at 9 s (reconnect, refutations, reconvergence). Every
// event and the final snapshots are compared byte for byte; a change is a
// behaviour change to review (regenerate with -update).
func TestGolden_IsolateAndHeal(t *testing.T) {
	out := isolateAndHeal(t, false)
	golden.Check(t, filepath.Join("testdata", "isolate_and_heal.golden"), out)
}

// isolateAndHeal runs the golden scenario and returns its trace; with
// outputs, every node hands its effects to an Output.
func isolateAndHeal(t *testing.T, outputs bool) []byte {
	c := newCluster(t, abc, DefaultConfig(), nil)
	if outputs {
		c.useOutputs()
	}
	c.run(3 * s)
	c.isolate("c", true)
	c.run(9 * s)
	c.isolate("c", false)
	c.run(14 * s)
	if outputs {
		clone := c.nodes["a"].Clone(&testRand{})
		if effs := clone.Tick(20 * s); len(effs) == 0 {
			t.Fatal("a clone of a node with an Output returned no effects: it kept the Output")
		}
	}
	return c.trace()
}

// TestOutput_SameTraceAsReturnedEffects: a node handing its effects to an
// Output as they happen does exactly what it does returning them: the
// isolate-and-heal trace, every event and snapshot, is the golden one.
// A clone starts without the Output.
func TestOutput_SameTraceAsReturnedEffects(t *testing.T) {
	if a, b := isolateAndHeal(t, false), isolateAndHeal(t, true); string(a) != string(b) {
		t.Fatal("the trace through Output differs from the trace through returned effects")
	}
}
