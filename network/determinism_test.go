package network

import (
	"fmt"
	"runtime"
	"slices"
	"testing"

	"github.com/detsim/detsim/rng"
)

// noisy exercises every draw: jitter, loss, reorder, dial, warm-up, idle.
func noisy() Policy {
	return Policy{
		LatencyNs:                  40 * ms,
		JitterStddevNs:             5 * ms,
		LossProbPPM:                50_000,
		ReorderProbPPM:             100_000,
		BandwidthBps:               125_000,
		ColdDialPenaltyNs:          30 * ms,
		CacheWarmAfterNs:           200 * ms,
		CacheInvalidateAfterIdleNs: 2 * s,
	}
}

// drawing is lossy, jittery and reordering, with a cold dial, a warm-up
// and an idle timeout, so that every draw of a send shows: what two
// builds of one network must draw alike.
func drawing() Policy {
	return Policy{LatencyNs: 5 * ms, JitterStddevNs: 2 * ms, LossProbPPM: 100_000, ReorderProbPPM: 200_000,
		BandwidthBps: 100_000, ColdDialPenaltyNs: 30 * ms, CacheWarmAfterNs: 50 * ms, CacheInvalidateAfterIdleNs: 2 * s}
}

type step struct {
	from, to string
	bytes    int64
	at       int64
	mutation *Mutation // when set, apply it instead of sending
}

// script is a fixed mixed workload over peers a, b, c.
func script() []step {
	var steps []step
	pairs := [][2]string{{"a", "b"}, {"b", "c"}, {"b", "a"}, {"c", "a"}, {"a", "c"}}
	for i := range int64(400) {
		p := pairs[i%int64(len(pairs))]
		at := i * 7 * ms
		if i >= 200 {
			at += 3 * s // let every edge idle out once
		}
		steps = append(steps, step{from: p[0], to: p[1], bytes: 100 + i%900, at: at})
		switch i {
		case 100:
			steps = append(steps, step{at: at, mutation: &Mutation{Kind: LatencySpike, Links: []Edge{{From: "a", To: "b"}}, FactorX100: 300, DurationNs: 200 * ms}})
		case 150:
			steps = append(steps, step{at: at, mutation: &Mutation{Kind: Partition, PeersA: []string{"a"}, PeersB: []string{"c"}}})
		case 180:
			steps = append(steps, step{at: at, mutation: &Mutation{Kind: Heal}})
		case 250:
			steps = append(steps, step{at: at, mutation: &Mutation{Kind: PeerKill, Peer: "c"}})
		}
	}
	return steps
}

// trace runs steps and renders, by peer id, every outcome and note on the
// edges in keep (every edge when keep is nil); delivery ids are left out
// because they count sends on every edge.
func trace(t *testing.T, n *Network, steps []step, keep map[[2]string]bool) []string {
	t.Helper()
	var out []string
	name := func(from, to int) [2]string { return [2]string{n.peers[from], n.peers[to]} }
	kept := func(e [2]string) bool { return keep == nil || keep[e] }
	for _, st := range steps {
		if st.mutation != nil {
			inv, notes := n.ApplyMutation(st.mutation, st.at)
			for _, v := range inv {
				if e := name(v.From, v.To); kept(e) {
					out = append(out, fmt.Sprintf("%v cut at=%d %v dialed=%v", e, v.At, v.Reason, v.Dialed))
				}
			}
			for _, nt := range notes {
				if e := name(nt.From, nt.To); kept(e) {
					out = append(out, fmt.Sprintf("%v note %v %v %v", e, nt.Kind, nt.Transition, nt.State))
				}
			}
			continue
		}
		e := [2]string{st.from, st.to}
		o, notes := n.Send(idx(t, n, st.from), idx(t, n, st.to), st.bytes, st.at)
		if !kept(e) {
			continue
		}
		for _, nt := range notes {
			out = append(out, fmt.Sprintf("%v note %v %v %v", e, nt.Kind, nt.Transition, nt.State))
		}
		out = append(out, fmt.Sprintf("%v send@%d arrived=%v at=%d dialed=%v reason=%v", e, st.at, o.Arrived, o.At, o.Dialed, o.Reason))
	}
	return out
}

