package network

import (
	"math"
	"testing"

	"github.com/detsim/detsim/rng"
)

func TestSend_NoRouteVsPartitioned_5_4_steps1and2(t *testing.T) {
	// a→b and b→a exist, a→c exists, c→a does not.
	links := []Link{
		{Edge: Edge{From: "a", To: "b"}, Policy: quiet()},
		{Edge: Edge{From: "a", To: "c"}, Policy: quiet()},
		{Edge: Edge{From: "b", To: "a"}, Policy: quiet()},
	}
	n := New([]string{"a", "b", "c"}, links, rng.New(1))
	n.ApplyMutation(&Mutation{Kind: Partition, PeersA: []string{"a"}, PeersB: []string{"b", "c"}}, 0)

	for _, tc := range []struct {
		name     string
		from, to int
		want     DropReason
	}{
		{"undeclared edge is NoRoute even when a partition names it", 2, 0, NoRoute},
		{"undeclared self edge", 1, 1, NoRoute},
		{"declared edge cut by the partition", 0, 1, Partitioned},
		{"partition cuts both directions", 1, 0, Partitioned},
		{"partition cuts every pair across the groups", 0, 2, Partitioned},
		{"out-of-range index is NoRoute, not a panic", 3, 0, NoRoute},
		{"negative index is NoRoute, not a panic", -1, 0, NoRoute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, _ := n.Send(tc.from, tc.to, 100, s)
			if o.Arrived || o.Reason != tc.want {
				t.Fatalf("Send(%d→%d) = %+v, want Drop(%v)", tc.from, tc.to, o, tc.want)
			}
		})
	}
	for i := range n.edges {
		e := &n.edges[i]
		if p := n.flowOf(e).position(); p != 0 {
			t.Errorf("edge %d→%d made %d draws; NoRoute and Partitioned draw nothing", e.from, e.to, p)
		}
	}
	n.ApplyMutation(&Mutation{Kind: Heal}, 2*s)
	if o, _ := n.Send(0, 1, 100, 2*s); !o.Arrived {
		t.Errorf("after Heal a→b = %+v, want arrival", o)
	}
	if o, _ := n.Send(2, 0, 100, 2*s); o.Reason != NoRoute {
		t.Errorf("after Heal c→a = %+v, want NoRoute: no declared edge never heals", o)
	}
}

func TestSend_LossDraw_5_4_step3(t *testing.T) {
	for _, tc := range []struct {
		name       string
		ppm        int64
		burstPPM   int64 // LossBurst override during [0, 1s), -1 for none
		minLost    int
		maxLost    int
		sendsAfter bool // also send after the burst, under the edge's own ppm
	}{
		{name: "ppm 0 never loses", ppm: 0, burstPPM: -1, minLost: 0, maxLost: 0},
		{name: "ppm 1_000_000 always loses", ppm: 1_000_000, burstPPM: -1, minLost: 1000, maxLost: 1000},
		{name: "ppm 500_000 loses about half", ppm: 500_000, burstPPM: -1, minLost: 440, maxLost: 560},
		{name: "LossBurst overrides a lossless edge", ppm: 0, burstPPM: 1_000_000, minLost: 1000, maxLost: 1000},
		{name: "LossBurst overrides a lossy edge", ppm: 1_000_000, burstPPM: 0, minLost: 0, maxLost: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := quiet()
			p.LossProbPPM = tc.ppm
			n := newMesh([]string{"a", "b"}, p)
			if tc.burstPPM >= 0 {
				n.ApplyMutation(&Mutation{Kind: LossBurst, Links: []Edge{{From: "a", To: "b"}}, ProbPPM: tc.burstPPM, DurationNs: s}, 0)
			}
			lost := 0
			for i := range int64(1000) {
				before := position(t, n, "a", "b")
				o, _ := send(t, n, "a", "b", 10, i*ms/2)
				drew := position(t, n, "a", "b") - before
				if !o.Arrived {
					lost++
					if o.Reason != Lossy || drew != 1 {
						t.Fatalf("lost send: reason %v, %d draws; want Lossy and exactly the loss draw", o.Reason, drew)
					}
				} else if drew != 4 {
					t.Fatalf("arriving send made %d draws, want 4 (loss, jitter, reorder, extra)", drew)
				}
			}
			if lost < tc.minLost || lost > tc.maxLost {
				t.Errorf("lost %d of 1000, want [%d, %d]", lost, tc.minLost, tc.maxLost)
			}
			if tc.burstPPM >= 0 { // at 1s the burst has expired: [at, at+duration)
				o, _ := send(t, n, "a", "b", 10, s)
				if got := !o.Arrived; got != (tc.ppm == 1_000_000) {
					t.Errorf("after the burst lost=%v, want the edge's own ppm %d", got, tc.ppm)
				}
			}
		})
	}
}

