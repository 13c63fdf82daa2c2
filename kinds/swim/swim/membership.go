package swim

import (
	"bytes"
	"math"
)

// applyUpdate merges one piece of membership news into the view. reason is
// the state_transition reason if the view changes (ReasonGossip is turned
// into ReasonRefuted when an alive overrides an accusation). Every accepted
// change is queued for dissemination, as memberlist re-broadcasts every
// update it accepts.
func (n *Node) applyUpdate(u Update, reason string, now int64) {
	if !u.State.valid() || u.Member == "" || (u.State != Alive && u.From == "") || len(u.Meta) > MaxMetaBytes {
		n.counters.InvalidUpdates++
		return
	}
	if !refutable(u.State, u.Incarnation) {
		// NB: one forged update at the top of the range would otherwise
		// hold a member suspect or dead for the rest of the run: its
		// refutation needs an incarnation above the accusation's.
		n.counters.RefusedMaxIncarnation++
		return
	}
	if u.State == Alive {
		u.From = ""
	} else {
		u.Meta = nil
	}
	// Self is a member from the start, so the lookup finds it too: one
	// comparison of ids rather than one with self's and another in the
	// lookup (a legacy message names every member hundreds of times).
	idx, known := n.lookup(u.Member)
	if known && idx == n.selfIdx {
		n.applySelf(u)
		return
	}
	if !known && u.State != Alive && n.cfg.Dissemination == DisseminateMemberlist {
		// memberlist's suspectNode and deadNode drop news about a member
		// they never heard of (the second half of memberlist PR #345).
		return
	}
	if !known {
		if len(n.members) >= n.cfg.MaxMembers {
			n.counters.RefusedMembers++
			return
		}
		idx = n.addMember(u.Member)
		n.addToOrder(idx)
	} else if m := &n.members[idx]; !supersedes(u.State, u.Incarnation, m.state(), m.inc()) {
		switch u.State {
		case Alive:
			n.staleAlive(idx, u)
		case Suspect:
			n.staleSuspect(idx, u, now)
		}
		// A dead at or below the view's rank adds nothing.
		return
	}
	n.transition(idx, u, reason, now)
}

// staleAlive handles an alive that does not outrank the view: it may
// still carry the metadata this node only assumed, and if the view is an
// accusation, the sender has not heard it.
func (n *Node) staleAlive(idx int32, u Update) {
	m := &n.members[idx]
	if u.Incarnation == m.inc() && n.metaSource(m) == metaAssumed {
		n.replaceAssumedMeta(idx, u)
	}
	if (m.state() == Suspect || m.state() == Dead) && n.cfg.Dissemination == DisseminateSWIM {
		// The sender has not heard the accusation, possibly because the
		// accused restarted after it was made and nobody repeats it any
		// more (memberlist #311): spread it again so it reaches the
		// accused, who will refute.
		n.reassert(idx)
	}
}

// staleSuspect handles a suspect that does not outrank the view: the same
// suspicion from another accuser is a confirmation (Lifeguard).
func (n *Node) staleSuspect(idx int32, u Update, now int64) {
	if m := &n.members[idx]; m.state() == Suspect && u.Incarnation == m.inc() {
		n.confirm(idx, u.From, now)
	}
}

// transition moves the view of member idx to u, which outranks it (or
// introduces the member): it emits the state_transition, queues u for
// dissemination, and starts what the new state starts.
func (n *Node) transition(idx int32, u Update, reason string, now int64) {
	m := &n.members[idx]
	from := m.state()
	if reason == ReasonGossip && u.State == Alive && (from == Suspect || from == Dead) {
		reason = ReasonRefuted
	}
	if accused(from) != accused(u.State) {
		if accused(u.State) {
			n.accused++
		} else {
			n.accused--
		}
	}
	m.set(u.State, u.Incarnation)
	if u.From != "" || m.x() != 0 {
		x := n.ext(m)
		x.by, x.susp = u.From, nil
	}
	if u.State == Alive {
		// The member's newest life speaks: its metadata replaces ours,
		// and the news spreads with the stored copy.
		u.Meta = n.storeMeta(m, u.Meta)
	}
	n.emit(&StateTransition{Observer: n.self, Subject: n.id(idx), From: from, To: u.State, Incarnation: u.Incarnation, Reason: reason})
	n.queue.push(u)
	switch u.State {
	case Suspect:
		n.startSuspicion(idx, u.From, now)
	case Dead:
		n.counters.Deaths++
		n.ext(m).deadAt = now
	}
}

