package swim

// Failure detection: randomised round-robin probing with a direct ping, a
// ping_req fan-out after the probe timeout, and suspicion when the
// health-scaled probe interval ends with no ack at all.

// startProbe pings the next member of the round.
func (n *Node) startProbe(now int64) {
	interval := scaleByHealth(n.cfg.ProbeIntervalNs, n.health)
	// The next probe is due an interval after this one was due, as
	// memberlist's ticker paces them, not after the instant it was
	// handled: a runtime whose ticks wake a little late would otherwise
	// lose a tick each time (live runs probed 5.5 % less often than the
	// simulator, docs/calibration.md). A probe more than an interval late
	// (a pause, a long backlog) starts the pacing afresh rather than
	// bursting to catch up.
	due := n.nextProbeAt
	if now-due >= interval || due > now {
		due = now
	}
	n.nextProbeAt = satAdd(due, interval)
	idx, newRound := n.nextTarget()
	if idx >= 0 {
		n.seq++
		n.probe = probe{
			active:    true,
			target:    idx,
			seq:       n.seq,
			sentAt:    now,
			timeoutAt: satAdd(now, scaleByHealth(n.cfg.ProbeTimeoutNs, n.health)),
			deadline:  n.nextProbeAt, // so the probe is over when the next is due

		}
		p := &n.probe
		id := n.id(idx)
		n.counters.Probes++
		n.emit(&ProbeSent{Target: id, Seq: p.seq, Mode: ModeDirect})
		n.send(id, &Message{Kind: Ping, Seq: p.seq, Target: id})
		n.arm(p.timeoutAt, token(timerProbeTimeout, p.seq))
		n.arm(p.deadline, token(timerProbeDeadline, p.seq))
	}
	if newRound {
		n.reconnect(now)
	}
}

// nextTarget returns the next alive or suspect member in the probe order
// (dead ones are skipped) and whether a new round began, reshuffling the
// order when it did. It returns −1 when nobody can be probed.
func (n *Node) nextTarget() (int32, bool) {
	newRound := false
	for checked := 0; checked <= len(n.order); checked++ {
		if n.orderPos >= len(n.order) {
			if len(n.order) == 0 {
				break
			}
			shuffle(n.rand, n.order)
			n.orderPos = 0
			n.round++
			newRound = true
		}
		idx := n.order[n.orderPos]
		n.orderPos++
		if s := n.members[idx].state(); s == Alive || s == Suspect {
			return idx, newRound
		}
	}
	return -1, newRound
}

// reconnect pings one random dead member at the start of each round. The
// ping carries the death notice (see send), so a member that is in fact
// running — after a partition heals, or a restart nobody noticed — refutes
// it and its alive comes back on the ack. Without this, two sides of a
// healed partition that declared each other dead would never speak again
// (memberlist leaves this to its embedder, e.g. Serf's reconnect). The ack
// matches no probe and is ignored apart from its updates.
//
// Under DisseminateMemberlist this is memberlist's gossip to the dead
// instead: only members dead for less than GossipToTheDeadNs qualify, only
// when the queue holds news, and the ping carries no death notice (send
// staples nothing to it), just the queued updates.
func (n *Node) reconnect(now int64) {
	ml := n.cfg.Dissemination == DisseminateMemberlist
	if ml && n.queue.len() == 0 {
		return
	}
	dead := n.scratch[:0]
	for i := range n.members {
		if m := &n.members[i]; m.state() == Dead && (!ml || now-n.extra(m).deadAt < GossipToTheDeadNs) {
			dead = append(dead, int32(i))
		}
	}
	n.scratch = dead[:0]
	if len(dead) == 0 {
		return
	}
	id := n.id(dead[below(n.rand, uint64(len(dead)))])
	n.seq++
	n.counters.Reconnects++
	n.send(id, &Message{Kind: Ping, Seq: n.seq, Target: id})
}

