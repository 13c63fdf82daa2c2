package engine

import (
	"cmp"
	"slices"
	"testing"

	"github.com/detsim/detsim/network"
)

// queueBySort is Queue as it was: sort a copy of the whole queue, then
// keep the live entries.
func queueBySort(e *Engine, k int) []QueueEntry {
	items := append(append([]entry(nil), e.st.q.rest.items...), e.st.q.ticks.items...)
	slices.SortFunc(items, func(a, b entry) int {
		if c := cmp.Compare(a.at, b.at); c != 0 {
			return c
		}
		return cmp.Compare(a.seq, b.seq)
	})
	var out []QueueEntry
	for i := range items {
		if len(out) == k {
			break
		}
		en := &items[i]
		if e.hidden(en) {
			continue
		}
		out = append(out, e.view(en)) // the walk's view of an entry; the order is what is tested
	}
	return out
}

// Queue's best-first walk of the heap gives exactly what sorting the
// whole queue gives, kills and cut deliveries included.
func TestQueue_EqualsSortingTheWholeQueue(t *testing.T) {
	sc := meshScenario("echo", 6, lossyPolicy, 3_000_000_000)
	sc.Mutations = []network.Mutation{
		{Kind: network.Partition, At: 500_000_000, PeersA: []string{"p00", "p01"}, PeersB: []string{"p02", "p03"}},
		{Kind: network.PeerKill, At: 700_000_000, Peer: "p04"},
		{Kind: network.Heal, At: 1_000_000_000},
	}
	e := mustEngine(t, sc, Options{})
	for !e.Done() {
		e.Step()
		if e.Index()%7 == 0 {
			for _, k := range []int{0, 1, 5, 64, 1 << 20} {
				if got, want := e.Queue(k), queueBySort(e, k); !slices.Equal(got, want) && len(got)+len(want) > 0 {
					t.Fatalf("step %d, Queue(%d):\n got %v\nwant %v", e.Index(), k, got, want)
				}
			}
		}
	}
}

// Next is the entry the next step dispatches, at every step of a run
// with kills and cut deliveries, and nothing once it has ended.
func TestNext_IsWhatTheNextStepDispatches(t *testing.T) {
	sc := meshScenario("echo", 5, lossyPolicy, 2_000_000_000)
	sc.Mutations = []network.Mutation{
		{Kind: network.Partition, At: 300_000_000, PeersA: []string{"p00"}, PeersB: []string{"p01", "p02"}},
		{Kind: network.PeerKill, At: 500_000_000, Peer: "p03"},
		{Kind: network.Heal, At: 900_000_000},
	}
	e := mustEngine(t, sc, Options{})
	for {
		next, ok := e.Next()
		if ok == e.Done() {
			t.Fatalf("step %d: Next says %v, the run done %v", e.Index(), ok, e.Done())
		}
		if q := e.Queue(1); ok && (len(q) != 1 || next != q[0]) {
			t.Fatalf("step %d: Next = %+v, %v; Queue(1) = %v", e.Index(), next, ok, q)
		}
		if !ok {
			break
		}
		info := e.Step()
		if info.At != next.At || info.Kind != next.Kind || info.Host != next.Host || info.Kind == "Terminate" && !info.Done {
			t.Fatalf("step %d dispatched %+v, Next said %+v", info.Index, info, next)
		}
	}
	if !e.Done() {
		t.Fatal("Next reported nothing before the run ended")
	}
}
