package network

import (
	"slices"
	"strconv"
	"testing"
)

// warmMesh is a quiet mesh over peers whose every edge has sent once at 0,
// so every edge is Warm and has nothing in flight after 10ms.
func warmMesh(t *testing.T, peers []string) *Network {
	t.Helper()
	n := newMesh(peers, quiet())
	for _, e := range mesh(peers, quiet()) {
		send(t, n, e.From, e.To, 0, 0)
	}
	return n
}

// ids names each invalidation as from→to#id by peer id.
func ids(n *Network, inv []Invalidated) []string {
	var out []string
	for _, v := range inv {
		out = append(out, n.peers[v.From]+"→"+n.peers[v.To]+"#"+strconv.FormatUint(v.ID, 10)+" "+v.Reason.String())
	}
	return out
}

// cooled names each CutByMutation note as from→to.
func cooled(t *testing.T, n *Network, notes []Note) []string {
	t.Helper()
	var out []string
	for _, nt := range notes {
		if nt.Kind != NoteCacheChange || nt.Transition != CutByMutation || nt.State != Cold {
			t.Errorf("unexpected mutation note %+v", nt)
		}
		out = append(out, n.peers[nt.From]+"→"+n.peers[nt.To])
	}
	return out
}

func TestApplyMutation_PartitionInvalidatesInFlightAndCools_5_5(t *testing.T) {
	n := warmMesh(t, []string{"a", "b", "c"}) // ids 1..6, all arrived by 10ms
	at := 1 * s
	send(t, n, "a", "b", 0, at) // #7, arrives at+10ms
	send(t, n, "b", "a", 0, at) // #8
	send(t, n, "a", "c", 0, at) // #9: not cut
	send(t, n, "c", "b", 0, at) // #10: not cut
	send(t, n, "a", "b", 0, at) // #11

	inv, notes := n.ApplyMutation(&Mutation{Kind: Partition, PeersA: []string{"a"}, PeersB: []string{"b"}}, at+5*ms)
	wantInv := []string{"a→b#7 partitioned", "a→b#11 partitioned", "b→a#8 partitioned"}
	if got := ids(n, inv); !slices.Equal(got, wantInv) {
		t.Errorf("invalidated %v, want %v", got, wantInv)
	}
	if got := cooled(t, n, notes); !slices.Equal(got, []string{"a→b", "b→a"}) {
		t.Errorf("cooled %v, want a→b, b→a", got)
	}
	if inv[0].At != at+10*ms {
		t.Errorf("invalidated At %d, want the arrival it would have had %d", inv[0].At, at+10*ms)
	}
	if got := n.InFlight(at + 5*ms); got != 2 {
		t.Errorf("in flight after the cut %d, want 2 (a→c, c→b)", got)
	}
	if o, _ := send(t, n, "a", "c", 0, at+6*ms); o.Dialed {
		t.Error("a→c was not cut and should still be warm")
	}

	// A second Partition stacks on the first.
	inv, notes = n.ApplyMutation(&Mutation{Kind: Partition, PeersA: []string{"c"}, PeersB: []string{"a", "b"}}, at+7*ms)
	if got := ids(n, inv); !slices.Equal(got, []string{"a→c#9 partitioned", "a→c#12 partitioned", "c→b#10 partitioned"}) {
		t.Errorf("stacked partition invalidated %v", got)
	}
	if got := cooled(t, n, notes); !slices.Equal(got, []string{"a→c", "b→c", "c→a", "c→b"}) {
		t.Errorf("stacked partition cooled %v", got)
	}
	for _, e := range mesh([]string{"a", "b", "c"}, quiet()) {
		if o, _ := send(t, n, e.From, e.To, 0, at+8*ms); o.Reason != Partitioned {
			t.Errorf("%s→%s under both partitions: %+v, want Partitioned", e.From, e.To, o)
		}
	}

	// Heal clears every partition, invalidates nothing, and the cut edges
	// dial again on their next send.
	inv, notes = n.ApplyMutation(&Mutation{Kind: Heal}, 2*s)
	if len(inv) != 0 || len(notes) != 0 {
		t.Errorf("Heal returned %v %v, want nothing", inv, notes)
	}
	for _, e := range mesh([]string{"a", "b", "c"}, quiet()) {
		if o, _ := send(t, n, e.From, e.To, 0, 2*s); !o.Arrived || !o.Dialed {
			t.Errorf("%s→%s after Heal: %+v, want a dialing arrival", e.From, e.To, o)
		}
	}
}

