package verdict_test

import (
	"path/filepath"
	"testing"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/bundle/verdict"
	"github.com/detsim/detsim/engine"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/scenarios"
)

// simulatedRun runs an embedded scenario through the engine with a
// bundle writer, as a batch run does, and returns its events.ndjson's
// directory, the scenario and the virtual time it ended at.
func simulatedRun(b *testing.B, name string) (dir string, sc *scenarios.Scenario, endNs int64) {
	b.Helper()
	reg := builtin.Registry()
	sc, err := scenarios.LoadLibrary(name, reg)
	if err != nil {
		b.Fatal(err)
	}
	w, err := bundle.Create(filepath.Join(b.TempDir(), "run"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(w.Abort)
	e, err := engine.New(sc, reg, engine.Options{Writer: w})
	if err != nil {
		b.Fatal(err)
	}
	if err := e.Run(); err != nil {
		b.Fatal(err)
	}
	if err := w.FlushEvents(); err != nil {
		b.Fatal(err)
	}
	return w.Dir(), sc, e.Now()
}

// BenchmarkEvaluateBundle_GossipFlap is the post-run evaluation of the
// 7-minute SWIM reproduction's real events.ndjson (7,691 records, its own
// eight assertions, none resolved before the end); ns/op is per record.
func BenchmarkEvaluateBundle_GossipFlap(b *testing.B) {
	dir, sc, end := simulatedRun(b, "reproduction/gossip_flap")
	var records int
	if err := bundle.ReadEvents(dir, func(int, bundle.EventRecord) error { records++; return nil }); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N / records {
		if _, err := verdict.EvaluateBundle(dir, sc.Assertions, end); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkObserve_GossipFlap streams the same run's records, payloads as
// the engine hands them over, through a fresh evaluator per pass; ns/op
// is per record.
func BenchmarkObserve_GossipFlap(b *testing.B) {
	dir, sc, _ := simulatedRun(b, "reproduction/gossip_flap")
	var recs []bundle.EventRecord
	if err := bundle.ReadEvents(dir, func(_ int, rec bundle.EventRecord) error {
		recs = append(recs, rec)
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	var e *verdict.Evaluator
	for i := range b.N {
		k := i % len(recs)
		if k == 0 {
			var err error
			if e, err = verdict.New(sc.Assertions); err != nil {
				b.Fatal(err)
			}
		}
		e.Observe(k+1, recs[k])
	}
	b.StopTimer()
	if err := e.Err(); err != nil {
		b.Fatal(err)
	}
}
