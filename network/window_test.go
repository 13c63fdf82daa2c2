package network

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// countLinks is LinkCounts the slow way, from every view.
func countLinks(views []LinkView) (cold, mutated int) {
	for _, v := range views {
		if v.State == Cold {
			cold++
		}
		if len(v.Active) > 0 {
			mutated++
		}
	}
	return cold, mutated
}

// LinkCounts and LinkRange agree with Links at every point of a random
// run of sends (datagrams and reliable streams), idle-outs, partitions, heals, kills and timed effects,
// and in every clone.
func TestLinkCountsAndRange_AgreeWithLinks(t *testing.T) {
	peers := []string{"a", "b", "c", "d", "e"}
	p := Policy{LatencyNs: 10 * ms, BandwidthBps: 1_000_000_000, ColdDialPenaltyNs: 5 * ms, CacheWarmAfterNs: 20 * ms, CacheInvalidateAfterIdleNs: 300 * ms}
	n := newMesh(peers, p)
	r := rand.New(rand.NewPCG(7, 8))
	pick := func() string { return peers[r.IntN(len(peers))] }
	at := int64(0)
	for step := 0; step < 3000; step++ {
		at += int64(r.IntN(40)) * ms
		switch k := r.IntN(100); {
		case k < 70:
			a, b := pick(), pick()
			if a != b {
				send(t, n, a, b, 100, at)
			}
		case k < 80: // a reliable stream dials, idles and cools the same edges
			a, b := pick(), pick()
			if a != b {
				n.SendReliable(idx(t, n, a), idx(t, n, b), 100, at, r.IntN(2) == 0)
			}
		case k < 85:
			n.ApplyMutation(&Mutation{Kind: Partition, PeersA: []string{pick()}, PeersB: []string{pick(), pick()}}, at)
		case k < 89:
			n.ApplyMutation(&Mutation{Kind: Heal}, at)
		case k < 92:
			n.ApplyMutation(&Mutation{Kind: PeerKill, Peer: pick()}, at)
		default:
			kind := []MutationKind{LatencySpike, LossBurst, RelayBuffer}[r.IntN(3)]
			n.ApplyMutation(&Mutation{Kind: kind, Links: []Edge{{From: pick(), To: pick()}, {From: pick(), To: pick()}},
				FactorX100: 300, ProbPPM: 1000, FloorNs: ms, DurationNs: int64(r.IntN(500)) * ms}, at)
		}
		for _, m := range []*Network{n, n.Clone()} {
			all := m.Links()
			wc, wm := countLinks(all)
			if c, mu := m.LinkCounts(); c != wc || mu != wm || m.NumLinks() != len(all) {
				t.Fatalf("step %d: LinkCounts = %d cold, %d mutated; Links says %d, %d", step, c, mu, wc, wm)
			}
			lo, hi := r.IntN(len(all)), r.IntN(len(all)+3)
			got := m.LinkRange(lo, hi)
			want := all[min(lo, hi):min(hi, len(all))]
			if lo > hi {
				want = nil
			}
			if len(got) != len(want) || !slices.EqualFunc(got, want, func(a, b LinkView) bool {
				return a.From == b.From && a.To == b.To && a.State == b.State && a.LastSendNs == b.LastSendNs && a.InFlight == b.InFlight && slices.Equal(a.Active, b.Active)
			}) {
				t.Fatalf("step %d: LinkRange(%d, %d) differs from Links[%d:%d]", step, lo, hi, lo, hi)
			}
		}
	}
}
