package bench

import (
	"testing"

	"github.com/detsim/detsim/engine/rng"
	"github.com/detsim/detsim/network"
)

// The two set-up costs of a 1000-peer full mesh (999,000 directed edges),
// apart from the run: they are where detsim spends its time before the
// first event at that size, so they get benchmarks of their own.

// BenchmarkSetup_Load1000FullMesh is scenarios.Parse on the 1000-node
// scenario: it resolves 999,000 network.Link values.
func BenchmarkSetup_Load1000FullMesh(b *testing.B) {
	b.ReportAllocs()
	for range b.N {
		spec1000.load(b)
	}
}

// BenchmarkSetup_NetworkNew1000FullMesh is network.New on those links, as
// engine.New calls it.
func BenchmarkSetup_NetworkNew1000FullMesh(b *testing.B) {
	sc := spec1000.load(b)
	ids := make([]string, len(sc.Peers))
	for i, p := range sc.Peers {
		ids[i] = p.ID
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		network.New(ids, sc.Links, rng.New(sc.Seed))
	}
}
