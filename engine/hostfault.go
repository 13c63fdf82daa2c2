package engine

import "github.com/detsim/detsim/internal/checked"

// The host-level faults of issue 14 (docs/decisions.md, "Host faults"):
// a PeerPause, a host's recv_cost_ns and its recv_buffer_bytes. A host
// whose fault is engaged takes its deliveries through an inbox, handled
// one at a time; one without takes each the instant it arrives, and
// none of this runs.

// fault is a host's share of the host-level faults of issue 14
// (docs/decisions.md, "Host faults"): a PeerPause in force and the
// deliveries that arrived but are not yet handled. Its zero value, with
// cost 0, is a host that takes every delivery the instant it arrives,
// which is every host of a scenario without these features: none of this
// then runs, and no queue entry is added.
type fault struct {
	cost     int64 // recv_cost_ns: how long handling one delivery takes
	bufLimit int64 // recv_buffer_bytes: bytes of unhandled deliveries held at most

	paused   bool  // between a PeerPause's pop and its Resume's
	pauseAt  int64 // when the pause in force began
	pauseEnd int64 // when it ends (the pending Resume's instant)
	// deferred are the timers and send failures that fell due during the
	// pause, in due order; Resume queues them again, ahead of the inbox.
	deferred []entry

	// inbox holds the deliveries that arrived and wait to be handled,
	// head first, with the bytes of their wire messages.
	inbox      []entry
	inboxBytes int64
	// serving says inbox[0] is being handled and will be handed to the
	// host at svcEnd by the Process entry of generation wake.
	serving bool
	svcEnd  int64
	wake    uint32
	// left is inbox[0]'s handling time still owed when a pause
	// interrupted it (interrupted); the Resume restarts it with that.
	left        int64
	interrupted bool
}

// engaged reports whether a delivery must go through the inbox rather
// than straight to the host.
func (f *fault) engaged() bool { return f.cost > 0 || f.paused || len(f.inbox) > 0 }

// clear forgets the pause, the deferred entries and the handling state;
// the inbox is the caller's business.
func (f *fault) clear() {
	f.paused, f.deferred = false, nil
	f.serving, f.interrupted, f.left = false, false, 0
}

// staleFault reports whether a Process or Resume entry was overtaken: by
// a kill or restart, by a pause that stopped the handling it would end
// (Process), or by a pause that extended the one it would end (Resume).
func (e *Engine) staleFault(en *entry) bool {
	s := &e.st.hosts[en.host]
	if en.gen != s.gen || s.state != hostRunning {
		return true
	}
	if en.kind == kindProcess {
		return !s.fault.serving || uint32(en.aux) != s.fault.wake
	}
	return !s.fault.paused || en.at != s.fault.pauseEnd
}

// hold puts an arrived delivery in its host's inbox, or drops it with
// recv_backlog_full when the bytes held unhandled would pass the host's
// recv_buffer_bytes. A delivery that has to wait (the host is paused, or
// others are ahead of it) is recorded as delivery_queued; one the host
// starts on at once is not.
func (e *Engine) hold(en *entry) {
	s := &e.st.hosts[en.host]
	f := &s.fault
	from := e.peers[en.peer]
	size := e.st.wires.size(en.wire)
	if f.inboxBytes+size > f.bufLimit {
		id := e.st.wires.id(en.wire)
		e.release(en)
		e.emit(en.host, engineTag, dropOnDelivery{from: from, to: s.id, reason: "recv_backlog_full", id: id})
		return
	}
	f.inbox = append(f.inbox, *en)
	f.inboxBytes += size
	if f.paused || len(f.inbox) > 1 {
		until := f.svcEnd
		if f.paused {
			until = f.pauseEnd
		}
		e.emit(en.host, engineTag, deliveryQueued{from: from, to: s.id, bytes: size, ahead: len(f.inbox) - 1, paused: f.paused, until: until})
	}
	if !f.paused && !f.serving {
		e.startService(en.host)
	}
}

// startService starts handling the head of host i's inbox: it is handed
// over recv_cost_ns from now (or what a pause left of it).
func (e *Engine) startService(i int32) {
	s := &e.st.hosts[i]
	f := &s.fault
	d := f.cost
	if f.interrupted {
		d, f.left, f.interrupted = f.left, 0, false
	}
	f.serving = true
	f.svcEnd = checked.Add(e.st.now, d)
	f.wake++
	e.push(entry{at: f.svcEnd, kind: kindProcess, host: i, gen: s.gen, aux: uint64(f.wake)})
}

// dispatchProcess hands the head of the host's inbox over, its handling
// done, and starts on the next one.
func (e *Engine) dispatchProcess(i int32) {
	s := &e.st.hosts[i]
	f := &s.fault
	en := f.inbox[0]
	f.inbox[0] = entry{}
	if len(f.inbox) == 1 {
		// Emptied: start again at this slot, so a host that handles one
		// delivery at a time reuses it instead of allocating per delivery.
		f.inbox = f.inbox[:0]
	} else {
		f.inbox = f.inbox[1:]
	}
	f.inboxBytes -= e.st.wires.size(en.wire)
	f.serving = false
	if s.recvHalted {
		id := e.st.wires.id(en.wire)
		e.release(&en)
		e.emit(i, engineTag, dropOnDelivery{from: e.peers[en.peer], to: s.id, reason: "halted", id: id})
	} else {
		e.handOver(&en)
	}
	s = &e.st.hosts[i]
	if s.state == hostRunning && !s.fault.paused && !s.fault.serving && len(s.fault.inbox) > 0 {
		e.startService(i)
	}
}

// pause applies a PeerPause of host i: it stops until now+d, or, already
// paused, until the later of the two ends (overlapping pauses merge). A
// delivery being handled stops with what is left of its handling.
func (e *Engine) pause(i int32, d int64) {
	s := &e.st.hosts[i]
	if s.state != hostRunning {
		return // the loader rejects it; a killed or down host has nothing to pause
	}
	f := &s.fault
	end := checked.Add(e.st.now, d)
	if f.paused {
		if end <= f.pauseEnd {
			return
		}
	} else {
		f.paused, f.pauseAt = true, e.st.now
		if f.serving {
			f.left, f.interrupted = f.svcEnd-e.st.now, true
			f.serving = false
		}
	}
	f.pauseEnd = end
	e.push(entry{at: end, kind: kindResume, host: i, gen: s.gen})
}

// dispatchResume ends host i's pause: host_resumed, then the timers and
// send failures that fell due, queued again now in due order, then the
// inbox, whose handling starts after them.
func (e *Engine) dispatchResume(i int32) {
	s := &e.st.hosts[i]
	f := &s.fault
	f.paused = false
	e.emit(i, engineTag, hostResumed{peer: s.id, pausedNs: e.st.now - f.pauseAt, timers: len(f.deferred), waiting: len(f.inbox)})
	for _, d := range f.deferred {
		d.at = e.st.now
		e.push(d)
	}
	f.deferred = nil
	if len(f.inbox) > 0 && !f.serving {
		e.startService(i)
	}
}

// dropInbox records every delivery host i holds unhandled as dropped for
// reason and frees them (a PeerKill: the process and its socket are gone).
func (e *Engine) dropInbox(i int32, reason string) {
	s := &e.st.hosts[i]
	f := &s.fault
	for k := range f.inbox {
		en := &f.inbox[k]
		id := e.st.wires.id(en.wire)
		e.release(en)
		e.emit(i, engineTag, dropOnDelivery{from: e.peers[en.peer], to: s.id, reason: reason, id: id})
	}
	f.inbox, f.inboxBytes = nil, 0
	f.clear()
}