func accused(s State) bool { return s == Suspect || s == Dead }

// refutable reports whether the member could answer u: an update at the
// largest incarnation, 2^64−1, could never be out-ranked, and neither
// could an accusation one below it, whose refutation would be at the
// largest. Both are refused. What is left is an alive at 2^64−2, which no
// accusation can reach any more: a member can be held alive by a forged
// update (with the cluster key) but never killed by one.
func refutable(s State, inc uint64) bool {
	switch {
	case inc == math.MaxUint64:
		return false
	case inc == math.MaxUint64-1:
		return s == Alive
	}
	return true
}

// replaceAssumedMeta takes the metadata of an alive at the stored
// incarnation about a member whose metadata this node only assumed (a seed
// answering a join, a joiner it already knew): hearing beats assuming. The
// view does not change, so nothing is emitted; but if the assumption was
// wrong, the alive is queued so that peers who assumed the same learn it
// too (otherwise only first-hand listeners would, and the rest would keep
// the wrong bytes until the member's incarnation rises).
func (n *Node) replaceAssumedMeta(idx int32, u Update) {
	m := &n.members[idx]
	wrong := !bytes.Equal(n.metaOf(idx), u.Meta)
	u.Meta = n.storeMeta(m, u.Meta)
	if wrong {
		n.queue.push(u)
	}
}

// applySelf handles news about this node. Any accusation at or above its
// incarnation, or an alive above it or at it with other metadata (a
// previous life's), is refuted by raising the incarnation past it. An
// accusation below it is stale: the sender has not heard the refutation,
// so it is spread again if it retired.
func (n *Node) applySelf(u Update) {
	me := &n.members[n.selfIdx]
	var cause string
	switch {
	case u.State == Alive && u.Incarnation > me.inc():
		cause = CauseRefuteAlive
	case u.State == Alive && u.Incarnation == me.inc() && !bytes.Equal(u.Meta, n.storedMeta(me)):
		// As memberlist's aliveNode: a node restarted with other
		// metadata, or a peer that assumed other metadata, must not keep
		// it at this incarnation.
		cause = CauseRefuteAlive
	case u.State == Suspect && u.Incarnation >= me.inc():
		cause = CauseRefuteSuspect
	case u.State == Dead && u.Incarnation >= me.inc():
		cause = CauseRefuteDead
	case u.State != Alive && n.cfg.Dissemination == DisseminateMemberlist:
		// memberlist ignores an accusation below its incarnation.
		return
	case u.State != Alive:
		if !n.queue.holds(n.self, Alive, me.inc()) {
			n.queue.push(n.selfAlive())
			n.counters.Reasserts++
		}
		return
	default:
		return
	}
	// NB: at the largest incarnation no refutation can outrank the
	// accusation; the node keeps its incarnation rather than wrap to 0.
	if u.Incarnation == math.MaxUint64 {
		n.counters.RefutationsImpossible++
		return
	}
	old := me.inc()
	me.set(Alive, u.Incarnation+1)
	n.counters.Refutations++
	n.adjustHealth(1)
	n.emit(&SelfIncarnationBump{Old: old, New: me.inc(), Cause: cause})
	n.emit(&StateTransition{Observer: n.self, Subject: n.self, From: Alive, To: Alive, Incarnation: me.inc(), Reason: ReasonRefuted})
	n.queue.push(n.selfAlive())
}

