package batch

import (
	"strings"
	"testing"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/bundle/verdict"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/scenarios"
)

// TestRun_OutputCapStopsWithAValidTruncatedBundle_Issue9: a run that
// reaches a cap on the records or bytes it writes stops at the end of
// that step, and leaves a bundle that verify finds intact, marked
// truncated, whose verdicts about time after the stop are Inconclusive —
// never a Pass the run did not earn.
func TestRun_OutputCapStopsWithAValidTruncatedBundle_Issue9(t *testing.T) {
	reg := builtin.Registry()
	full, err := Run(mustLibrary(t, "smoke/three_mesh"), reg, Config{Out: t.TempDir() + "/full", Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if full.Truncated != "" {
		t.Fatalf("the default caps truncated a smoke run: %s", full.Truncated)
	}
	for _, c := range []struct {
		name string
		cfg  Config
		flag string
	}{
		{"records", Config{MaxRecords: full.Records / 10}, "--max-records"},
		{"bytes", Config{MaxBytes: 20_000}, "--max-bytes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.cfg.Out, c.cfg.Version = t.TempDir()+"/b", "test"
			res, err := Run(mustLibrary(t, "smoke/three_mesh"), reg, c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if res.Truncated == "" || !strings.Contains(res.Truncated, c.flag) {
				t.Fatalf("Truncated = %q, want a reason naming %s", res.Truncated, c.flag)
			}
			if res.EndNs >= full.EndNs || res.Records >= full.Records {
				t.Errorf("the capped run ended at %d with %d records; the full one at %d with %d", res.EndNs, res.Records, full.EndNs, full.Records)
			}
			if c.cfg.MaxRecords > 0 && (res.Records < c.cfg.MaxRecords || res.Records > c.cfg.MaxRecords+100) {
				t.Errorf("%d records for a cap of %d: the run stops at the end of the step that reaches it", res.Records, c.cfg.MaxRecords)
			}
			m, err := bundle.ReadManifest(res.Out)
			if err != nil {
				t.Fatal(err)
			}
			if m.Truncated != res.Truncated || m.DurationNs != res.EndNs {
				t.Errorf("manifest truncated %q duration %d; result %q %d", m.Truncated, m.DurationNs, res.Truncated, res.EndNs)
			}
			if problems, err := bundle.Verify(res.Out); err != nil || len(problems) > 0 {
				t.Errorf("verify on a truncated bundle: %v %v", problems, err)
			}
			// three_mesh's all_alive_throughout window and its
			// self_incarnation_bounded both reach past the stop: neither
			// may Pass on the part that ran.
			for _, v := range res.Verdicts {
				if v.Outcome != verdict.Inconclusive {
					t.Errorf("%s is %s on a run cut short: %s", v.Name, v.Outcome, v.Reason)
				}
			}
		})
	}
}

func mustLibrary(t *testing.T, name string) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.LoadLibrary(name, builtin.Registry())
	if err != nil {
		t.Fatal(err)
	}
	return sc
}
