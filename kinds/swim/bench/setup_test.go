package bench

import (
	"testing"

	"github.com/detsim/detsim/network"
	"github.com/detsim/detsim/rng"
)

// The two set-up costs of a 1000-peer full mesh (999,000 directed edges),
// apart from the run: they are where detsim spends its time before the
// first event at that size, so they get benchmarks of their own.

// BenchmarkSetup_Load1000FullMesh is scenarios.Parse on the 1000-node
// scenario, which declares no [[links]]: a full mesh, kept as one flag
// rather than 999,000 resolved network.Link values.
func BenchmarkSetup_Load1000FullMesh(b *testing.B) {
	b.ReportAllocs()
	for range b.N {
		spec1000.load(b)
	}
}

// BenchmarkSetup_NetworkNew1000FullMesh builds the network of that mesh,
// as engine.New does.
func BenchmarkSetup_NetworkNew1000FullMesh(b *testing.B) {
	sc := spec1000.load(b)
	ids := make([]string, len(sc.Peers))
	for i, p := range sc.Peers {
		ids[i] = p.ID
	}
	b.ReportAllocs()
	b.ResetTimer()
	if !sc.FullMesh {
		b.Fatal("the 1000-node scenario is not a full mesh")
	}
	for range b.N {
		network.NewMesh(ids, sc.DefaultLink, rng.New(sc.Seed))
	}
}
