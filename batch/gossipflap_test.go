package batch

import (
	"path/filepath"
	"testing"

	"github.com/detsim/detsim/bundle/verdict"
	"github.com/detsim/detsim/engine"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/scenarios"
)

// runVerdicts runs sc in memory (no bundle) and returns its final
// verdicts from the streaming evaluator, which the verdict package proves
// equal to post-run evaluation.
func runVerdicts(t *testing.T, sc *scenarios.Scenario) []verdict.Verdict {
	t.Helper()
	ev, err := verdict.New(sc.Assertions)
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(sc, builtin.Registry(), engine.Options{Monitor: Monitor(ev)})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Run(); err != nil {
		t.Fatal(err)
	}
	return e.Monitor().(EvalMonitor).Evaluator().Finish(e.Now())
}

func failed(vs []verdict.Verdict, kind string) bool {
	for _, v := range vs {
		if v.Outcome == verdict.Fail && (kind == "" || v.Kind == kind) {
			return true
		}
	}
	return false
}

// TestGossipFlap_NotOneSeed is the guard against a reproduction that
// hinges on its seed: over twenty seeds the legacy queue must flap on at
// least fifteen, and the bounded queue (the fix) must pass every
// assertion on all twenty.
func TestGossipFlap_NotOneSeed(t *testing.T) {
	if testing.Short() {
		t.Skip("40 seven-minute SWIM runs")
	}
	reg := builtin.Registry()
	legacy, err := scenarios.LoadLibrary("reproduction/gossip_flap", reg)
	if err != nil {
		t.Fatal(err)
	}
	fixed, err := scenarios.LoadLibrary("reproduction/gossip_flap_fixed", reg)
	if err != nil {
		t.Fatal(err)
	}
	flapped := 0
	for seed := uint64(1); seed <= 20; seed++ {
		l, f := *legacy, *fixed
		l.Seed, f.Seed = seed, seed
		if failed(runVerdicts(t, &l), "no_flap_while_probes_ok") {
			flapped++
		}
		if vs := runVerdicts(t, &f); failed(vs, "") {
			t.Errorf("seed %d: the bounded queue failed: %+v", seed, vs)
		}
	}
	t.Logf("legacy flapped on %d of 20 seeds", flapped)
	if flapped < 15 {
		t.Errorf("legacy flapped on only %d of 20 seeds, want at least 15", flapped)
	}
}

// TestGossipModes_IdenticalWithoutUpdates: with every peer a member on a
// clean network no update is ever queued, and the two broadcast queues
// must then be indistinguishable, byte for byte (DESIGN §5).
func TestGossipModes_IdenticalWithoutUpdates(t *testing.T) {
	reg := builtin.Registry()
	parity := map[string]string{}
	for _, mode := range []string{"legacy", "bounded"} {
		sc, err := scenarios.LoadLibrary("smoke/three_mesh", reg)
		if err != nil {
			t.Fatal(err)
		}
		for i := range sc.Peers {
			sc.Peers[i].KindConfig = map[string]any{"gossip": mode}
		}
		r, err := Run(sc, reg, Config{Out: filepath.Join(t.TempDir(), mode), Version: "test"})
		if err != nil {
			t.Fatal(err)
		}
		if r.Failed() {
			t.Fatalf("%s: %+v", mode, r.Verdicts)
		}
		parity[mode] = r.Parity + " " + r.Digest
	}
	if parity["legacy"] != parity["bounded"] {
		t.Fatalf("legacy and bounded differ with no update queued:\n%s\n%s", parity["legacy"], parity["bounded"])
	}
}
