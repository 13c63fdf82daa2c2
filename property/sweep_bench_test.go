package property_test

import (
	"context"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/property"
	"github.com/detsim/detsim/sweep"
)

// BenchmarkSweep10k_GossipFlap runs the 10 000-seed sweep that issue 29
// asks of the fix: gossip_flap, the complete fix (bounded queue, WAN
// timings, fallback probe), seeds 0–9 999 on every core, as `detsim sweep
// gossip_flap --seeds 10000` does, pinning nothing. It reports the wall
// time and how many seeds failed (0 when it was written). One iteration is the
// whole sweep, so run it with -benchtime=1x; docs/BENCHMARKS.md ("The
// 10 000-seed gossip-flap sweep") has the figures and the machine.
func BenchmarkSweep10k_GossipFlap(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(400)) // as detsim sweep runs
	reg := builtin.Registry()
	for _, name := range []string{"gossip_flap"} {
		p, err := property.LoadLibrary(name, reg)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				start := time.Now()
				s, err := sweep.Run(context.Background(), p, reg, sweep.Config{Start: 0, Count: 10_000, Workers: runtime.NumCPU()})
				if err != nil || s.Ran != 10_000 {
					b.Fatalf("ran %d of 10000: %v", s.Ran, err)
				}
				b.ReportMetric(time.Since(start).Seconds(), "s/sweep")
				b.ReportMetric(float64(len(s.Failed)), "failing-seeds")
			}
		})
	}
}