func TestSend_BandwidthSerialisesBackToBack_5_4_step4(t *testing.T) {
	// 1000 B/s: 100 bytes occupy the wire for 100 ms; latency 500 ms. The
	// DESIGN §4 amendment: the next message starts when the previous one
	// leaves the wire, not when it arrives.
	p := quiet()
	p.BandwidthBps = 1000
	p.LatencyNs = 500 * ms
	n := newMesh([]string{"a", "b"}, p)
	for _, tc := range []struct {
		name   string
		sentAt int64
		bytes  int64
		want   int64
	}{
		{"idle link starts at once", 0, 100, 600 * ms},
		{"second starts at the first's serialisation end, not its arrival", 0, 100, 700 * ms},
		{"third queues behind the second", 50 * ms, 50, 750 * ms},
		{"a send after the wire drained starts at sent_at", 400 * ms, 100, 1000 * ms},
		{"an empty message takes no wire time", 2 * s, 0, 2*s + 500*ms},
	} {
		o, _ := send(t, n, "a", "b", tc.bytes, tc.sentAt)
		if got := mustArrive(t, o); got != tc.want {
			t.Errorf("%s: arrival %d, want %d", tc.name, got, tc.want)
		}
	}
	// Another edge has its own wire.
	if o, _ := send(t, n, "b", "a", 100, 0); mustArrive(t, o) != 600*ms {
		t.Errorf("b→a arrival %d, want 600ms: edges do not share bandwidth", o.At)
	}
}

func TestSend_BandwidthSaturatesInsteadOfWrapping_5_4_step4(t *testing.T) {
	p := quiet()
	p.BandwidthBps = 1
	for _, tc := range []struct {
		name          string
		sentAt, bytes int64
		want          int64
	}{
		{"1 GB at 1 B/s is 10^18 ns on the wire", 0, 1_000_000_000, 1_000_000_000_000_000_000 + 10*ms},
		{"10 GB at 1 B/s saturates", 0, 10_000_000_000, math.MaxInt64},
		{"max-size message saturates", 0, math.MaxInt64, math.MaxInt64},
		{"late send near the end of time saturates", math.MaxInt64 - 5, 1, math.MaxInt64},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := newMesh([]string{"a", "b"}, p)
			o, _ := send(t, n, "a", "b", tc.bytes, tc.sentAt)
			if got := mustArrive(t, o); got != tc.want {
				t.Errorf("arrival %d, want %d", got, tc.want)
			}
			// The wire stays saturated-busy rather than wrapping back.
			if o2, _ := send(t, n, "a", "b", 1, tc.sentAt); mustArrive(t, o2) < o.At {
				t.Errorf("next arrival %d is before %d: the busy wire wrapped", o2.At, o.At)
			}
		})
	}
}

