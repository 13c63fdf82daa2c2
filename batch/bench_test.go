package batch

import (
	"path/filepath"
	"testing"

	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/scenarios"
)

func benchRun(b *testing.B, name string) {
	reg := builtin.Registry()
	sc, err := scenarios.LoadLibrary(name, reg)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	var records int64
	b.ResetTimer()
	for i := range b.N {
		r, err := Run(sc, reg, Config{Out: filepath.Join(dir, "b"), Version: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		records += r.Records
		_ = i
	}
	b.ReportMetric(float64(records)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkBatch_GossipFlap is the wall-time goal for the
// 7-minute legacy reproduction, bundle and verdicts included.
func BenchmarkBatch_GossipFlap(b *testing.B) { benchRun(b, "reproduction/gossip_flap") }

// BenchmarkBatch_EchoParity is the determinism reference end to end.
func BenchmarkBatch_EchoParity(b *testing.B) { benchRun(b, "reference/echo_parity") }