func TestSend_EditingOneLinkOrAddingAPeerPerturbsNoOtherLink_5_6(t *testing.T) {
	peers := []string{"a", "b", "c"}
	base := mesh(peers, noisy())
	root := rng.New(7)
	others := map[[2]string]bool{{"a", "b"}: true, {"b", "a"}: true, {"c", "a"}: true, {"a", "c"}: true}
	want := trace(t, New(peers, base, root), script(), others)

	edited := noisy()
	edited.LatencyNs, edited.LossProbPPM, edited.ReorderProbPPM = 1*ms, 900_000, 0
	// "0" sorts first, so every host index shifts by one.
	grown := []string{"0", "a", "b", "c"}
	for _, tc := range []struct {
		name  string
		peers []string
		links []Link
	}{
		{"b→c policy edited", peers, with(base, "b", "c", edited)},
		{"peer added before every other", grown, mesh(grown, noisy())},
		{"links declared in reverse", peers, reversed(base)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			steps := script()
			if len(tc.peers) > len(peers) { // traffic on the new peer's edges too
				for i := range steps {
					if i%3 == 0 && steps[i].mutation == nil {
						steps = slices.Insert(steps, i, step{from: "0", to: "a", bytes: 500, at: steps[i].at})
					}
				}
			}
			got := trace(t, New(tc.peers, tc.links, root), steps, others)
			if i, ok := firstDiff(got, want); ok {
				t.Fatalf("trace diverges at line %d:\n got %s\nwant %s", i, at(got, i), at(want, i))
			}
		})
	}
	// And the edit does change the edited link, so the test can fail.
	a := trace(t, New(peers, base, root), script(), map[[2]string]bool{{"b", "c"}: true})
	b := trace(t, New(peers, with(base, "b", "c", edited), root), script(), map[[2]string]bool{{"b", "c"}: true})
	if _, ok := firstDiff(a, b); !ok {
		t.Fatal("editing b→c did not change b→c's outcomes")
	}
}

func firstDiff(a, b []string) (int, bool) {
	for i := range max(len(a), len(b)) {
		if at(a, i) != at(b, i) {
			return i, true
		}
	}
	return 0, false
}

func at(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "<end>"
}

// TestSend_GoldenArrivals pins arrival times for seed 42. It fails when
// the draw order, the jitter table, the substream key or any §5.4 formula
// changes: such a change alters every recorded run and needs a commit that
// says why.
func TestSend_GoldenArrivals(t *testing.T) {
	n := New([]string{"a", "b"}, mesh([]string{"a", "b"}, noisy()), rng.New(42))
	var got []string
	for i := range int64(12) {
		o, _ := n.Send(0, 1, 1000, i*20*ms)
		if o.Arrived {
			got = append(got, fmt.Sprintf("%d", o.At))
		} else {
			got = append(got, o.Reason.String())
		}
	}
	// 1000 B at 125 kB/s is 8 ms on the wire, plus 40 ms ± 5 ms latency;
	// the first send pays the 30 ms dial; send 6 is reordered and lands
	// after send 7; send 11 is lost.
	want := []string{
		"79154556", "70340927", "84321488", "104289368", "119277009", "150773513",
		"229180661", "194295318", "212426651", "226845444", "246361664", "lossy",
	}
	if !slices.Equal(got, want) {
		t.Errorf("arrivals for seed 42:\n got %q\nwant %q", got, want)
	}
}

func TestClone_BehavesIdentically(t *testing.T) {
	peers := []string{"a", "b", "c"}
	steps := script()
	orig := New(peers, mesh(peers, noisy()), rng.New(3))
	trace(t, orig, steps[:230], nil) // mid-run: warm edges, in flight, healed partition
	clone := orig.Clone()
	linksBefore := fmt.Sprint(orig.Links())

	// Run the original first: nothing it does may leak into the clone.
	fromOrig := trace(t, orig, steps[230:], nil)
	if got := fmt.Sprint(clone.Links()); got != linksBefore {
		t.Fatalf("running the original changed the clone's links:\n%s\n%s", got, linksBefore)
	}
	fromClone := trace(t, clone, steps[230:], nil)
	if i, ok := firstDiff(fromClone, fromOrig); ok {
		t.Fatalf("clone diverges at line %d:\n clone %s\n  orig %s", i, at(fromClone, i), at(fromOrig, i))
	}
	if fmt.Sprint(orig.Links()) != fmt.Sprint(clone.Links()) || orig.nextID != clone.nextID {
		t.Error("clone and original end in different states")
	}
}

func reversed(links []Link) []Link {
	out := slices.Clone(links)
	slices.Reverse(out)
	return out
}