func TestSend_JitterDistribution_5_4_step5(t *testing.T) {
	p := quiet()
	p.LatencyNs = 100 * ms
	p.JitterStddevNs = 1 * ms
	n := newMesh([]string{"a", "b"}, p)
	const sends = 20000
	var sum, sumSq int64
	for i := range int64(sends) {
		sentAt := i * s // far apart: the wire is always free
		o, _ := send(t, n, "a", "b", 0, sentAt)
		j := mustArrive(t, o) - sentAt - p.LatencyNs
		sum += j
		sumSq += j * j
	}
	mean := sum / sends
	variance := sumSq/sends - mean*mean
	// Standard error of the mean is 1ms/√20000 ≈ 7µs.
	if mean < -50_000 || mean > 50_000 {
		t.Errorf("mean jitter %dns, want ≈ 0", mean)
	}
	if sd2 := p.JitterStddevNs * p.JitterStddevNs; variance < sd2*85/100 || variance > sd2*115/100 {
		t.Errorf("jitter variance %d, want ≈ %d", variance, sd2)
	}
}

func TestSend_NegativeJitterClampedAtSerialisationEnd_5_4_step5(t *testing.T) {
	// Latency 1 ms with 10 ms stddev: about half the draws would arrive
	// before the message has left the wire.
	p := quiet()
	p.LatencyNs = 1 * ms
	p.JitterStddevNs = 10 * ms
	p.BandwidthBps = 1000 // 5 bytes = 5 ms on the wire
	n := newMesh([]string{"a", "b"}, p)
	clamped := 0
	for i := range int64(2000) {
		sentAt := i * s
		serEnd := sentAt + 5*ms
		o, _ := send(t, n, "a", "b", 5, sentAt)
		at := mustArrive(t, o)
		if at < serEnd {
			t.Fatalf("send %d arrives at %d, before its serialisation end %d", i, at, serEnd)
		}
		if at == serEnd {
			clamped++
		}
	}
	if clamped < 800 || clamped > 1200 {
		t.Errorf("%d of 2000 arrivals clamped to serialisation end, want about half", clamped)
	}
}

func TestSend_LatencySpikeScalesLatencyAndJitterWhileActive_5_4_step6(t *testing.T) {
	p := quiet()
	p.LatencyNs = 100 * ms
	p.JitterStddevNs = 10 * ms
	p.BandwidthBps = 1000 // 10 bytes = 10 ms on the wire, never scaled
	plain := newMesh([]string{"a", "b"}, p)
	spiked := newMesh([]string{"a", "b"}, p)
	inv, _ := spiked.ApplyMutation(&Mutation{Kind: LatencySpike, Links: []Edge{{From: "a", To: "b"}}, FactorX100: 450, DurationNs: 10 * s}, 5*s)
	if len(inv) != 0 {
		t.Fatalf("LatencySpike invalidated %v; it never touches in-flight deliveries", inv)
	}
	for _, sentAt := range []int64{0, 4 * s, 5 * s, 9 * s, 14 * s, 15 * s, 20 * s} {
		active := sentAt >= 5*s && sentAt < 15*s
		op, _ := send(t, plain, "a", "b", 10, sentAt)
		os, _ := send(t, spiked, "a", "b", 10, sentAt)
		serEnd := sentAt + 10*ms
		wantProp := mustArrive(t, op) - serEnd
		if active {
			wantProp = wantProp * 450 / 100
		}
		if got := mustArrive(t, os) - serEnd; got != wantProp {
			t.Errorf("sent at %d (spike active=%v): latency+jitter %d, want %d", sentAt, active, got, wantProp)
		}
	}
	// The spike only names a→b.
	ob, _ := send(t, spiked, "b", "a", 10, 6*s)
	oc, _ := send(t, plain, "b", "a", 10, 6*s)
	if ob.At != oc.At {
		t.Errorf("b→a under an a→b spike arrives %d, want unspiked %d", ob.At, oc.At)
	}
}

