package engine

import "github.com/detsim/detsim/network"

// This file holds the read-only views of engine state that viewers (the
// stepper, the headless debugger's text panes) draw from: the queue in pop
// order, hosts (all, or one at a time), links, peers and what the last
// step dispatched. None of them changes the engine.

// QueueEntry is one pending queue entry as the stepper shows it.
type QueueEntry struct {
	At   int64
	Seq  uint64
	Kind string // Tick, Deliver, Timer, SendFailed, Mutation, Snapshot, Terminate
	Host string // the host it is for, "" if none
	From string // Deliver: the sender
	Size int    // Deliver: wire bytes
	Cut  bool   // Deliver: invalidated in flight; pops only to report a failed dial
}

// Queue returns the next k live entries in pop order without popping
// them. It walks the heap best-first from its root, keeping a small heap
// of the entries whose parents it has taken, so it costs O(k log k) (plus
// the stale entries it skips), not a sort of the whole queue: a
// thousand-host run holds thousands of entries and a viewer asks twice a
// step.
func (e *Engine) Queue(k int) []QueueEntry {
	items := e.st.q.items
	out := make([]QueueEntry, 0, min(k, len(items)))
	if len(items) == 0 || k <= 0 {
		return out
	}
	front := frontier{items: items, idx: []int32{0}}
	for len(front.idx) > 0 && len(out) < k {
		i := front.pop()
		for c := 4*i + 1; c <= 4*i+4 && int(c) < len(items); c++ {
			front.push(c)
		}
		if en := &items[i]; !e.hidden(en) {
			out = append(out, e.view(en))
		}
	}
	return out
}

// Next returns the entry the next step will dispatch, if the run has not
// ended: Queue(1) without allocating when the queue's head is live, so a
// caller can ask after every step (to stop just before a step it can
// predict: the run's Terminate, the first at or after a time).
func (e *Engine) Next() (QueueEntry, bool) {
	if e.st.done || len(e.st.q.items) == 0 {
		return QueueEntry{}, false
	}
	if en := &e.st.q.items[0]; !e.hidden(en) {
		return e.view(en), true
	}
	if q := e.Queue(1); len(q) == 1 {
		return q[0], true
	}
	return QueueEntry{}, false
}

// hidden reports whether Queue leaves en out: it will vanish without
// being a step (Engine.stale, without its side effects).
func (e *Engine) hidden(en *entry) bool {
	if en.kind == kindDeliver {
		_, cut := e.st.cut[en.aux]
		return cut && !en.dialed
	}
	return (en.kind == kindTick || en.kind == kindTimer || en.kind == kindSendFailed) && e.staleHost(en)
}

// view is en as a viewer sees it.
func (e *Engine) view(en *entry) QueueEntry {
	_, cut := e.st.cut[en.aux]
	q := QueueEntry{At: en.at, Seq: en.seq, Kind: en.kind.String(), Cut: cut && en.kind == kindDeliver}
	if en.host >= 0 {
		q.Host = e.peers[en.host]
	}
	if en.kind == kindDeliver {
		q.From = e.peers[en.peer]
		q.Size = len(e.st.wires.get(en.wire))
	}
	return q
}

// frontier is a binary min-heap of positions in a queue's heap, ordered
// by the entries there (Queue's best-first walk).
type frontier struct {
	items []entry
	idx   []int32
}

func (f *frontier) less(a, b int) bool { return f.items[f.idx[a]].less(&f.items[f.idx[b]]) }

func (f *frontier) push(i int32) {
	f.idx = append(f.idx, i)
	for c := len(f.idx) - 1; c > 0; {
		p := (c - 1) / 2
		if !f.less(c, p) {
			break
		}
		f.idx[c], f.idx[p] = f.idx[p], f.idx[c]
		c = p
	}
}

func (f *frontier) pop() int32 {
	top := f.idx[0]
	last := len(f.idx) - 1
	f.idx[0] = f.idx[last]
	f.idx = f.idx[:last]
	for p := 0; ; {
		c := 2*p + 1
		if c >= last {
			break
		}
		if c+1 < last && f.less(c+1, c) {
			c++
		}
		if !f.less(c, p) {
			break
		}
		f.idx[c], f.idx[p] = f.idx[p], f.idx[c]
		p = c
	}
	return top
}

func (e *Engine) staleHost(en *entry) bool {
	s := &e.st.hosts[en.host]
	return en.gen != s.gen || s.state != hostRunning
}

// QueueLen is the number of entries in the queue, stale ones included.
func (e *Engine) QueueLen() int { return e.st.q.len() }

// HostView is one host as the stepper shows it.
type HostView struct {
	ID, Kind   string
	State      string // down, running, killed
	TickHalted bool
	RecvHalted bool
	Lives      int
	// Snapshot is the host's introspection JSON, nil if never started.
	Snapshot []byte
}

// Hosts returns every host in id order.
func (e *Engine) Hosts() []HostView {
	out := make([]HostView, len(e.st.hosts))
	for i := range e.st.hosts {
		out[i] = e.HostAt(i)
	}
	return out
}

// HostAt returns host i's view, i indexing Peers(). Unlike Hosts it
// snapshots only that host, so a viewer over a hundred hosts can snapshot
// only the rows it shows.
func (e *Engine) HostAt(i int) HostView {
	s := &e.st.hosts[i]
	v := HostView{ID: s.id, Kind: s.kind.Tag, State: s.state.String(), TickHalted: s.tickHalted, RecvHalted: s.recvHalted, Lives: s.lives}
	if s.h != nil {
		v.Snapshot = s.h.Snapshot()
	}
	return v
}

// LastStep describes the entry the latest step dispatched, as Step
// reported it, except Records, which is not kept (0), so a viewer can say
// what the current step did however it got there. At step 0 Kind is "".
func (e *Engine) LastStep() StepInfo {
	info := StepInfo{Index: e.st.steps, At: e.st.now, Done: e.st.done}
	if e.st.steps == 0 {
		return info
	}
	info.Kind = e.st.lastKind.String()
	if e.st.lastHost >= 0 {
		info.Host = e.peers[e.st.lastHost]
	}
	return info
}

// Links returns every directed edge's cache state, last send, in-flight
// count and active mutations, sorted by (from, to). On a big mesh that is
// a million views: a viewer wants LinkRange.
func (e *Engine) Links() []network.LinkView { return e.st.net.Links() }

// LinkRange returns Links()[lo:hi] (clamped), building only those.
func (e *Engine) LinkRange(lo, hi int) []network.LinkView { return e.st.net.LinkRange(lo, hi) }

// NumLinks is len(Links()).
func (e *Engine) NumLinks() int { return e.st.net.NumLinks() }

// LinkCounts returns how many links are Cold and how many have a
// mutation in force, without building their views.
func (e *Engine) LinkCounts() (cold, mutated int) { return e.st.net.LinkCounts() }

// Peers returns the declared peer ids, sorted; a host's index is its
// position here.
func (e *Engine) Peers() []string { return e.peers }