// selfAlive is this node's alive at its current incarnation, with its
// metadata.
func (n *Node) selfAlive() Update {
	me := &n.members[n.selfIdx]
	return Update{Member: n.self, State: Alive, Incarnation: me.inc(), Meta: n.storedMeta(me)}
}

// reassert queues the node's current accusation about a member again,
// unless it is still queued.
func (n *Node) reassert(idx int32) {
	m := &n.members[idx]
	if n.queue.holds(n.id(idx), m.state(), m.inc()) {
		return
	}
	n.queue.push(Update{Member: n.id(idx), State: m.state(), Incarnation: m.inc(), From: n.accuser(m)})
	n.counters.Reasserts++
}

// startSuspicion arms the Lifeguard suspicion timer for a member that just
// became suspect on accuser's word.
func (n *Node) startSuspicion(idx int32, accuser string, now int64) {
	size := n.known()
	k := suspicionK(n.cfg.SuspicionMult, size)
	lo := suspicionMinNs(n.cfg.SuspicionMult, size, n.cfg.ProbeIntervalNs)
	hi := satMul(int64(n.cfg.SuspicionMaxTimeoutMult), lo)
	if n.cfg.NoSuspicion {
		// SWIM's fixed suspicion timeout: the minimum from the start, and
		// no confirmation to wait for (k = 0 ends confirm at once).
		k, hi = 0, lo
	}
	s := &suspicion{start: now, min: lo, max: hi, k: k, accusers: []string{accuser}}
	s.deadline = satAdd(now, suspicionTimeoutNs(0, k, lo, hi))
	x := n.ext(&n.members[idx])
	x.susp = s
	if !x.listed {
		x.listed = true
		n.suspects = append(n.suspects, idx)
	}
	n.counters.Suspicions++
	n.armSuspicion(idx)
}

// concludeOverdueSuspicions expires suspicions whose timers were not
// delivered, and forgets members that are no longer suspect.
func (n *Node) concludeOverdueSuspicions(now int64) {
	kept := n.suspects[:0]
	for _, idx := range n.suspects {
		m := &n.members[idx]
		if s := n.suspicion(m); s != nil && now >= s.deadline {
			n.suspicionExpired(idx, now)
		}
		if n.suspicion(m) == nil {
			if x := n.extra(m); x != nil {
				x.listed = false
			}
			continue
		}
		kept = append(kept, idx)
	}
	n.suspects = kept
}

func (n *Node) armSuspicion(idx int32) {
	s := n.suspicion(&n.members[idx])
	n.suspicionGen++
	s.gen = n.suspicionGen
	n.arm(s.deadline, suspicionToken(idx, s.gen))
}

// confirm counts an independent confirmation of a suspicion: it shortens
// the timeout (declaring the member dead at once if the new deadline has
// passed) and re-gossips the confirmation, as memberlist does, so others
// can count it too.
func (n *Node) confirm(idx int32, accuser string, now int64) {
	m := &n.members[idx]
	s := n.suspicion(m)
	if s == nil || s.n >= s.k || s.hasAccuser(accuser) {
		return
	}
	s.accusers = append(s.accusers, accuser)
	s.n++
	n.queue.push(Update{Member: n.id(idx), State: Suspect, Incarnation: m.inc(), From: accuser})
	deadline := satAdd(s.start, suspicionTimeoutNs(s.n, s.k, s.min, s.max))
	if deadline >= s.deadline {
		return
	}
	s.deadline = deadline
	if deadline <= now {
		n.suspicionExpired(idx, now)
		return
	}
	n.armSuspicion(idx)
}

// suspicionExpired declares a suspect member dead.
func (n *Node) suspicionExpired(idx int32, now int64) {
	m := &n.members[idx]
	n.applyUpdate(Update{Member: n.id(idx), State: Dead, Incarnation: m.inc(), From: n.self}, ReasonSuspicionTimeout, now)
}
