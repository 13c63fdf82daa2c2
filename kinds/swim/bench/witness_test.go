package bench

import (
	"flag"
	"io"
	"path/filepath"
	"testing"
	"testing/synctest"

	"github.com/hashicorp/memberlist"

	"github.com/detsim/detsim/kinds/swim/bench/mlevents"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/bundle/verdict"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/kinds/swim/swim"
	"github.com/detsim/detsim/scenarios"
)

var witnessOut = flag.String("witness-out", "", "write the witness bundles (and, in TestWitness_Compare, the simulator's) under this directory instead of a temporary one")

// outDir is where a test's bundle named name goes.
func outDir(t *testing.T, name string) string {
	if *witnessOut != "" {
		return filepath.Join(*witnessOut, name)
	}
	return filepath.Join(t.TempDir(), name)
}

func loadScenario(t *testing.T, name string) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.Resolve(name, builtin.Registry())
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestWitness_SmokeConverges: memberlist on smoke/three_mesh's links
// writes a bundle that verifies, every node sees every other alive at the
// end, and the scenario's assertions pass on memberlist's records.
func TestWitness_SmokeConverges(t *testing.T) {
	sc := loadScenario(t, "smoke/three_mesh")
	out := outDir(t, "witness-three_mesh")
	res := runWitness(t, sc, out)
	problems, err := bundle.Verify(out)
	if err != nil || len(problems) > 0 {
		t.Fatalf("verify: %v %v", problems, err)
	}
	for i, v := range res.Final {
		for _, p := range sc.Peers {
			if got := v[p.ID]; got.State != swim.Alive {
				t.Errorf("%s sees %s %v at the end", sc.Peers[i].ID, p.ID, got.State)
			}
		}
	}
	for _, v := range res.Verdicts {
		if v.Outcome != verdict.Pass {
			t.Errorf("verdict %s: %s (%s)", v.Name, v.Outcome, v.Reason)
		}
	}
	if res.Full != 0 || len(res.Errors) != 0 {
		t.Errorf("%d deliveries lost to a full queue; memberlist logged %d errors: %q", res.Full, len(res.Errors), res.Errors)
	}
	t.Logf("%d records", res.Records)
}

// TestWitness_ReadsMemberlistView: the witness reads memberlist's view
// through two unexported fields (mlevents.ReadView). If a memberlist upgrade moves
// them, this fails before any bundle is written from a wrong view.
func TestWitness_ReadsMemberlistView(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mn := newMemNetwork(16)
		conf := memberlist.DefaultLANConfig()
		conf.Name = "n0"
		conf.Transport = mn.transport(0, conf.Name)
		conf.LogOutput = io.Discard
		m, err := memberlist.Create(conf)
		if err != nil {
			t.Fatal(err)
		}
		v := mlevents.ReadView(m)
		if len(v) != 1 || v["n0"] != (mlevents.View{State: swim.Alive, Inc: 1}) {
			t.Errorf("ReadView = %+v, want n0 alive at incarnation 1", v)
		}
		m.Shutdown()
	})
}
