package swimcheck

import (
	"maps"
	"slices"
)

// State is a view's membership state. The zero value is "no view".
type state uint8

const (
	noView state = iota
	alive
	suspect
	dead
)

func (s state) String() string {
	switch s {
	case alive:
		return "alive"
	case suspect:
		return "suspect"
	case dead:
		return "dead"
	}
	return "no view"
}

// parseState maps an event's state name to a state; "none" is only valid
// as a transition's `from`, which the evaluator does not read.
func parseState(s string) (state, bool) {
	switch s {
	case "alive":
		return alive, true
	case "suspect":
		return suspect, true
	case "dead":
		return dead, true
	}
	return noView, false
}

// view is one observer's latest belief about one subject, with the record
// that set it so evidence can point there.
type view struct {
	state       state
	incarnation uint64
	line        int
	timeNs      int64
}

// packed is a view in one word, as the world keeps it: its state, its
// incarnation and its line. Its time is the world's times at that line
// (every record of a line has one time, and lines only grow), and a view
// that does not fit (an incarnation or a line too large, a line out of
// order) is kept whole in the world's wide map, its incarnation bits all
// set. The zero packed is no view. A thousand-peer run holds a million
// views and a ten-thousand-peer run 10⁸: 8 bytes each rather than the 32
// of a view (docs/BENCHMARKS.md, "Ten thousand peers").
type packed uint64

const (
	stateBits = 2
	incBits   = 24
	lineShift = stateBits + incBits
	maxLine   = 1<<(64-lineShift) - 1
	wideInc   = 1<<incBits - 1 // the incarnation bits of a view kept whole
)

// lineTime says every line from line on (up to the next one's) was
// recorded at timeNs.
type lineTime struct {
	line   int
	timeNs int64
}

// world is the state every assertion shares: peer ids interned to dense
// indices, every observer's views, and which peers are killed. Only
// records change it, in stream order.
type world struct {
	ids    map[string]int32 // looked up, never iterated
	names  []string
	views  [][]packed      // views[observer][subject], rows grown on demand
	wide   map[uint64]view // the views that do not pack, by pairKey; looked up, never iterated
	times  []lineTime      // the time of every line a packed view holds, ascending by line
	killed []bool
	ran    []bool // the peer has held a view: it has been running
	top    int    // the highest line a packed view holds
	// host and member are the last indices the judge looked up for a
	// record's host and for the member it names (internAfter).
	host, member int32
}

func newWorld() world { return world{ids: map[string]int32{}} }

// intern returns id's dense index, assigning the next one on first sight.
func (w *world) intern(id string) int32 {
	i, ok := w.ids[id]
	if !ok {
		i = int32(len(w.names))
		w.ids[id] = i
		w.names = append(w.names, id)
		w.killed = append(w.killed, false)
		w.ran = append(w.ran, false)
	}
	return i
}

// internAfter is intern for ids that come in runs or in the order they
// were first seen, *last being the previous one's index: a host's
// records come in runs, and a node's start-up names every member in
// the order the first node's start-up interned them (10⁸ transitions at
// ten thousand peers), so a comparison or two replaces hashing the id.
func (w *world) internAfter(id string, last *int32) int32 {
	i := *last
	if int(i) < len(w.names) && w.names[i] == id {
		return i
	}
	if int(i)+1 < len(w.names) && w.names[i+1] == id {
		*last = i + 1
		return i + 1
	}
	i = w.intern(id)
	*last = i
	return i
}

func (w *world) name(i int32) string { return w.names[i] }

func pairKey(o, s int32) uint64 { return uint64(uint32(o))<<32 | uint64(uint32(s)) }

func (w *world) packed(o, s int32) packed {
	if int(o) < len(w.views) && int(s) < len(w.views[o]) {
		return w.views[o][s]
	}
	return 0
}

// peek returns observer o's view of subject s without its time, which
// only a citation needs (w.mark): timeNs is 0 unless the view is kept
// whole. Loops over every pair read views so.
func (w *world) peek(o, s int32) view {
	v, _ := w.unpack(o, s)
	return v
}