// onProbeTimeout runs when the direct ping went unanswered for the probe
// timeout: ask up to IndirectChecks random alive members to ping the
// target for us.
func (n *Node) onProbeTimeout() {
	p := &n.probe
	p.timedOut = true
	target := n.id(p.target)
	n.emit(&ProbeTimedOut{Target: target, Seq: p.seq, Mode: ModeDirect})
	if via := n.pickIntermediaries(p.target); len(via) > 0 {
		if !n.cfg.NoNack {
			p.expectedNacks = len(via)
		}
		ids := make([]string, len(via))
		for i, idx := range via {
			ids[i] = n.id(idx)
		}
		n.counters.IndirectProbes++
		n.emit(&ProbeSent{Target: target, Seq: p.seq, Mode: ModeIndirect, Via: ids})
		for _, id := range ids {
			n.send(id, &Message{Kind: PingReq, Seq: p.seq, Target: target})
		}
	}
	if n.cfg.FallbackProbe {
		n.sendFallback(target)
	}
}

// ModeFallback is the probe mode of the fallback probe: the direct ping
// sent again over a reliable stream at the probe timeout
// (Config.FallbackProbe).
const ModeFallback = "fallback"

// sendFallback is memberlist's TCP fallback (probeNode, after the
// ping_reqs): the probe's ping, with the probe's seq, over a new
// reliable stream to the target, whatever intermediaries there are. It
// carries no updates, as memberlist's stream ping carries none. Its ack
// comes back on the stream and counts as the probe's ack if it arrives
// before the probe's deadline (onAck); after that, it is stale, as
// memberlist's connection deadline is the end of the probe interval.
func (n *Node) sendFallback(target string) {
	p := &n.probe
	n.emit(&ProbeSent{Target: target, Seq: p.seq, Mode: ModeFallback})
	n.sendBare(target, &Message{Kind: Ping, Seq: p.seq, Target: target}, StreamOpen)
}

// sendBare sends msg over a reliable stream with no piggybacked updates
// (no accusation stapled either): memberlist sends its stream ping and
// the ack to it bare. It records message_sent like every send.
func (n *Node) sendBare(to string, msg *Message, t Transport) {
	msg.From = n.self
	msg.Updates = nil
	size := EncodedSize(msg)
	n.counters.MessagesSent++
	n.counters.BytesSent += uint64(size)
	id := n.counters.MessagesSent
	n.emit(&MessageSent{Peer: to, Message: msg.Kind, Bytes: size, Sender: n.self, ID: id, Seq: msg.Seq})
	n.streamEffect(to, msg, t, id)
}

// pickIntermediaries draws up to IndirectChecks distinct alive members
// other than this node and the target, uniformly (a partial Fisher–Yates
// over the candidates, so small clusters always find the ones they have).
func (n *Node) pickIntermediaries(target int32) []int32 {
	k := n.cfg.IndirectChecks
	if k <= 0 {
		return nil
	}
	cands := n.scratch[:0]
	for i := range n.members {
		if idx := int32(i); idx != n.selfIdx && idx != target && n.members[i].state() == Alive {
			cands = append(cands, idx)
		}
	}
	n.scratch = cands[:0]
	k = min(k, len(cands))
	for i := range k {
		j := i + int(below(n.rand, uint64(len(cands)-i)))
		cands[i], cands[j] = cands[j], cands[i]
	}
	return cands[:k]
}

// onProbeDeadline runs when the probe interval ended with no ack: update
// local health and suspect the target. Lifeguard: if intermediaries were
// asked, each one that failed to send its nack counts against this node's
// own health (their silence suggests the problem is here); with none asked
// the failed probe itself counts.
func (n *Node) onProbeDeadline(now int64) {
	p := &n.probe
	if !p.timedOut {
		n.onProbeTimeout()
	}
	p.active = false
	m := n.members[p.target]
	n.emit(&ProbeTimedOut{Target: n.id(p.target), Seq: p.seq, Mode: ModeIndirect})
	delta := 1
	if p.expectedNacks > 0 {
		delta = max(0, p.expectedNacks-p.nacks)
	}
	n.adjustHealth(delta)
	n.counters.ProbesFailed++
	n.applyUpdate(Update{Member: n.id(p.target), State: Suspect, Incarnation: m.inc(), From: n.self}, ReasonProbeFailed, now)
}

