package engine

import "math/bits"

// entryKind is what a queue entry asks the engine to do (spec §4.1), plus
// sendFailed, which DESIGN §4 queues at `now` for the sender instead of
// calling the host re-entrantly.
type entryKind uint8

const (
	kindTick entryKind = iota + 1
	kindDeliver
	kindTimer
	kindSendFailed
	kindMutation
	kindSnapshot
	kindTerminate
	// kindProcess: the host finishes handling the delivery at the head of
	// its inbox (recv_cost_ns); aux is the host's wake generation.
	kindProcess
	// kindResume: a PeerPause of the host ends.
	kindResume
)

var entryKindNames = [...]string{
	kindTick:       "Tick",
	kindDeliver:    "Deliver",
	kindTimer:      "Timer",
	kindSendFailed: "SendFailed",
	kindMutation:   "Mutation",
	kindSnapshot:   "Snapshot",
	kindTerminate:  "Terminate",
	kindProcess:    "Process",
	kindResume:     "Resume",
}

func (k entryKind) String() string {
	if int(k) < len(entryKindNames) && entryKindNames[k] != "" {
		return entryKindNames[k]
	}
	return "?"
}

// entry is one scheduled event. It is a plain value without pointers: the
// queue is one slice a checkpoint copies in a single allocation, the
// garbage collector never scans it, and sifting it needs no write
// barriers. A delivery's bytes live in state.wires, named by slot.
type entry struct {
	at     int64
	seq    uint64
	aux    uint64 // Deliver: delivery id; Timer: token; Mutation/Snapshot: index; SendFailed: drop reason; Process: wake generation
	wire   int32  // Deliver: slot of its wire bytes in state.wires
	host   int32  // the host it is for (-1: none)
	peer   int32  // Deliver: the sender; SendFailed: the refused destination
	gen    uint32 // the host's generation when queued (Tick, Timer, SendFailed, Process, Resume); a kill or restart makes it stale
	kind   entryKind
	dialed bool // Deliver: this send paid the cold-dial penalty (DialOutcome at pop)
	// reliable: Deliver: it came over a reliable stream (hosts.Delivery.Reliable).
	reliable bool
}

// less orders by (virtual time, sequence number), the only tie-break the
// engine permits (spec §4.1).
func (a *entry) less(b *entry) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

// before is a.less(b) as 1 or 0, computed without a branch: the
// borrow of a 128-bit subtraction of the keys (at with its sign bit
// flipped, so signed order is unsigned order, then seq).
func before(a, b *entry) uint64 {
	const sign = 1 << 63
	_, borrow := bits.Sub64(a.seq, b.seq, 0)
	_, borrow = bits.Sub64(uint64(a.at)^sign, uint64(b.at)^sign, borrow)
	return borrow
}

// queue holds the scheduled entries in two heaps, the hosts' ticks in
// one and everything else in the other, and pops the lesser of their two
// heads by (at, seq). Since (at, seq) is a total order and each entry's
// sequence number is given once, at its push, whichever heap it sits in,
// the queue pops exactly the sequence one heap of all the entries would
// (TestQueue_PopsAsOneSortedList). The ticks have a heap of their own
// because a dozing host's tick is stepped in place at the head of the
// queue (Engine.snooze) nine times in ten in a SWIM sweep: its sift then
// descends through the other ticks, one a host, rather than through
// every queued delivery and timer besides (docs/BENCHMARKS.md, "Ticks in
// a heap of their own").
type queue struct {
	rest  heap4 // every entry but ticks
	ticks heap4 // kindTick entries only
}

func (q *queue) len() int { return len(q.rest.items) + len(q.ticks.items) }

// of is the heap an entry of kind k belongs in.
func (q *queue) of(k entryKind) *heap4 {
	if k == kindTick {
		return &q.ticks
	}
	return &q.rest
}

func (q *queue) push(e entry) { q.of(e.kind).push(e) }

// head is the heap whose top is the queue's next entry, nil when the
// queue is empty. The two tops never compare equal: sequence numbers
// are unique.
func (q *queue) head() *heap4 {
	switch {
	case len(q.ticks.items) == 0:
		if len(q.rest.items) == 0 {
			return nil
		}
		return &q.rest
	case len(q.rest.items) == 0 || q.ticks.items[0].less(&q.rest.items[0]):
		return &q.ticks
	}
	return &q.rest
}

func (q *queue) pop() entry { return q.head().pop() }

func (q *queue) clone() queue { return queue{rest: q.rest.clone(), ticks: q.ticks.clone()} }

// heap4 is a 4-ary min-heap of entries by (at, seq). Hand-written rather
// than container/heap, so entries are never boxed in an interface; four
// children per node halve the depth of a binary heap, and since (at, seq)
// is a total order, any correct heap pops the same sequence.
type heap4 struct{ items []entry }

