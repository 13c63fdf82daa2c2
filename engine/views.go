package engine

import (
	"strconv"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/network"
)

// This file holds the read-only views of engine state that viewers (the
// stepper, the headless debugger's text panes) draw from: the queue in pop
// order, hosts (all, or one at a time), links, peers and what the last
// step dispatched. None of them changes the engine.

// QueueEntry is one pending queue entry as the stepper shows it.
type QueueEntry struct {
	At   int64
	Seq  uint64
	Kind string // Tick, Deliver, Timer, SendFailed, Mutation, Snapshot, Terminate, Process, Resume
	Host string // the host it is for, "" if none
	From string // Deliver, Process: the sender
	Size int    // Deliver, Process: wire bytes
	Cut  bool   // Deliver: invalidated in flight; pops only to report a failed dial
	// What is what the entry carries or is for, as the host kind says:
	// Deliver and Process, the message ("ping #12", hosts.Describer);
	// Timer, its purpose ("probe timeout → b #12",
	// hosts.Inspector.DescribeTimer). "" when the kind does not say.
	What string
	// ID is a Deliver's or Process's message id ("orch#17"), "" if none.
	ID string
}

// Queue returns the next k live entries in pop order without popping
// them. It walks the queue's two heaps best-first from their roots,
// keeping a small heap of the entries whose parents it has taken, so it
// costs O(k log k) (plus the stale entries it skips), not a sort of the
// whole queue: a thousand-host run holds thousands of entries and a
// viewer asks twice a step.
func (e *Engine) Queue(k int) []QueueEntry {
	q := &e.st.q
	out := make([]QueueEntry, 0, min(k, q.len()))
	if q.len() == 0 || k <= 0 {
		return out
	}
	front := frontier{rest: q.rest.items, ticks: q.ticks.items}
	if len(q.rest.items) > 0 {
		front.push(0)
	}
	if len(q.ticks.items) > 0 {
		front.push(^0)
	}
	for len(front.idx) > 0 && len(out) < k {
		i := front.pop()
		j, n, tick := i, len(q.rest.items), i < 0
		if tick {
			j, n = ^i, len(q.ticks.items)
		}
		for c := 4*j + 1; c <= 4*j+4 && int(c) < n; c++ {
			if tick {
				front.push(^c)
			} else {
				front.push(c)
			}
		}
		if en := front.at(i); !e.hidden(en) {
			out = append(out, e.view(en))
		}
	}
	return out
}

// describeDelivery fills in a queued delivery's sender, size, message
// and id.
func (e *Engine) describeDelivery(q *QueueEntry, en *entry) {
	q.From = e.peers[en.peer]
	w := &e.st.wires.slots[en.wire]
	q.Size = int(w.size)
	if d := e.st.hosts[en.host].kind.describe; d != nil {
		q.What = d.Describe(w.wireBytes())
	}
	if id := e.st.wires.id(en.wire); id != 0 {
		q.ID = q.From + "#" + strconv.FormatUint(id, 10)
	}
}

// Inspect returns host i's hosts.Inspector JSON (lists cut to limit
// entries), nil when the host is not running or its kind has none. For
// viewers, between steps: it changes nothing.
func (e *Engine) Inspect(i, limit int) []byte {
	s := &e.st.hosts[i]
	if s.h == nil {
		return nil
	}
	if in, ok := s.h.(hosts.Inspector); ok {
		return in.Inspect(limit)
	}
	return nil
}