func TestSend_RelayBufferFloor_5_4_step7(t *testing.T) {
	p := quiet()
	p.BandwidthBps = 1000
	n := newMesh([]string{"a", "b"}, p)
	n.ApplyMutation(&Mutation{Kind: RelayBuffer, Links: []Edge{{From: "a", To: "b"}}, FloorNs: 500 * ms, DurationNs: 10 * s}, 0)
	for _, tc := range []struct {
		name          string
		sentAt, bytes int64
		want          int64
	}{
		{"fast delivery is held to the floor", 0, 1, 500 * ms},
		{"slow delivery is above the floor already", 1 * s, 900, 1*s + 910*ms},
		{"after the buffer expires, no floor", 10 * s, 1, 10*s + 11*ms},
	} {
		o, _ := send(t, n, "a", "b", tc.bytes, tc.sentAt)
		if got := mustArrive(t, o); got != tc.want {
			t.Errorf("%s: arrival %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestSend_ColdLinkDialsThenWarms_5_4_steps8and10(t *testing.T) {
	p := quiet()
	p.ColdDialPenaltyNs = 100 * ms
	p.CacheWarmAfterNs = 1 * s
	p.CacheInvalidateAfterIdleNs = 5 * s
	n := newMesh([]string{"a", "b"}, p)
	a, b := idx(t, n, "a"), idx(t, n, "b")
	dialStart := Note{From: a, To: b, Kind: NoteDialStart}
	change := func(tr Transition, st CacheState) Note {
		return Note{From: a, To: b, Kind: NoteCacheChange, Transition: tr, State: st}
	}
	for _, tc := range []struct {
		name      string
		sentAt    int64
		want      int64
		dialed    bool
		notes     []Note
		wantState CacheState
	}{
		{"first send on a cold link pays the dial", 0, 110 * ms, true,
			[]Note{dialStart, change(Dialed, Warming)}, Warming},
		{"warming link: no penalty, no note", 500 * ms, 510 * ms, false, nil, Warming},
		{"cache_warm_after_ns since the dial: warm", 1 * s, 1*s + 10*ms, false,
			[]Note{change(Warmed, Warm)}, Warm},
		{"warm", 2 * s, 2*s + 10*ms, false, nil, Warm},
		{"idle exactly the limit keeps the cache", 7 * s, 7*s + 10*ms, false, nil, Warm},
		{"idle past the limit: cold, then dial again", 12*s + 1, 12*s + 1 + 110*ms, true,
			[]Note{change(IdledOut, Cold), dialStart, change(Dialed, Warming)}, Warming},
	} {
		o, notes := send(t, n, "a", "b", 0, tc.sentAt)
		if got := mustArrive(t, o); got != tc.want || o.Dialed != tc.dialed {
			t.Errorf("%s: arrival %d dialed %v, want %d %v", tc.name, got, o.Dialed, tc.want, tc.dialed)
		}
		if !equalNotes(notes, tc.notes) {
			t.Errorf("%s: notes %+v, want %+v", tc.name, notes, tc.notes)
		}
		if st := n.flowOf(n.edge(a, b)).state; st != tc.wantState {
			t.Errorf("%s: state %v, want %v", tc.name, st, tc.wantState)
		}
	}
}

func TestSend_WarmAfterZeroWarmsOnTheDialingSend_5_4_step10(t *testing.T) {
	p := quiet() // CacheWarmAfterNs 0
	n := newMesh([]string{"a", "b"}, p)
	_, notes := n.Send(0, 1, 0, 0)
	want := []Note{
		{From: 0, To: 1, Kind: NoteDialStart},
		{From: 0, To: 1, Kind: NoteCacheChange, Transition: Dialed, State: Warming},
		{From: 0, To: 1, Kind: NoteCacheChange, Transition: Warmed, State: Warm},
	}
	if !equalNotes(notes, want) {
		t.Errorf("notes %+v, want %+v", notes, want)
	}
}

func TestSend_IdleLimitZeroNeverIdlesOut_5_3(t *testing.T) {
	p := quiet()
	p.ColdDialPenaltyNs = 100 * ms
	n := newMesh([]string{"a", "b"}, p)
	n.Send(0, 1, 0, 0)
	o, notes := n.Send(0, 1, 0, 1_000_000*s)
	if o.Dialed || len(notes) != 0 {
		t.Errorf("after a long idle with cache_invalidate_after_idle_ns = 0: dialed %v notes %+v, want a warm send", o.Dialed, notes)
	}
}

func TestSend_IdleRuleRunsBeforeDrops_5_4(t *testing.T) {
	// The idle rule runs at the start of every send, so a lost send on an
	// idle link still reports the link went cold; a lost send does not
	// refresh last_send_ns.
	p := quiet()
	p.CacheInvalidateAfterIdleNs = 1 * s
	n := newMesh([]string{"a", "b"}, p)
	n.Send(0, 1, 0, 0)
	n.ApplyMutation(&Mutation{Kind: LossBurst, Links: []Edge{{From: "a", To: "b"}}, ProbPPM: 1_000_000, DurationNs: 10 * s}, 500*ms)
	o, notes := n.Send(0, 1, 0, 900*ms)
	if o.Reason != Lossy || len(notes) != 0 {
		t.Fatalf("lost send within the idle limit: %+v %+v", o, notes)
	}
	o, notes = n.Send(0, 1, 0, 1*s+1)
	want := []Note{{From: 0, To: 1, Kind: NoteCacheChange, Transition: IdledOut, State: Cold}}
	if o.Reason != Lossy || !equalNotes(notes, want) {
		t.Errorf("lost send after idling: %+v %+v, want Lossy with %+v", o, notes, want)
	}
}

func TestSend_ReorderSwapsMessagesOnOneEdge_5_4_step9(t *testing.T) {
	// Jitter 0, so an arrival later than sent_at + wire + latency can only
	// be the reorder delay: one to two (latency + jitter_stddev) units.
	p := quiet()
	p.ReorderProbPPM = 300_000
	n := newMesh([]string{"a", "b"}, p)
	const gap = 1 * ms // far below one latency unit
	var arrivals []int64
	var reordered []bool
	for i := range int64(200) {
		sentAt := i * gap
		o, _ := send(t, n, "a", "b", 0, sentAt)
		extra := mustArrive(t, o) - sentAt - p.LatencyNs
		if extra != 0 && (extra < p.LatencyNs || extra > 2*p.LatencyNs) {
			t.Fatalf("send %d: reorder delay %d outside [latency, 2×latency]", i, extra)
		}
		arrivals = append(arrivals, o.At)
		reordered = append(reordered, extra != 0)
	}
	swaps := 0
	for i := 0; i+1 < len(arrivals); i++ {
		if reordered[i] && !reordered[i+1] {
			if arrivals[i+1] >= arrivals[i] {
				t.Errorf("send %d was reordered but send %d still lands after it", i, i+1)
			}
			swaps++
		}
	}
	if swaps < 20 {
		t.Errorf("%d swaps in 200 sends at 30%% reorder, want plenty", swaps)
	}

	// Without reorder the same edge is FIFO.
	fifo := newMesh([]string{"a", "b"}, quiet())
	last := int64(-1)
	for i := range int64(200) {
		o, _ := send(t, fifo, "a", "b", 0, i*gap)
		if o.At <= last {
			t.Fatalf("reorder_prob_ppm 0: send %d overtook the one before", i)
		}
		last = o.At
	}
}

func TestSend_DeliveryIDsAreMonotonicPerNetwork_5_4_step11(t *testing.T) {
	p := quiet()
	n := newMesh([]string{"a", "b", "c"}, p)
	n.ApplyMutation(&Mutation{Kind: Partition, PeersA: []string{"a"}, PeersB: []string{"c"}}, 0)
	var ids []uint64
	for _, pair := range [][2]string{{"a", "b"}, {"b", "c"}, {"a", "c"}, {"c", "b"}, {"a", "b"}} {
		if o, _ := send(t, n, pair[0], pair[1], 1, 0); o.Arrived {
			ids = append(ids, o.ID)
		}
	}
	want := []uint64{1, 2, 3, 4}
	if len(ids) != len(want) {
		t.Fatalf("ids %v, want %v", ids, want)
	}
	for i := range want {
		if ids[i] != want[i] {
			t.Fatalf("ids %v, want %v (dropped sends take no id)", ids, want)
		}
	}
}

func equalNotes(a, b []Note) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
