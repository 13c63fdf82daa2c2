package calibrate

import (
	"bytes"
	"strings"
	"testing"

	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/scenarios"
)

// The whole-recording rule (Conformal) on recordings whose answer is
// known: the model's own runs at other seeds are exchangeable with its
// seeds, so none alarms, although seed 2 fails a row of the table
// (TestRun_SimVsSimPasses); a recording of the legacy queue, judged
// against the fixed one, fails more rows than any seed and alarms.
func TestConformal_AlarmsOnAWrongModelNotOnTheRightOne(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		sc, prod := threeRegion(t, "three_region_3m", seed)
		r, err := Run(sc, prod, Options{FirstSeed: 100, Seeds: 20, AllowSimProd: true})
		must(t, err)
		if c := r.Conformal; c == nil || c.Alarm || len(c.SeedFails) != 20 {
			t.Errorf("prod seed %d, the model's own run: %+v, want no alarm from 20 seeds", seed, c)
		}
		// The verdict is the rule's, not the rows': a right model's
		// failing row is a diagnosis.
		if r.Alarmed() {
			t.Errorf("prod seed %d: the verdict fails (rows failing: %v) where the rule does not alarm", seed, r.Failed())
		}
	}
	_, prod := threeRegion(t, "three_region_3m_legacy", 1)
	sc, err := scenarios.Load("testdata/three_region_3m.toml", builtin.Registry())
	must(t, err)
	r, err := Run(sc, prod, Options{FirstSeed: 100, Seeds: 20, AllowSimProd: true})
	must(t, err)
	if c := r.Conformal; c == nil || !c.Alarm || c.P != 1.0/21 || !r.Alarmed() {
		t.Fatalf("legacy against fixed: %+v (verdict fails: %v), want an alarm at p = 1/21 and a failing verdict", c, r.Alarmed())
	}
	var out bytes.Buffer
	must(t, r.Write(&out))
	if !strings.Contains(out.String(), "ALARM, the recording fails more rows than the model's own runs do") {
		t.Errorf("report:\n%s", out.String())
	}
	// At the default ten seeds the rule could never alarm: it is not
	// computed, and the report says how to ask for it.
	r, err = Run(sc, prod, Options{FirstSeed: 100, AllowSimProd: true})
	must(t, err)
	out.Reset()
	must(t, r.Write(&out))
	if r.Conformal != nil || r.Alarmed() != r.Failed() || !strings.Contains(out.String(), "as a whole: not judged with 10 seeds; --seeds 19 or more") {
		t.Errorf("ten seeds: %+v\n%s", r.Conformal, out.String())
	}
}