// Next returns the entry the next step will dispatch, if the run has not
// ended: Queue(1) without allocating when the queue's head is live, so a
// caller can ask after every step (to stop just before a step it can
// predict: the run's Terminate, the first at or after a time).
func (e *Engine) Next() (QueueEntry, bool) {
	h := e.st.q.head()
	if e.st.done || h == nil {
		return QueueEntry{}, false
	}
	if en := &h.items[0]; !e.hidden(en) {
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
	if (en.kind == kindProcess || en.kind == kindResume) && e.staleFault(en) {
		return true
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
	switch en.kind {
	case kindDeliver:
		e.describeDelivery(&q, en)
	case kindProcess:
		// The delivery whose handling it ends: the inbox's head.
		e.describeDelivery(&q, &e.st.hosts[en.host].fault.inbox[0])
	case kindTimer:
		if in, ok := e.st.hosts[en.host].h.(hosts.Inspector); ok {
			q.What = in.DescribeTimer(en.aux)
		}
	}
	return q
}

// frontier is a binary min-heap of positions in a queue's two heaps,
// ordered by the entries there (Queue's best-first walk): i ≥ 0 is
// rest[i], i < 0 is ticks[^i].
type frontier struct {
	rest, ticks []entry
	idx         []int32
}

func (f *frontier) at(i int32) *entry {
	if i < 0 {
		return &f.ticks[^i]
	}
	return &f.rest[i]
}

func (f *frontier) less(a, b int) bool { return f.at(f.idx[a]).less(f.at(f.idx[b])) }

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
	// Host faults (issue 14): Paused until PausedUntil; Busy handling a
	// delivery (recv_cost_ns) until BusyUntil; Waiting deliveries in its
	// inbox (the one being handled included); Deferred timers and send
	// failures that fell due during the pause.
	Paused      bool
	PausedUntil int64
	Busy        bool
	BusyUntil   int64
	Waiting     int
	Deferred    int
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
	v := HostView{ID: s.id, Kind: s.kind.tag, State: s.state.String(), TickHalted: s.tickHalted, RecvHalted: s.recvHalted, Lives: s.lives}
	if f := &s.fault; s.state == hostRunning {
		v.Paused, v.PausedUntil = f.paused, f.pauseEnd
		v.Busy, v.BusyUntil = f.serving, f.svcEnd
		v.Waiting, v.Deferred = len(f.inbox), len(f.deferred)
	}
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
// count and active mutations, sorted by (from, to), as of the current
// virtual time. In flight means queued for delivery and not invalidated:
// the queue is the truth, so a delivery that popped this instant is no
// longer counted and one due this instant that has not popped still is.
func (e *Engine) Links() []network.LinkView { return e.inFlight(e.st.net.LinksAt(e.st.now)) }

// inFlight sets each view's in-flight count from the queue, the truth:
// deliveries queued on the edge and not invalidated. It walks the queue
// once (thousands of entries), never every edge.
func (e *Engine) inFlight(views []network.LinkView) []network.LinkView {
	if len(views) == 0 {
		return views
	}
	n := int64(len(e.peers))
	want := make(map[int64]int, len(views)) // edge key → index in views
	for i := range views {
		want[int64(views[i].FromIdx)*n+int64(views[i].ToIdx)] = i
		views[i].InFlight = 0
	}
	for i := range e.st.q.rest.items { // no delivery is among the ticks
		en := &e.st.q.rest.items[i]
		if en.kind != kindDeliver {
			continue
		}
		if _, cut := e.st.cut[en.aux]; cut {
			continue
		}
		if vi, ok := want[int64(en.peer)*n+int64(en.host)]; ok {
			views[vi].InFlight++
		}
	}
	return views
}

// LinkRange returns Links()[lo:hi] (clamped), building only those.
func (e *Engine) LinkRange(lo, hi int) []network.LinkView {
	return e.inFlight(e.st.net.LinkRangeAt(lo, hi, e.st.now))
}

// NumLinks is len(Links()).
func (e *Engine) NumLinks() int { return e.st.net.NumLinks() }

// LinkCounts returns how many links are Cold and how many have a
// mutation in force, without building their views.
func (e *Engine) LinkCounts() (cold, mutated int) { return e.st.net.LinkCounts() }

// Peers returns the declared peer ids, sorted; a host's index is its
// position here.
func (e *Engine) Peers() []string { return e.peers }
