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
	sendT        int64
	val          int
	from, to     int32
	key          pairKey
	kPrev, kNext int32 // in byKey[key]; -1 at the ends
	ePrev, eNext int32 // in byEdge[{from, to}]
}

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
	f.fl[i] = flight{sendT: sendT, val: val, from: from, to: to, key: key, kPrev: -1, kNext: -1, ePrev: -1, eNext: -1}
	q, ok := f.byKey[key]
	if !ok {
		q = queue{-1, -1}
	}
	if q.tail >= 0 {
		f.fl[q.tail].kNext, f.fl[i].kPrev = i, q.tail
	} else {
		q.head = i
	}
	q.tail = i
	f.byKey[key] = q
	e := edge{from, to}
	q, ok = f.byEdge[e]
	if !ok {
		q = queue{-1, -1}
	}
	if q.tail >= 0 {
		f.fl[q.tail].eNext, f.fl[i].ePrev = i, q.tail
	} else {
		q.head = i
	}
	q.tail = i
	f.byEdge[e] = q
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
	q := f.byKey[m.key]
	if m.kPrev >= 0 {
		f.fl[m.kPrev].kNext = m.kNext
	} else {
		q.head = m.kNext
	}
	if m.kNext >= 0 {
		f.fl[m.kNext].kPrev = m.kPrev
	} else {
		q.tail = m.kPrev
	}
	if q.head < 0 {
		delete(f.byKey, m.key)
	} else {
		f.byKey[m.key] = q
	}
	e := edge{m.from, m.to}
	q = f.byEdge[e]
	if m.ePrev >= 0 {
		f.fl[m.ePrev].eNext = m.eNext
	} else {
		q.head = m.eNext
	}
	if m.eNext >= 0 {
		f.fl[m.eNext].ePrev = m.ePrev
	} else {
		q.tail = m.ePrev
	}
	if q.head < 0 {
		delete(f.byEdge, e)
	} else {
		f.byEdge[e] = q
	}
	f.fl[i] = flight{}
	f.free = append(f.free, i)
	f.live--
	return m
}

// each calls fn with every message still in flight.
func (f *flights) each(fn func(flight)) {
	for _, q := range f.byEdge {
		for i := q.head; i >= 0; i = f.fl[i].eNext {
			fn(f.fl[i])
		}
	}
}
