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

// world is the state every assertion shares: peer ids interned to dense
// indices, every observer's views, and which peers are killed. Only
// records change it, in stream order.
type world struct {
	ids    map[string]int32 // looked up, never iterated
	names  []string
	views  [][]view // views[observer][subject], rows grown on demand
	killed []bool
	ran    []bool // the peer has held a view: it has been running
}

func newWorld() world { return world{ids: map[string]int32{}} }

// intern returns id's dense index, assigning the next one on first sight.
func (w *world) intern(id string) int32 {
	if i, ok := w.ids[id]; ok {
		return i
	}
	i := int32(len(w.names))
	w.ids[id] = i
	w.names = append(w.names, id)
	w.killed = append(w.killed, false)
	w.ran = append(w.ran, false)
	return i
}

func (w *world) name(i int32) string { return w.names[i] }

// view returns observer o's view of subject s (zero when it has none).
func (w *world) view(o, s int32) view {
	if int(o) < len(w.views) && int(s) < len(w.views[o]) {
		return w.views[o][s]
	}
	return view{}
}

// setView records o's new view of s and returns the previous one.
func (w *world) setView(o, s int32, v view) view {
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
	row[s] = v
	w.ran[o] = w.ran[o] || v.state != noView
	return old
}

// live reports whether no PeerKill of i is in force.
func (w *world) live(i int32) bool { return !w.killed[i] }

// dead reports whether a PeerResurrect of i would bring it back: a
// PeerKill of it is in force, or it has never held a view (a peer
// declared down has not run yet; a running SWIM peer holds a view of
// itself from its start).
func (w *world) dead(i int32) bool { return w.killed[i] || !w.ran[i] }

func (w *world) clone() world {
	c := world{
		ids:    maps.Clone(w.ids),
		names:  slices.Clone(w.names),
		views:  make([][]view, len(w.views)),
		killed: slices.Clone(w.killed),
		ran:    slices.Clone(w.ran),
	}
	for i, row := range w.views {
		c.views[i] = slices.Clone(row)
	}
	return c
}
