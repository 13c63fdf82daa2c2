package network

import (
	"fmt"
	"testing"

	"github.com/detsim/detsim/rng"
)

// BenchmarkSend is the spec §12 phase-2 microbenchmark: a 16-peer full
// mesh (240 edges) answering sends round-robin over its edges at 20 000
// sends per virtual second, with every draw and state change of §5.4
// live, 512-byte datagrams (one fragment) on the default 1 500-byte MTU.
// Target: 0 allocs/op.
func BenchmarkSend(b *testing.B) { benchSend(b, 512, 1_250_000) }

// BenchmarkSendFragmented is BenchmarkSend with 16 000-byte datagrams,
// eleven fragments each, whose loss probability is computed exactly per
// send (datagramLossPPM), on links fast enough (100 Mbit/s) that the
// backlog stays bounded.
func BenchmarkSendFragmented(b *testing.B) { benchSend(b, 16_000, 12_500_000) }

func benchSend(b *testing.B, bytes, bandwidth int64) {
	peers := peerIDs(16, 2)
	p := Policy{
		LatencyNs:                  50 * ms,
		JitterStddevNs:             5 * ms,
		LossProbPPM:                10_000,
		ReorderProbPPM:             1_000,
		BandwidthBps:               bandwidth,
		ColdDialPenaltyNs:          100 * ms,
		CacheWarmAfterNs:           1 * s,
		CacheInvalidateAfterIdleNs: 30 * s,
		MTUBytes:                   1500,
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
		o, _ := n.Send(e.from, e.to, bytes, now)
		if o.Arrived {
			arrived++
		}
		now += gap
	}
	if arrived == 0 {
		b.Fatal("nothing arrived")
	}
}

// BenchmarkDatagramLossPPM is the exact loss computation without the
// memo, for eleven fragments (16 KB at MTU 1 500) and for the most any
// datagram has (119: 65 507 bytes at MTU 576): what a send pays the first
// time it meets a rate and a fragment count.
func BenchmarkDatagramLossPPM(b *testing.B) {
	for _, k := range []int64{11, maxFragments} {
		b.Run(fmt.Sprintf("k=%d", k), func(b *testing.B) {
			var sum int64
			for i := 0; b.Loop(); i++ {
				sum += datagramLossPPM(10_000+int64(i%64), k)
			}
			if sum == 0 {
				b.Fatal("no loss")
			}
		})
	}
}