// TestNewMesh_BehavesAsTheSpelledOutMesh: a full mesh built from its
// default policy (what a scenario without [[links]] gets) answers every
// send, mutation and view exactly as New given the same mesh link by
// link, in shuffled order, with a lossy, jittery, reordering policy so
// that every draw shows.
func TestNewMesh_BehavesAsTheSpelledOutMesh(t *testing.T) {
	peers := []string{"a", "b", "c", "d", "e"}
	p := drawing()
	links := mesh(peers, p)
	// Reversed: New must not depend on the order links come in.
	slices.Reverse(links)
	spelled, flagged := New(peers, links, rng.New(7)), NewMesh(peers, p, rng.New(7))
	muts := map[int]*Mutation{
		40:  {Kind: LatencySpike, Links: []Edge{{From: "a", To: "b"}}, FactorX100: 300, DurationNs: 500 * ms},
		90:  {Kind: Partition, PeersA: []string{"a", "b"}, PeersB: []string{"c"}},
		140: {Kind: Heal},
		170: {Kind: PeerKill, Peer: "d"},
	}
	var now int64
	for i := range 300 {
		now += 7 * ms
		if m, ok := muts[i]; ok {
			sameMutation(t, fmt.Sprint("mutation ", i), m, now, spelled, flagged)
		}
		from, to := i%len(peers), (i*3+1)%len(peers)
		sameSend(t, i, from, to, now, spelled, flagged)
	}
	if a, b := fmt.Sprint(spelled.Links()), fmt.Sprint(flagged.Links()); a != b {
		t.Fatalf("links differ:\n%s\n%s", b, a)
	}
}

// TestNew_LastLinkWinsAndUnknownPeersAreIgnored pins New's two
// documented tolerances, which the loader makes unreachable but the
// network must still honour: a pair named twice keeps its last policy,
// and a link naming a peer the network does not have is dropped.
func TestNew_LastLinkWinsAndUnknownPeersAreIgnored(t *testing.T) {
	slow, fast := quiet(), quiet()
	slow.LatencyNs, fast.LatencyNs = 100*ms, 1*ms
	links := []Link{
		{Edge: Edge{From: "a", To: "b"}, Policy: slow},
		{Edge: Edge{From: "a", To: "ghost"}, Policy: slow},
		{Edge: Edge{From: "b", To: "a"}, Policy: fast},
		{Edge: Edge{From: "a", To: "b"}, Policy: fast},
	}
	n := New([]string{"a", "b"}, links, rng.New(1))
	if got := len(n.Links()); got != 2 {
		t.Fatalf("%d edges, want 2 (a→b once, b→a; the ghost link dropped)", got)
	}
	o, _ := send(t, n, "a", "b", 0, 0)
	if at := mustArrive(t, o); at != fast.LatencyNs {
		t.Fatalf("a→b arrives at %d, want %d: the later a→b link's latency", at, fast.LatencyNs)
	}
}

// Past denseMaxPeers the pair index is sparse: the mesh still answers as
// the spelled-out mesh does, sends, mutations, views and all.
func TestNewMesh_SparseIndexBehavesAsTheSpelledOutMesh(t *testing.T) {
	peers := peerIDs(denseMaxPeers+6, 5)
	p := drawing()
	spelled, flagged := New(peers, mesh(peers, p), rng.New(7)), NewMesh(peers, p, rng.New(7))
	var now int64
	for i := range 200 {
		now += 3 * ms
		if i == 100 {
			for _, m := range []*Mutation{{Kind: Partition, PeersA: peers[:2], PeersB: peers[5:7]}, {Kind: PeerKill, Peer: peers[3]}} {
				sameMutation(t, m.Kind.String(), m, now, spelled, flagged)
			}
		}
		from, to := i%9, (i*7+1)%len(peers)
		sameSend(t, i, from, to, now, spelled, flagged)
	}
	if spelled.NumLinks() != flagged.NumLinks() {
		t.Fatalf("NumLinks %d, want %d", flagged.NumLinks(), spelled.NumLinks())
	}
	for _, lo := range []int{0, 5000, flagged.NumLinks() - 10} {
		if a, b := fmt.Sprint(spelled.LinkRange(lo, lo+10)), fmt.Sprint(flagged.LinkRange(lo, lo+10)); a != b {
			t.Fatalf("links from %d differ:\n%s\n%s", lo, b, a)
		}
	}
	c1, m1 := spelled.LinkCounts()
	c2, m2 := flagged.LinkCounts()
	if c1 != c2 || m1 != m2 {
		t.Fatalf("LinkCounts %d %d, want %d %d", c2, m2, c1, m1)
	}
}