func TestApplyMutation_PartitionSparesArrivedDeliveries_5_5(t *testing.T) {
	n := newMesh([]string{"a", "b"}, quiet())
	send(t, n, "a", "b", 0, 0)     // #1 arrives at 10ms
	send(t, n, "a", "b", 0, 5*ms)  // #2 arrives at 15ms
	send(t, n, "a", "b", 0, 10*ms) // #3 arrives at 20ms
	inv, _ := n.ApplyMutation(&Mutation{Kind: Partition, PeersA: []string{"a"}, PeersB: []string{"b"}}, 15*ms)
	// #1 arrived before the cut. #2 arrives exactly at the cut: the engine
	// decides by queue order whether it already popped, so it is named.
	if got := ids(n, inv); !slices.Equal(got, []string{"a→b#2 partitioned", "a→b#3 partitioned"}) {
		t.Errorf("invalidated %v, want #2 and #3", got)
	}
}

func TestApplyMutation_PartitionOfAlreadyColdEdgeEmitsNoNote_5_5(t *testing.T) {
	n := newMesh([]string{"a", "b"}, quiet())
	inv, notes := n.ApplyMutation(&Mutation{Kind: Partition, PeersA: []string{"a"}, PeersB: []string{"b"}}, 0)
	if len(inv) != 0 || len(notes) != 0 {
		t.Errorf("partition of never-used edges: %v %v, want nothing", inv, notes)
	}
}

func TestApplyMutation_PeerKillInvalidatesOnlyDeliveriesToThePeer_5_5(t *testing.T) {
	n := warmMesh(t, []string{"a", "b", "c"}) // ids 1..6
	at := 1 * s
	send(t, n, "a", "b", 0, at) // #7: to b, cut
	send(t, n, "b", "a", 0, at) // #8: from b, still arrives
	send(t, n, "c", "b", 0, at) // #9: to b, cut
	send(t, n, "a", "c", 0, at) // #10: untouched
	n.flowOf(n.edge(idx(t, n, "a"), idx(t, n, "b"))).inFlight[0].dialed = true

	inv, notes := n.ApplyMutation(&Mutation{Kind: PeerKill, Peer: "b"}, at+1*ms)
	if got := ids(n, inv); !slices.Equal(got, []string{"a→b#7 peer_killed", "c→b#9 peer_killed"}) {
		t.Errorf("invalidated %v, want a→b#7 and c→b#9", got)
	}
	if !inv[0].Dialed || inv[1].Dialed {
		t.Errorf("Dialed flags %v %v, want true false", inv[0].Dialed, inv[1].Dialed)
	}
	if got := cooled(t, n, notes); !slices.Equal(got, []string{"a→b", "b→a", "b→c", "c→b"}) {
		t.Errorf("cooled %v, want every edge to and from b", got)
	}
	if got := n.InFlight(at + 1*ms); got != 2 {
		t.Errorf("in flight %d, want 2 (b→a from the dead peer, a→c)", got)
	}

	// Resurrection is the engine's business.
	inv, notes = n.ApplyMutation(&Mutation{Kind: PeerResurrect, Peer: "b"}, 2*s)
	if len(inv) != 0 || len(notes) != 0 {
		t.Errorf("PeerResurrect returned %v %v, want nothing", inv, notes)
	}
	if o, _ := send(t, n, "a", "b", 0, 2*s); !o.Dialed {
		t.Error("a→b after kill should dial again")
	}
}

func TestApplyMutation_UnknownNamesAreIgnored_5_5(t *testing.T) {
	n := newMesh([]string{"a", "b"}, quiet())
	for _, m := range []Mutation{
		{Kind: Partition, PeersA: []string{"zz"}, PeersB: []string{"a"}},
		{Kind: LatencySpike, Links: []Edge{{From: "a", To: "zz"}, {From: "a", To: "a"}}, FactorX100: 200, DurationNs: s},
		{Kind: PeerKill, Peer: "zz"},
		{Kind: MutationKind(99)},
	} {
		if inv, notes := n.ApplyMutation(&m, 0); len(inv) != 0 || len(notes) != 0 {
			t.Errorf("%v: %v %v, want nothing", m.Kind, inv, notes)
		}
	}
	if o, _ := send(t, n, "a", "b", 0, 0); o.At != 10*ms {
		t.Errorf("a→b after ignored mutations: %+v", o)
	}
}

