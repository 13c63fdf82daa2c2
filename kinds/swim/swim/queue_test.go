package swim

import (
	"fmt"
	"reflect"
	"testing"
)

// TestQueueTake_AllFitIsTheMerge: take's shortcut for a take where every
// item fits and none is skipped (takeAll) leaves the queue and returns
// the updates exactly as take's pick-and-merge does. A skip that matches
// no item makes take merge, so each take is done both ways on clones of
// one queue, through random pushes (superseding ones included) and takes
// of random budgets, in both modes.
func TestQueueTake_AllFitIsTheMerge(t *testing.T) {
	state := func(q *queue) string {
		s := fmt.Sprintf("bytes=%d oversized=%d next=%d |", q.bytes, q.oversized, q.nextID)
		for _, b := range q.items {
			s += fmt.Sprintf(" %s/%d/%d:t%d,id%d,latest=%v", b.u.Member, b.u.State, b.u.Incarnation, b.transmits, b.id, q.latest[b.u.Member] == b)
		}
		return s + fmt.Sprint(" latest:", len(q.latest))
	}
	nobody := &Update{Member: "nobody", State: Dead, From: "x"}
	for _, mode := range []GossipMode{Bounded, Legacy} {
		r := &testRand{s: 11}
		q := newQueue(mode, 300)
		shortcuts := 0
		for step := range 600 {
			if maybePush(&q, r, step) {
				continue
			}
			budget := int(r.Uint64() % uint64(2*q.bytes+2))
			limit := 1 + int(r.Uint64()%6)
			a, b := q.clone(), q.clone()
			ga, ra := a.take(nil, budget, limit, nil)
			gb, rb := b.take(nil, budget, limit, nobody)
			if q.bytes <= budget {
				shortcuts++
			}
			if !reflect.DeepEqual(ga, gb) || ra != rb || state(&a) != state(&b) {
				t.Fatalf("%s step %d budget %d limit %d:\nshortcut %v %d %s\nmerge    %v %d %s", mode, step, budget, limit, ga, ra, state(&a), gb, rb, state(&b))
			}
			q = a
		}
		if shortcuts < 30 {
			t.Fatalf("%s: only %d takes where all fit", mode, shortcuts)
		}
	}
}

// TestQueueTake_AllocatesNothing is issue 32's sending side: once the
// caller's slice has room, a legacy queue of 700 updates (late in a
// library run) is taken without allocating, both when every update fits
// (takeAll) and when some do not or one is skipped (the pick and merge,
// whose scratch slices the queue keeps).
func TestQueueTake_AllocatesNothing(t *testing.T) {
	q := newQueue(Legacy, MaxDatagramBytes)
	ups := legacyUpdates(700, 20)
	for i := range ups {
		if ups[i].Meta != nil {
			// Small enough that all 700 fit in a datagram.
			ups[i].Meta = ups[i].Meta[:16]
		}
		q.push(ups[i])
	}
	dst := make([]Update, 0, q.len()+1)
	skip := ups[350]
	for _, c := range []struct {
		name   string
		budget int
		skip   *Update
	}{
		{"all fit", MaxDatagramBytes, nil},
		{"budget", q.bytes / 2, nil},
		{"skip", MaxDatagramBytes, &skip},
	} {
		took := 0
		if n := testing.AllocsPerRun(20, func() {
			dst, _ = q.take(dst[:0], c.budget, 0, c.skip)
			took = len(dst)
		}); n != 0 {
			t.Errorf("%s: take allocated %v times, want 0", c.name, n)
		}
		if took == 0 || (c.name == "all fit" && took != 700) {
			t.Errorf("%s: took %d updates", c.name, took)
		}
	}
}

// TestQueueTake_LegacyMirrorIsTheMerge: a legacy queue's takes where all
// fit copy the updates it mirrors side by side, kept up to date through
// pushes (in front, and between new items of other sizes) and stopped by
// takes that reorder. Driven as one queue from push to take, as a node
// drives it, every take returns, and leaves, what take's pick-and-merge
// does on a clone of it (which mirrors nothing).
func TestQueueTake_LegacyMirrorIsTheMerge(t *testing.T) {
	state := func(q *queue) string {
		s := fmt.Sprintf("bytes=%d next=%d |", q.bytes, q.nextID)
		for _, b := range q.items {
			s += fmt.Sprintf(" %s/%d/%d/%d:t%d,id%d", b.u.Member, b.u.State, b.u.Incarnation, len(b.u.Meta), b.transmits, b.id)
		}
		return s
	}
	nobody := &Update{Member: "nobody", State: Dead, From: "x"}
	r := &testRand{s: 5}
	q := newQueue(Legacy, MaxDatagramBytes)
	mirrored := 0
	for step := range 600 {
		if maybePush(&q, r, step) {
			continue
		}
		budget := int(r.Uint64() % uint64(2*q.bytes+2))
		if r.Uint64()%4 != 0 {
			budget = q.bytes + int(r.Uint64()%8)
		}
		ref := q.clone()
		want, wrest := ref.take(nil, budget, 0, nobody)
		if q.mirrored && q.bytes <= budget {
			mirrored++
		}
		got, rest := q.take(nil, budget, 0, nil)
		if !reflect.DeepEqual(got, want) || rest != wrest || state(&q) != state(&ref) {
			t.Fatalf("step %d budget %d:\nmirror %v %d %s\nmerge  %v %d %s", step, budget, got, rest, state(&q), want, wrest, state(&ref))
		}
	}
	if mirrored < 50 {
		t.Fatalf("only %d takes copied a mirror kept through pushes", mirrored)
	}
}

// maybePush pushes a random update (of seven members, alive with
// metadata or suspected) on two steps in three, drawing as the queue
// tests always have, and says whether it did.
func maybePush(q *queue, r *testRand, step int) bool {
	if r.Uint64()%3 == 0 {
		return false
	}
	u := Update{Member: fmt.Sprintf("m%d", r.Uint64()%7), State: Alive, Incarnation: uint64(step), Meta: make([]byte, r.Uint64()%40)}
	if r.Uint64()%2 == 0 {
		u = Update{Member: u.Member, State: Suspect, Incarnation: uint64(step), From: "m0"}
	}
	q.push(u)
	return true
}
