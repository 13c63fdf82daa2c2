package swim

import (
	"encoding/binary"
	"strconv"
)

// Introspection for viewers (the stepper's "why" view, a service's debug
// endpoint): who accused a member, what waits in the broadcast queue,
// what a timer is for, what a message on the wire is. Read-only and pure,
// like the rest of the package; nothing here changes the node or draws
// randomness, so calling it between steps cannot change a run.

// Accuser returns the member that accused member id of its current
// suspect or dead state (the node whose probe failed or whose suspicion
// expired, as the update that brought the news named it), and ok false
// for a member the node holds alive or has never heard of.
func (n *Node) Accuser(id string) (accuser string, ok bool) {
	idx, found := n.lookup(id)
	if !found {
		return "", false
	}
	m := &n.members[idx]
	if m.state() != Suspect && m.state() != Dead {
		return "", false
	}
	return n.accuser(m), true
}

// QueuedUpdate is one broadcast waiting in the queue: the news, how many
// messages have carried it so far, and its encoded size.
type QueuedUpdate struct {
	Member      string
	State       State
	Incarnation uint64
	From        string // the accuser of a suspect or dead update
	Transmits   int
	Bytes       int
}

// BroadcastQueue returns the first limit queued updates in the order they
// go out (fewest transmits, then largest, then newest first, as
// piggybacking takes them) and how many are queued in all. limit < 0
// returns every one.
func (n *Node) BroadcastQueue(limit int) ([]QueuedUpdate, int) {
	items := n.queue.items
	k := len(items)
	if limit >= 0 {
		k = min(k, limit)
	}
	out := make([]QueuedUpdate, k)
	for i, b := range items[:k] {
		out[i] = QueuedUpdate{Member: b.u.Member, State: b.u.State, Incarnation: b.u.Incarnation, From: b.u.From, Transmits: b.transmits, Bytes: b.size}
	}
	return out, len(items)
}

// DescribeTimer says what the timer the node armed with token is for:
// "probe timeout → b #12", "probe deadline → b #12", "relay ping → c #40
// for a", "suspicion of c"; a timer that will find nothing to do when it
// fires (its probe answered, its suspicion refuted or re-armed) says
// "(stale)".
func (n *Node) DescribeTimer(tok uint64) string {
	payload := tok & tokenPayloadMask
	p := &n.probe
	probe := func(what string, live bool) string {
		s := what
		if p.active && p.seq&tokenPayloadMask == payload {
			s += " → " + n.id(p.target)
		}
		s += " #" + strconv.FormatUint(payload, 10)
		if !live {
			s += " (stale)"
		}
		return s
	}
	switch tok >> 56 {
	case timerProbeTimeout:
		return probe("probe timeout", p.active && !p.timedOut && p.seq&tokenPayloadMask == payload)
	case timerProbeDeadline:
		return probe("probe deadline", p.active && p.seq&tokenPayloadMask == payload)
	case timerRelay:
		for _, r := range n.relays {
			if r.seq&tokenPayloadMask == payload {
				return "relay ping → " + r.target + " #" + strconv.FormatUint(r.seq, 10) + " for " + r.requester
			}
		}
		return "relay ping #" + strconv.FormatUint(payload, 10) + " (stale)"
	case timerSuspicion:
		idx, gen := int32(payload>>32), uint32(payload)
		if idx < 0 || int(idx) >= len(n.members) {
			return "suspicion (unknown member)"
		}
		m := &n.members[idx]
		s := "suspicion of " + n.id(idx)
		if susp := n.suspicion(m); susp == nil || susp.gen != gen {
			s += " (stale)"
		}
		return s
	}
	return "unknown timer"
}

// DescribeWire names an encoded message from its first bytes without
// decoding it: its kind, the probe seq for the kinds that carry one, and
// the target of a ping_req or indirect_ack ("ping #12", "ping_req #12 →
// c", "indirect_ack #12 → c nack", "join_response"). Bytes it cannot read
// give "".
func DescribeWire(b []byte) string {
	if len(b) < 3 || b[0] != WireVersion {
		return ""
	}
	k := MessageKind(b[1])
	if k < Ping || k > JoinResponse {
		return ""
	}
	s := k.String()
	if !k.carriesSeq() {
		return s
	}
	off := 3 + int(b[2]) // version, kind, from
	if len(b) < off+8 {
		return s
	}
	s += " #" + strconv.FormatUint(binary.BigEndian.Uint64(b[off:]), 10)
	off += 8
	if k == PingReq || k == IndirectAck {
		if len(b) > off && len(b) >= off+1+int(b[off]) {
			s += " → " + string(b[off+1:off+1+int(b[off])])
			off += 1 + int(b[off])
			if k == IndirectAck && len(b) > off && b[off]&flagNack != 0 {
				s += " nack"
			}
		}
	}
	return s
}
