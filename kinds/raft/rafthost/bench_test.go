package rafthost_test

import (
	"path/filepath"
	"testing"

	"github.com/detsim/detsim/batch"
	"github.com/detsim/detsim/bundle/verdict"
)

// BenchmarkRun_Load is issue 24's goal: a 5-node raft scenario with
// 10 000 proposals over 60 virtual seconds, run with its bundle written
// (events.ndjson, snapshots, verdicts: Raft's safety properties and
// every put from 1 s committed within 1 s), in under a second. One op is one
// whole run.
func BenchmarkRun_Load(b *testing.B) { benchRun(b, "testdata/load.toml") }

// BenchmarkRun_LoadClients is issue 30's: the same 10 000 puts issued
// by clients that wait for each answer, their history checked by the
// linearizable oracle besides. It may take at most twice
// BenchmarkRun_Load's time.
func BenchmarkRun_LoadClients(b *testing.B) { benchRun(b, "testdata/load_clients.toml") }

func benchRun(b *testing.B, file string) {
	sc := load(b, file, -1)
	dir := b.TempDir()
	for i := 0; b.Loop(); i++ {
		r, err := batch.Run(sc, registry(), batch.Config{Out: filepath.Join(dir, "b"), Version: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		if i == 0 {
			b.ReportMetric(float64(r.Records), "records")
			for _, v := range r.Verdicts {
				if v.Outcome != verdict.Pass {
					b.Fatalf("%s: %s: %s", v.Name, v.Outcome, v.Reason)
				}
			}
		}
	}
}
