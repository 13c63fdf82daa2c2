package engine

import (
	"math/rand/v2"
	"sort"
	"testing"
)

// TestQueue_PopsAsOneSortedList is a model check of the queue's two heaps
// against an independent reference, a plain list sorted by (at, seq)
// before every pop: random interleavings of ticks, timers, deliveries
// and send failures pushed, popped, and ticks stepped in place at the
// head as Engine.snooze does, must pop exactly the entries the list
// gives, in its order. Times are drawn on a coarse grid, so entries of
// the two heaps often fall on the same instant and the merge at the head
// is decided by the sequence number alone, both ways; the test counts
// those ties and requires many of each, so a merge that compared only
// the times (either way round) fails it.
func TestQueue_PopsAsOneSortedList(t *testing.T) {
	const period = 100
	kinds := [...]entryKind{kindTick, kindTimer, kindDeliver, kindSendFailed}
	var tickFirst, restFirst int // merges decided by seq alone
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 32))
		var q queue
		var ref []entry
		var seq uint64
		var now int64
		pushed := func(en entry) {
			en.seq = seq
			seq++
			q.push(en)
			ref = append(ref, en)
		}
		// tie counts which heap's top the head is when the two tops
		// share an instant.
		tie := func() {
			if len(q.ticks.items) == 0 || len(q.rest.items) == 0 || q.ticks.items[0].at != q.rest.items[0].at {
				return
			}
			if q.ticks.items[0].seq < q.rest.items[0].seq {
				tickFirst++
			} else {
				restFirst++
			}
		}
		for op := range 5_000 {
			switch n := r.IntN(10); {
			case n < 4 || len(ref) == 0: // push, due on the grid from now on
				k := kinds[r.IntN(len(kinds))]
				pushed(entry{at: now + int64(r.IntN(4))*period/2, kind: k, host: int32(r.IntN(5)), aux: uint64(op)})
			case n < 7: // step a tick at the head in place (Engine.snooze)
				tie()
				if q.head() != &q.ticks {
					continue
				}
				top := &q.ticks.items[0]
				sortRef(ref)
				if ref[0] != *top {
					t.Fatalf("seed %d op %d: the ticks' top is %+v, the list's first %+v", seed, op, *top, ref[0])
				}
				now = top.at
				ref[0].at, ref[0].seq = top.at+period, seq
				q.ticks.retime(top.at+period, seq)
				seq++
			default: // pop
				tie()
				got := q.pop()
				sortRef(ref)
				if got != ref[0] {
					t.Fatalf("seed %d op %d: popped %+v, the list's first is %+v", seed, op, got, ref[0])
				}
				ref = ref[1:]
				now = got.at
			}
			if q.len() != len(ref) {
				t.Fatalf("seed %d op %d: %d queued, %d in the list", seed, op, q.len(), len(ref))
			}
		}
		for len(ref) > 0 { // drain
			got := q.pop()
			sortRef(ref)
			if got != ref[0] {
				t.Fatalf("seed %d, draining: popped %+v, the list's first is %+v", seed, got, ref[0])
			}
			ref = ref[1:]
		}
		if q.head() != nil {
			t.Fatalf("seed %d: drained, and the queue still has a head", seed)
		}
	}
	if tickFirst < 1000 || restFirst < 1000 {
		t.Fatalf("only %d ties at the head won by a tick and %d by another entry: too few to tell a merge by time alone", tickFirst, restFirst)
	}
}

// sortRef is the reference's order: (at, seq), written out here rather
// than through entry.less.
func sortRef(ref []entry) {
	sort.Slice(ref, func(i, j int) bool {
		if ref[i].at != ref[j].at {
			return ref[i].at < ref[j].at
		}
		return ref[i].seq < ref[j].seq
	})
}
