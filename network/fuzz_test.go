package network

import (
	"math"
	"testing"

	"github.com/detsim/detsim/internal/checked"
	"github.com/detsim/detsim/rng"
)

// FuzzSend feeds arbitrary, unvalidated policies, message sizes, times and
// mutation parameters to the network. It must never panic, never schedule
// an arrival before the send, keep its fixed draw counts (buffer_full and
// too_large draw nothing) and never queue more than a positive send
// buffer holds (beyond a token bucket's burst, which has left).
func FuzzSend(f *testing.F) {
	f.Add(int64(10*ms), int64(ms), int64(1000), int64(1000), int64(1000), int64(ms), int64(s), int64(s), int64(100), int64(7*ms), int64(450), int64(ms), int64(4000), int64(1500), int64(0), uint64(1))
	f.Add(int64(math.MaxInt64), int64(math.MaxInt64), int64(-1), int64(2_000_000), int64(0), int64(math.MaxInt64), int64(0), int64(-5), int64(math.MaxInt64), int64(math.MaxInt64/3), int64(math.MaxInt64), int64(math.MaxInt64), int64(math.MaxInt64), int64(math.MaxInt64), int64(math.MaxInt64), uint64(9))
	f.Add(int64(-1), int64(-1), int64(1_000_000), int64(-1), int64(-1), int64(-1), int64(-1), int64(0), int64(-1), int64(-1), int64(-1), int64(-1), int64(-1), int64(-1), int64(-1), uint64(0))
	f.Add(int64(ms), int64(0), int64(0), int64(0), int64(1), int64(0), int64(0), int64(0), int64(65536), int64(ms), int64(100), int64(0), int64(4<<20), int64(0), int64(1500), uint64(3))
	f.Add(int64(ms), int64(ms), int64(20_000), int64(0), int64(1000), int64(0), int64(0), int64(0), int64(65_508), int64(ms), int64(100), int64(0), int64(4<<20), int64(575), int64(1564), uint64(4))
	f.Fuzz(func(t *testing.T, lat, jit, loss, reorder, bw, dial, warm, idle, bytes, gap, factor, floor, buf, mtu, burst int64, seed uint64) {
		p := Policy{lat, jit, loss, reorder, bw, dial, warm, idle, buf, mtu, burst}
		n := New([]string{"a", "b"}, mesh([]string{"a", "b"}, p), rng.New(seed))
		ab := []Edge{{From: "a", To: "b"}}
		n.ApplyMutation(&Mutation{Kind: LatencySpike, Links: ab, FactorX100: factor, DurationNs: gap * 4}, 0)
		n.ApplyMutation(&Mutation{Kind: RelayBuffer, Links: ab, FloorNs: floor, DurationNs: floor}, 0)
		gap = max(gap, 0)
		var now int64
		for i := range 8 {
			before := n.flowOf(&n.edges[0]).position()
			o, _ := n.Send(0, 1, bytes, now)
			drew := n.flowOf(&n.edges[0]).position() - before
			switch {
			case o.Arrived && o.At < now:
				t.Fatalf("send %d at %d arrives at %d", i, now, o.At)
			case o.Arrived && drew != 4, o.Reason == Lossy && drew != 1, o.Reason == BufferFull && drew != 0, o.Reason == TooLarge && drew != 0:
				t.Fatalf("send %d (%+v) made %d draws", i, o, drew)
			}
			if f := n.flowOf(&n.edges[0]); buf > 0 && bw > 0 && f.lastSerializationEndNs < math.MaxInt64 {
				if q := queuedBytes(f.lastSerializationEndNs-now, bw) - max(burst, 0); q > buf {
					t.Fatalf("send %d: %d bytes queued, more than the %d-byte buffer", i, q, buf)
				}
			}
			if i == 4 {
				n.ApplyMutation(&Mutation{Kind: PeerKill, Peer: "b"}, now)
			}
			now = checked.Add(now, gap)
		}
	})
}