// unpack returns o's view of s without its time, and whether the time is
// the world's times at its line (the view is packed and not zero).
func (w *world) unpack(o, s int32) (view, bool) {
	p := w.packed(o, s)
	switch inc := uint64(p>>stateBits) & wideInc; {
	case p == 0:
		return view{}, false
	case inc == wideInc:
		return w.wide[pairKey(o, s)], false
	default:
		return view{state: p.state(), incarnation: inc, line: int(p >> lineShift)}, true
	}
}

func (p packed) state() state { return state(p & (1<<stateBits - 1)) }

// view returns observer o's view of subject s (zero when it has none).
func (w *world) view(o, s int32) view {
	v, timed := w.unpack(o, s)
	if timed {
		v.timeNs = w.timeAt(v.line)
	}
	return v
}

// mark cites the record that set o's view of s.
func (w *world) mark(o, s int32) mark {
	v := w.view(o, s)
	return mark{v.line, v.timeNs}
}

// timeAt is the time of a line some packed view holds.
func (w *world) timeAt(line int) int64 {
	i, _ := slices.BinarySearchFunc(w.times, line+1, func(e lineTime, l int) int { return e.line - l }) // the first entry past line
	return w.times[i-1].timeNs
}

// pack returns v packed, or false when it must be kept whole: it does
// not fit, or its time is not the one the world's times give its line.
func (w *world) pack(v view) (packed, bool) {
	if v == (view{}) {
		return 0, true
	}
	if v.state == noView || v.incarnation >= wideInc || v.line <= 0 || uint64(v.line) > maxLine {
		return 0, false
	}
	if n := len(w.times); v.line > w.top {
		// Lines after every line held: a new entry when time moved.
		if n == 0 || v.timeNs != w.times[n-1].timeNs {
			w.times = append(w.times, lineTime{v.line, v.timeNs})
		}
		w.top = v.line
	} else if v.line < w.times[0].line || w.timeAt(v.line) != v.timeNs {
		return 0, false // out of order, and not the time its line has
	}
	return packed(v.state) | packed(v.incarnation)<<stateBits | packed(v.line)<<lineShift, true
}

// setView records o's new view of s and returns the state of the
// previous one (the only part of it a checker reads).
func (w *world) setView(o, s int32, v view) state {
	for int(o) >= len(w.views) {
		w.views = append(w.views, nil)
	}
	row := w.views[o]
	if int(s) >= len(row) {
		// Room for every peer seen so far: a thousand-peer run's
		// observers each learn of a thousand subjects at t=0, and
		// growing a row one subject at a time copied it over and over.
		n, had := max(int(s)+1, len(w.names)), len(row)
		row = slices.Grow(row, n-had)[:n]
		clear(row[had:])
		w.views[o] = row
	}
	old := row[s]
	if uint64(old>>stateBits)&wideInc == wideInc {
		delete(w.wide, pairKey(o, s))
	}
	p, ok := w.pack(v)
	if !ok {
		if w.wide == nil {
			w.wide = map[uint64]view{}
		}
		w.wide[pairKey(o, s)] = v
		p = packed(v.state) | wideInc<<stateBits
	}
	row[s] = p
	w.ran[o] = w.ran[o] || v.state != noView
	return old.state()
}

// live reports whether no PeerKill of i is in force.
func (w *world) live(i int32) bool { return !w.killed[i] }

// dead reports whether a PeerResurrect of i would bring it back: a
// PeerKill of it is in force, or it has never held a view (a peer
// declared down has not run yet; a running SWIM peer holds a view of
// itself from its start).
func (w *world) dead(i int32) bool { return w.killed[i] || !w.ran[i] }

func (w *world) clone() world {
	c := *w
	c.ids = maps.Clone(w.ids)
	c.names = slices.Clone(w.names)
	c.views = make([][]packed, len(w.views))
	c.wide = maps.Clone(w.wide)
	c.times = slices.Clone(w.times)
	c.killed = slices.Clone(w.killed)
	c.ran = slices.Clone(w.ran)
	for i, row := range w.views {
		c.views[i] = slices.Clone(row)
	}
	return c
}
