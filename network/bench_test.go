package network

import (
	"fmt"
	"testing"

	"github.com/detsim/detsim/rng"
)

// BenchmarkSend is the spec §12 phase-2 microbenchmark: a 16-peer full
// mesh (240 edges) answering sends round-robin over its edges at 20 000
// sends per virtual second, with every draw and state change of §5.4
// live. Target: 0 allocs/op.
func BenchmarkSend(b *testing.B) {
	peers := make([]string, 16)
	for i := range peers {
		peers[i] = fmt.Sprintf("p%02d", i)
	}
	p := Policy{
		LatencyNs:                  50 * ms,
		JitterStddevNs:             5 * ms,
		LossProbPPM:                10_000,
		ReorderProbPPM:             1_000,
		BandwidthBps:               1_250_000,
		ColdDialPenaltyNs:          100 * ms,
		CacheWarmAfterNs:           1 * s,
		CacheInvalidateAfterIdleNs: 30 * s,
	}
	n := New(peers, mesh(peers, p), rng.New(42))
	type pair struct{ from, to int }
	var pairs []pair
	for _, e := range n.edges {
		pairs = append(pairs, pair{int(e.from), int(e.to)})
	}
	const gap = 50_000 // ns of virtual time between sends
	var now int64
	var arrived int
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		e := pairs[i%len(pairs)]
		o, _ := n.Send(e.from, e.to, 512, now)
		if o.Arrived {
			arrived++
		}
		now += gap
	}
	if arrived == 0 {
		b.Fatal("nothing arrived")
	}
}