// A mesh costs what its peers use, not peers squared: 9 999 peers (a
// hundred million edges) take next to nothing until they send. Before,
// NewMesh built a 400 MB index and 1.6 GB of edges up front.
func TestNewMesh_MemoryFollowsUseNotPeersSquared(t *testing.T) {
	peers := peerIDs(9999, 4)
	var n *Network
	grew := allocated(func() {
		n = NewMesh(peers, Policy{LatencyNs: ms, BandwidthBps: 1e9}, rng.New(1))
		for to := 1; to < 1000; to++ {
			n.Send(0, to, 100, 0)
		}
	})
	if grew > 16<<20 {
		t.Errorf("a 9 999-peer mesh with 999 edges in use allocated %d MB", grew>>20)
	}
	if got := n.NumLinks(); got != 9999*9998 {
		t.Errorf("NumLinks %d", got)
	}
	runtime.KeepAlive(n)
}

// A Partition on a mesh makes no edges: at 9 999 peers a 5 000 | 4 999
// cut crosses fifty million, which it used to make one by one (gigabytes,
// for edges with nothing in flight). It still cuts what is in flight on
// the edges in use, an edge made later across it is born partitioned,
// the links view and counts see every edge it crosses, and Heal ends it.
func TestNewMesh_PartitionMakesNoEdges(t *testing.T) {
	peers := peerIDs(9999, 4)
	n := NewMesh(peers, Policy{LatencyNs: ms, BandwidthBps: 1e9}, rng.New(1))
	mustArrive(t, must(n.Send(0, 1, 100, 0)))
	mustArrive(t, must(n.Send(0, 6000, 100, 0)))
	var inv []Invalidated
	grew := allocated(func() {
		inv, _ = n.ApplyMutation(&Mutation{Kind: Partition, PeersA: peers[:5000], PeersB: peers[5000:]}, ms/2)
	})
	if grew > 16<<20 {
		t.Errorf("the cut allocated %d MB", grew>>20)
	}
	if len(n.edges) != 2 || len(inv) != 1 || inv[0].To != 6000 {
		t.Fatalf("%d edges after the cut, invalidated %+v; want 2 edges and 0→6000's delivery", len(n.edges), inv)
	}
	if _, mutated := n.LinkCounts(); mutated != 2*5000*4999 {
		t.Errorf("LinkCounts mutated %d, want %d", mutated, 2*5000*4999)
	}
	row := 1*(len(peers)-1) + 7000 - 1 // p0001→p7000 in the links view, not made yet
	if v := n.LinkRange(row, row+1); len(v) != 1 || v[0].To != "p7000" || fmt.Sprint(v[0].Active) != "[Partitioned]" {
		t.Errorf("links view of p0001→p7000: %+v", v)
	}
	if o, _ := n.Send(1, 7000, 100, ms); o.Reason != Partitioned {
		t.Errorf("a send across the cut on a new edge: %+v", o)
	}
	mustArrive(t, must(n.Send(1, 2, 100, ms)))
	n.ApplyMutation(&Mutation{Kind: Heal}, 2*ms)
	mustArrive(t, must(n.Send(1, 7000, 100, 3*ms)))
	if _, mutated := n.LinkCounts(); mutated != 0 {
		t.Errorf("after Heal, LinkCounts mutated %d", mutated)
	}
}