func (h *heap4) push(e entry) {
	*h.add() = e
	h.up()
}

// add appends a zero entry for the caller to fill in place before up
// sifts it into order. The hot paths fill it field by field: an entry
// built on the stack and copied in stalls the copy's wide loads on the
// narrow stores that just built it (docs/BENCHMARKS.md, "The engine near
// its floor").
func (h *heap4) add() *entry {
	h.items = append(h.items, entry{})
	return &h.items[len(h.items)-1]
}

// up restores the heap order after add.
func (h *heap4) up() {
	items := h.items
	i := len(items) - 1
	for i > 0 {
		p := (i - 1) / 4
		if !items[i].less(&items[p]) {
			break
		}
		items[i], items[p] = items[p], items[i]
		i = p
	}
}

func (h *heap4) pop() entry {
	items := h.items
	top := items[0]
	last := len(items) - 1
	h.items = items[:last]
	if last > 0 {
		x := &items[last] // past the new end, so no move overwrites it
		items[h.sift(x.at, x.seq)] = *x
	}
	return top
}

// retime gives the top entry the key (at, seq), no less than its old
// one, and sinks it to its place: a tick stepped in place
// (Engine.snooze). The key is written after the entry has moved, not
// before: a move's wide loads right after the narrow stores of its key
// stall on them (docs/BENCHMARKS.md, "Ticks in a heap of their own").
func (h *heap4) retime(at int64, seq uint64) {
	x := h.items[0]
	i := h.sift(at, seq)
	h.items[i] = x
	h.items[i].at, h.items[i].seq = at, seq
}

// sift moves a hole at the top down to where an entry of key (at, seq)
// belongs, each lesser child moving up into it, and returns where the
// hole ends for the caller to fill: one move a level rather than a
// swap's two.
func (h *heap4) sift(at int64, seq uint64) int {
	items := h.items
	n := len(items)
	i := 0
	for {
		c := 4*i + 1
		if c >= n {
			return i
		}
		m := c
		if c+3 < n {
			// Four children: a tournament of three comparisons without
			// a branch, where the loop below mispredicts in a queue of
			// random arrival times (docs/BENCHMARKS.md, "The engine near
			// its floor, again").
			k := items[c : c+4 : c+4]
			m01 := c + int(before(&k[1], &k[0]))
			m23 := c + 2 + int(before(&k[3], &k[2]))
			m = m01 + int(before(&items[m23], &items[m01]))*(m23-m01)
		} else {
			for k := c + 1; k < n; k++ {
				if items[k].less(&items[m]) {
					m = k
				}
			}
		}
		if y := &items[m]; y.at > at || y.at == at && y.seq > seq {
			return i
		}
		items[i] = items[m]
		i = m
	}
}

func (h *heap4) clone() heap4 {
	return heap4{items: append(make([]entry, 0, cap(h.items)), h.items...)}
}

// wires holds the wire bytes of queued deliveries by slot, reusing the
// slots of popped ones, and beside them each message's id (the sender's
// number for it, hosts.SendID; 0 none): it travels with the message but is
// not part of its bytes, so the network charges exactly what it did before.
// A slot is one struct rather than a slice per field, so a send and a
// delivery touch one place instead of three. In a headless run a slot
// may hold the message handed over as a value instead of its bytes
// (hosts.HandingCodec), with their length.
type wires struct {
	slots []wire
	free  []int32
}

type wire struct {
	bytes []byte
	// msg, when not nil, is the message as a value (hosts.HandingCodec)
	// and bytes is nil; kind is the sender's, whose codec made it.
	msg  any
	kind *kindRT
	id   uint64
	size int32 // len of the bytes, written or not
	slab int32 // the slab the bytes live in (-1: their own array or none)
}

// put fills a free slot with w and returns it.
func (w *wires) put(s wire) int32 {
	if n := len(w.free); n > 0 {
		i := w.free[n-1]
		w.free = w.free[:n-1]
		w.slots[i] = s
		return i
	}
	w.slots = append(w.slots, s)
	return int32(len(w.slots) - 1)
}

// take returns slot i's message and frees the slot.
func (w *wires) take(i int32) wire {
	s := &w.slots[i]
	out := *s
	*s = wire{}
	w.free = append(w.free, i)
	return out
}

// size is the length of slot i's message on the wire.
func (w *wires) size(i int32) int64 { return int64(w.slots[i].size) }

// id is the message id of slot i (read it before take frees the slot).
func (w *wires) id(i int32) uint64 { return w.slots[i].id }

func (w *wires) clone() wires {
	return wires{slots: append([]wire(nil), w.slots...), free: append([]int32(nil), w.free...)}
}
