package render

// flights are the messages sent and not yet settled (received, dropped),
// each in two first-in first-out queues: by pairKey, which a receive
// pops from the front, and by edge, which a drop_on_delivery pops from
// the front and a drop_on_send from the back. A message leaves both the
// moment it settles, and a queue left empty leaves its map, so what is
// held is what is in flight, not what the run sent.
type flights struct {
	fl     []flight
	free   []int32
	byKey  map[pairKey]queue
	byEdge map[edge]queue
	live   int
	peak   int // most messages in flight at once
}

// flight is one message in flight. val is the caller's: the message's
// index in what the caller keeps.
type flight struct {
	sendT      int64
	val        int
	from, to   int32
	key        pairKey
	prev, next [2]int32 // in its byKey (inKey) and byEdge (inEdge) queues; -1 at the ends
}

const (
	inKey  = 0
	inEdge = 1
)

type queue struct{ head, tail int32 }

func newFlights() *flights {
	return &flights{byKey: map[pairKey]queue{}, byEdge: map[edge]queue{}}
}

// send puts a message at the back of its key's and its edge's queues.
func (f *flights) send(sendT int64, from, to int32, key pairKey, val int) {
	var i int32
	if n := len(f.free); n > 0 {
		i, f.free = f.free[n-1], f.free[:n-1]
	} else {
		i = int32(len(f.fl))
		f.fl = append(f.fl, flight{})
	}
	f.fl[i] = flight{sendT: sendT, val: val, from: from, to: to, key: key, prev: [2]int32{-1, -1}, next: [2]int32{-1, -1}}
	push(f, f.byKey, key, inKey, i)
	push(f, f.byEdge, edge{from, to}, inEdge, i)
	f.live++
	f.peak = max(f.peak, f.live)
}

// popKey settles the oldest message in flight with key k.
func (f *flights) popKey(k pairKey) (flight, bool) {
	q, ok := f.byKey[k]
	if !ok {
		return flight{}, false
	}
	return f.settle(q.head), true
}

// popEdge settles the oldest message in flight on e.
func (f *flights) popEdge(e edge) (flight, bool) {
	q, ok := f.byEdge[e]
	if !ok {
		return flight{}, false
	}
	return f.settle(q.head), true
}

// popEdgeAt settles the newest message in flight on e if it was sent at
// t: the send a drop_on_send refuses, which the engine records right
// after it.
func (f *flights) popEdgeAt(e edge, t int64) (flight, bool) {
	q, ok := f.byEdge[e]
	if !ok || f.fl[q.tail].sendT != t {
		return flight{}, false
	}
	return f.settle(q.tail), true
}

// settle takes message i out of both its queues.
func (f *flights) settle(i int32) flight {
	m := f.fl[i]
	unlink(f, f.byKey, m.key, inKey, i)
	unlink(f, f.byEdge, edge{m.from, m.to}, inEdge, i)
	f.fl[i] = flight{}
	f.free = append(f.free, i)
	f.live--
	return m
}

// push appends message i to queue m[k], list l of its links.
func push[K comparable](f *flights, m map[K]queue, k K, l int, i int32) {
	q, ok := m[k]
	if !ok {
		q = queue{-1, -1}
	}
	if q.tail >= 0 {
		f.fl[q.tail].next[l], f.fl[i].prev[l] = i, q.tail
	} else {
		q.head = i
	}
	q.tail = i
	m[k] = q
}

// unlink takes message i out of queue m[k], which leaves m once empty.
func unlink[K comparable](f *flights, m map[K]queue, k K, l int, i int32) {
	q := m[k]
	prev, next := f.fl[i].prev[l], f.fl[i].next[l]
	if prev >= 0 {
		f.fl[prev].next[l] = next
	} else {
		q.head = next
	}
	if next >= 0 {
		f.fl[next].prev[l] = prev
	} else {
		q.tail = prev
	}
	if q.head < 0 {
		delete(m, k)
	} else {
		m[k] = q
	}
}

// each calls fn with every message still in flight, in no fixed order:
// for tallies only.
func (f *flights) each(fn func(flight)) {
	for _, q := range f.byEdge {
		for i := q.head; i >= 0; i = f.fl[i].next[inEdge] {
			fn(f.fl[i])
		}
	}
}