func (n *Node) probeSucceeded(mode string, now int64) {
	p := &n.probe
	p.active = false
	n.counters.ProbesAcked++
	n.adjustHealth(-1)
	n.emit(&ProbeAcked{Target: n.id(p.target), Seq: p.seq, Mode: mode, RTTNs: now - p.sentAt})
}

// onPing answers a ping addressed to this node. A ping meant for another
// member (a stale address in a real deployment) is counted and dropped.
func (n *Node) onPing(from string, msg *Message) {
	if msg.Target != n.self {
		n.counters.Misdirected++
		return
	}
	if n.viaStream { // a fallback probe: answer on its stream
		n.sendBare(from, &Message{Kind: Ack, Seq: msg.Seq}, StreamReply)
		return
	}
	n.send(from, &Message{Kind: Ack, Seq: msg.Seq})
}

// onAck completes the probe in flight or a relay; anything else (a late
// ack, a reconnect ping's ack) is counted.
func (n *Node) onAck(msg *Message, now int64) {
	if n.viaStream { // the fallback probe's answer
		if p := &n.probe; p.active && msg.Seq == p.seq {
			n.probeSucceeded(ModeFallback, now)
			return
		}
		n.counters.StaleAcks++
		return
	}
	if p := &n.probe; p.active && msg.Seq == p.seq {
		n.probeSucceeded(ModeDirect, now)
		return
	}
	for i := range n.relays {
		if r := n.relays[i]; r.seq == msg.Seq {
			n.relays = append(n.relays[:i], n.relays[i+1:]...)
			n.send(r.requester, &Message{Kind: IndirectAck, Seq: r.reqSeq, Target: r.target})
			return
		}
	}
	n.counters.StaleAcks++
}

// onPingReq pings the target on the requester's behalf and arms a timer
// for the nack. The relay waits this node's own (unscaled) probe timeout,
// as memberlist does.
func (n *Node) onPingReq(from string, msg *Message, now int64) {
	if msg.Target == n.self {
		n.send(from, &Message{Kind: IndirectAck, Seq: msg.Seq, Target: n.self})
		return
	}
	n.seq++
	deadline := satAdd(now, n.cfg.ProbeTimeoutNs)
	n.relays = append(n.relays, relay{seq: n.seq, requester: from, reqSeq: msg.Seq, target: msg.Target, deadline: deadline})
	n.send(msg.Target, &Message{Kind: Ping, Seq: n.seq, Target: msg.Target})
	n.arm(deadline, token(timerRelay, n.seq))
}

// concludeOverdueRelays nacks relays whose timers were not delivered.
func (n *Node) concludeOverdueRelays(now int64) {
	for i := 0; i < len(n.relays); {
		if r := n.relays[i]; now >= r.deadline {
			n.onRelayTimeout(r.seq & tokenPayloadMask)
			continue
		}
		i++
	}
}

// onRelayTimeout tells the requester that the target did not answer
// (without nacks, it just forgets the relay).
func (n *Node) onRelayTimeout(payload uint64) {
	for i := range n.relays {
		if r := n.relays[i]; r.seq&tokenPayloadMask == payload {
			n.relays = append(n.relays[:i], n.relays[i+1:]...)
			if n.cfg.NoNack {
				return
			}
			n.send(r.requester, &Message{Kind: IndirectAck, Seq: r.reqSeq, Target: r.target, Nack: true})
			return
		}
	}
}

// onIndirectAck completes the probe in flight, or counts a nack for it.
func (n *Node) onIndirectAck(msg *Message, now int64) {
	p := &n.probe
	if !p.active || msg.Seq != p.seq {
		n.counters.StaleAcks++
		return
	}
	if msg.Nack {
		p.nacks++
		return
	}
	n.probeSucceeded(ModeIndirect, now)
}
