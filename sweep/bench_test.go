package sweep

import (
	"context"
	"runtime/debug"
	"testing"
	"time"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/property"
)

// BenchmarkSweep measures seeds per second of a 3-peer, 60-virtual-second
// SWIM property on 1 and 2 workers (target: ≥ 50 seeds/s on 2 cores, and
// ≥ 1.8× from 1 to 2 workers). Every b.N seeds are distinct.
func BenchmarkSweep(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(400)) // as detsim sweep runs
	reg := builtin.Registry()
	p, err := property.Load("testdata/bench_3peer_60s.toml", reg)
	if err != nil {
		b.Fatal(err)
	}
	benchWorkers(b, p, reg, 1_000)
}

// benchWorkers sweeps b.N seeds of p from start on 1 and then 2 workers,
// reporting seeds per second and CPU per seed.
func benchWorkers(b *testing.B, p *property.Property, reg *hosts.Registry, start uint64) {
	for _, w := range []int{1, 2} {
		b.Run(map[int]string{1: "workers=1", 2: "workers=2"}[w], func(b *testing.B) {
			benchSeeds(b, p, reg, start, w)
		})
	}
}

// benchSeeds sweeps b.N seeds of p from start on workers workers,
// reporting seeds per second and CPU per seed.
func benchSeeds(b *testing.B, p *property.Property, reg *hosts.Registry, start uint64, workers int) {
	t0, cpu := time.Now(), processCPU()
	s, err := Run(context.Background(), p, reg, Config{Start: start, Count: uint64(b.N), Workers: workers})
	if err != nil || s.Ran != uint64(b.N) {
		b.Fatalf("ran %d of %d: %v", s.Ran, b.N, err)
	}
	b.ReportMetric(float64(b.N)/time.Since(t0).Seconds(), "seeds/s")
	// CPU per seed: on a shared machine, the speed-up from 1 to w
	// workers an idle one would show is w × cpu(1) / cpu(w).
	b.ReportMetric(float64(processCPU()-cpu)/float64(b.N)/1e6, "cpu-ms/seed")
}

// BenchmarkSeed_GossipFlap7min is the cost of one seed of the shipped
// properties (3–5 peers, 7 virtual minutes), one worker: what the CI-sized
// check pays per seed.
func BenchmarkSeed_GossipFlap7min(b *testing.B) {
	benchLibrary(b, 1, "gossip_flap_legacy", "gossip_flap")
}

// BenchmarkSweep_GossipFlap is issue 32's sweep figure: seeds per second
// of the shipped gossip-flap properties on two workers, as `detsim sweep
// NAME --corpus ”` runs them (no --json, so no seed is serialised; no
// corpus, so no failing seed is run again). Goals: gossip_flap ≥ 1 000
// seeds/s, gossip_flap_legacy ≥ 250 (docs/BENCHMARKS.md).
func BenchmarkSweep_GossipFlap(b *testing.B) {
	benchLibrary(b, 2, "gossip_flap", "gossip_flap_legacy")
}

// benchLibrary runs benchSeeds from seed 0 on workers workers over each
// named library property, a sub-benchmark each, with the GC set as detsim
// sweep sets it.
func benchLibrary(b *testing.B, workers int, names ...string) {
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	reg := builtin.Registry()
	for _, name := range names {
		p := libraryProperty(b, name, reg)
		b.Run(name, func(b *testing.B) { benchSeeds(b, p, reg, 0, workers) })
	}
}