// TestNewGraph_BehavesAsTheSpelledOutGraph: a graph of regions (what a
// [[links]] file of "*" and "eu-*" entries over many peers resolves to),
// with gaps that are NoRoute, three policies and peers given out of
// id order, answers every send, mutation and view exactly as New given
// the same edges one by one. The partitioned count is the one figure a
// graph works out rather than counts: a Partition across a gap must not
// count the pairs that are not edges.
func TestNewGraph_BehavesAsTheSpelledOutGraph(t *testing.T) {
	peers := []string{"us-b", "eu-c", "eu-a", "us-a", "eu-b", "ap-a"} // id order: ap-a eu-a eu-b eu-c us-a us-b
	noisyP := drawing()
	wan := noisyP
	wan.LatencyNs = 40 * ms
	slow := wan
	slow.BandwidthBps = 5_000
	g := Graph{Policies: []Policy{noisyP, wan, slow}, Rows: []GraphRow{
		{Lo: 0, Hi: 1, Cells: []GraphCell{{Lo: 1, Hi: 4, Policy: 2}}},                                            // ap-a → eu-*
		{Lo: 1, Hi: 4, Cells: []GraphCell{{Lo: 0, Hi: 1, Policy: 2}, {Lo: 1, Hi: 4}, {Lo: 4, Hi: 6, Policy: 1}}}, // eu-* → everyone
		{Lo: 4, Hi: 6, Cells: []GraphCell{{Lo: 1, Hi: 4, Policy: 1}, {Lo: 4, Hi: 6}}},                            // us-* → eu-*, us-*
	}}
	sorted := slices.Sorted(slices.Values(peers))
	var links []Link
	g.Each(func(from, to int, p *Policy) {
		links = append(links, Link{Edge: Edge{From: sorted[from], To: sorted[to]}, Policy: *p})
	})
	if int64(len(links)) != g.NumEdges() || len(links) != 3+3*5+2*4 {
		t.Fatalf("%d edges spelled out, NumEdges %d, want %d", len(links), g.NumEdges(), 3+3*5+2*4)
	}
	spelled, lazy := New(peers, reversed(links), rng.New(7)), NewGraph(peers, g, rng.New(7))
	muts := map[int]*Mutation{
		40:  {Kind: LatencySpike, Links: []Edge{{From: "eu-a", To: "us-b"}, {From: "ap-a", To: "us-a"}}, FactorX100: 300, DurationNs: 500 * ms},
		90:  {Kind: Partition, PeersA: []string{"ap-a", "us-a"}, PeersB: []string{"eu-b", "us-b"}},
		100: {Kind: Partition, PeersA: []string{"eu-a"}, PeersB: []string{"ap-a", "eu-c"}},
		140: {Kind: Heal},
		170: {Kind: PeerKill, Peer: "eu-c"},
	}
	check := func(when string) {
		t.Helper()
		if spelled.NumLinks() != lazy.NumLinks() {
			t.Fatalf("%s: NumLinks %d, want %d", when, lazy.NumLinks(), spelled.NumLinks())
		}
		if a, b := fmt.Sprint(spelled.Links()), fmt.Sprint(lazy.Links()); a != b {
			t.Fatalf("%s: links differ:\n%s\n%s", when, b, a)
		}
		c1, m1 := spelled.LinkCounts()
		c2, m2 := lazy.LinkCounts()
		if c1 != c2 || m1 != m2 {
			t.Fatalf("%s: LinkCounts %d %d, want %d %d", when, c2, m2, c1, m1)
		}
	}
	check("before any send")
	var now int64
	for i := range 400 {
		now += 7 * ms
		if m, ok := muts[i]; ok {
			sameMutation(t, fmt.Sprint("mutation ", i), m, now, spelled, lazy)
			check(m.Kind.String())
		}
		from, to := i%len(peers), (i*5+1)%len(peers)
		sameSend(t, i, from, to, now, spelled, lazy)
		if i%50 == 0 {
			c := lazy.Clone()
			if a, b := fmt.Sprint(lazy.Links()), fmt.Sprint(c.Links()); a != b {
				t.Fatalf("clone's links differ:\n%s\n%s", b, a)
			}
		}
	}
	check("at the end")
}

// sameSend sends 100+i bytes from to to at now on want and got, two
// builds of one network, which must answer it alike (send i).
func sameSend(t *testing.T, i, from, to int, now int64, want, got *Network) {
	t.Helper()
	o1, n1 := want.Send(from, to, int64(100+i), now)
	o2, n2 := got.Send(from, to, int64(100+i), now)
	if o1 != o2 || fmt.Sprint(n1) != fmt.Sprint(n2) {
		t.Fatalf("send %d %d→%d: %+v %v, want %+v %v", i, from, to, o2, n2, o1, n1)
	}
}

// sameMutation applies m at now to want and got, two builds of one
// network, which must answer it alike (what names the mutation).
func sameMutation(t *testing.T, what string, m *Mutation, now int64, want, got *Network) {
	t.Helper()
	inv1, notes1 := want.ApplyMutation(m, now)
	inv2, notes2 := got.ApplyMutation(m, now)
	if fmt.Sprint(inv1, notes1) != fmt.Sprint(inv2, notes2) {
		t.Fatalf("%s: %v %v, want %v %v", what, inv2, notes2, inv1, notes1)
	}
}