func TestApplyMutation_LaterEffectOverridesWhileActive_5_5(t *testing.T) {
	n := newMesh([]string{"a", "b"}, quiet())
	ab := []Edge{{From: "a", To: "b"}}
	n.ApplyMutation(&Mutation{Kind: LatencySpike, Links: ab, FactorX100: 200, DurationNs: 10 * s}, 0)
	n.ApplyMutation(&Mutation{Kind: LatencySpike, Links: ab, FactorX100: 500, DurationNs: 2 * s}, 1*s)
	for _, tc := range []struct{ sentAt, want int64 }{
		{500 * ms, 500*ms + 20*ms},
		{1 * s, 1*s + 50*ms},
		{3 * s, 3*s + 20*ms}, // the later spike expired; the earlier one governs again
		{10 * s, 10*s + 10*ms},
	} {
		if o, _ := send(t, n, "a", "b", 0, tc.sentAt); o.At != tc.want {
			t.Errorf("sent at %d: arrival %d, want %d", tc.sentAt, o.At, tc.want)
		}
	}
}

func TestLinks_ViewForTheStepper(t *testing.T) {
	// Links are declared out of order and peers are not all connected.
	links := []Link{
		{Edge: Edge{From: "b", To: "a"}, Policy: quiet()},
		{Edge: Edge{From: "a", To: "c"}, Policy: quiet()},
		{Edge: Edge{From: "a", To: "b"}, Policy: quiet()},
	}
	n := New([]string{"a", "b", "c"}, links, rngRoot())
	send(t, n, "a", "b", 0, 0)
	send(t, n, "a", "b", 0, 1*ms)
	n.ApplyMutation(&Mutation{Kind: Partition, PeersA: []string{"a"}, PeersB: []string{"c"}}, 2*ms)
	n.ApplyMutation(&Mutation{Kind: LatencySpike, Links: []Edge{{From: "a", To: "b"}}, FactorX100: 450, DurationNs: 65 * s}, 3*ms)
	n.ApplyMutation(&Mutation{Kind: LossBurst, Links: []Edge{{From: "a", To: "b"}}, ProbPPM: 500_000, DurationNs: 1 * s}, 4*ms)
	n.ApplyMutation(&Mutation{Kind: RelayBuffer, Links: []Edge{{From: "b", To: "a"}}, FloorNs: 2 * ms, DurationNs: 1 * s}, 5*ms)

	views := n.Links()
	want := []LinkView{
		{From: "a", To: "b", State: Warm, LastSendNs: 1 * ms, InFlight: 2, Active: []string{
			"LatencySpike ×4.50 until 65003000000", "LossBurst 500000ppm until 1004000000"}},
		{From: "a", To: "c", State: Cold, Active: []string{"Partitioned"}},
		{From: "b", To: "a", State: Cold, Active: []string{"RelayBuffer floor 2000000ns until 1005000000"}},
	}
	if len(views) != len(want) {
		t.Fatalf("Links() = %+v, want %+v", views, want)
	}
	for i := range want {
		v, w := views[i], want[i]
		if v.From != w.From || v.To != w.To || v.State != w.State || v.LastSendNs != w.LastSendNs ||
			v.InFlight != w.InFlight || !slices.Equal(v.Active, w.Active) {
			t.Errorf("Links()[%d] = %+v, want %+v", i, v, w)
		}
	}
	if got := n.InFlight(10 * ms); got != 2 {
		t.Errorf("InFlight(10ms) = %d, want 2: #1 arrives exactly at 10ms and may not have popped", got)
	}
	if got := n.InFlight(12 * ms); got != 0 {
		t.Errorf("InFlight(12ms) = %d, want 0", got)
	}
	if got := n.Peers(); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("Peers() = %v", got)
	}
}
