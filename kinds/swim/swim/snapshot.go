package swim

import (
	"slices"
	"strconv"
)

// counters are monotone totals shown in the snapshot.
type counters struct {
	MessagesSent, MessagesReceived uint64
	BytesSent, BytesReceived       uint64
	Probes, ProbesAcked            uint64
	ProbesFailed, IndirectProbes   uint64
	Suspicions, Deaths             uint64
	Refutations                    uint64
	RefutationsImpossible          uint64
	Reasserts, Reconnects          uint64
	PushPulls                      uint64
	JoinRequests                   uint64
	SendFailed                     uint64
	StaleAcks, Misdirected         uint64
	Misrouted, Malformed           uint64
	InvalidUpdates, UnknownTimers  uint64
	// Added after snapshots were first recorded: written only when not
	// zero, so every snapshot of a run that never meets them (every
	// scenario's) is byte for byte what it was.
	RefusedMaxIncarnation, RefusedMembers uint64
}

func (c *counters) appendJSON(dst []byte) []byte {
	fields := [...]struct {
		name string
		v    uint64
	}{
		{"messages_sent", c.MessagesSent},
		{"messages_received", c.MessagesReceived},
		{"bytes_sent", c.BytesSent},
		{"bytes_received", c.BytesReceived},
		{"probes", c.Probes},
		{"probes_acked", c.ProbesAcked},
		{"probes_failed", c.ProbesFailed},
		{"indirect_probes", c.IndirectProbes},
		{"suspicions", c.Suspicions},
		{"deaths", c.Deaths},
		{"refutations", c.Refutations},
		{"refutations_impossible", c.RefutationsImpossible},
		{"reasserts", c.Reasserts},
		{"reconnects", c.Reconnects},
		{"push_pulls", c.PushPulls},
		{"join_requests", c.JoinRequests},
		{"send_failed", c.SendFailed},
		{"stale_acks", c.StaleAcks},
		{"misdirected", c.Misdirected},
		{"misrouted", c.Misrouted},
		{"malformed", c.Malformed},
		{"invalid_updates", c.InvalidUpdates},
		{"unknown_timers", c.UnknownTimers},
	}
	dst = append(dst, '{')
	for i, f := range fields {
		dst = strconv.AppendUint(appendKey(dst, f.name, i == 0), f.v, 10)
	}
	for _, f := range [...]struct {
		name string
		v    uint64
	}{
		{"refused_max_incarnation", c.RefusedMaxIncarnation},
		{"refused_members", c.RefusedMembers},
	} {
		if f.v != 0 {
			dst = strconv.AppendUint(appendKey(dst, f.name, false), f.v, 10)
		}
	}
	return append(dst, '}')
}

// Snapshot returns the node's introspection state (spec §9.3) as one JSON
// object with a fixed member order:
//
//	self, incarnation, health, health_max, joined,
//	members: [{id, state, incarnation[, meta_bytes][, suspicion_deadline_ns,
//	           confirmations, accusers]}] sorted by id,
//	broadcast_queue: {depth, bytes[, oversized]},
//	probe: {round, position, round_length, next_probe_ns[, target, seq]},
//	counters: {...}
//
// The gossip mode is deliberately absent: with no update ever queued, a
// legacy and a bounded node must produce identical bundles. meta_bytes and
// oversized appear only when not 0, so snapshots without metadata are
// unchanged by it. docs/swim.md describes every field.
func (n *Node) Snapshot() []byte {
	b := make([]byte, 0, 256+64*len(n.members))
	b = append(b, '{')
	b = appendJSONString(appendKey(b, "self", true), n.self)
	b = appendUintField(b, "incarnation", n.members[n.selfIdx].inc())
	b = appendIntField(b, "health", int64(n.health))
	b = appendIntField(b, "health_max", int64(n.cfg.AwarenessMaxMultiplier-1))
	b = appendBoolField(b, "joined", n.joined)
	b = appendKey(b, "members", false)
	b = append(b, '[')
	first := true
	for idx := range n.byID() {
		m := &n.members[idx]
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, '{')
		b = appendJSONString(appendKey(b, "id", true), n.id(idx))
		b = appendStringField(b, "state", m.state().String())
		b = appendUintField(b, "incarnation", m.inc())
		if ml := n.metaLen(m); ml > 0 {
			b = appendIntField(b, "meta_bytes", int64(ml))
		}
		if s := n.suspicion(m); s != nil {
			b = appendIntField(b, "suspicion_deadline_ns", s.deadline)
			b = appendIntField(b, "confirmations", int64(s.n))
			accusers := slices.Clone(s.accusers)
			slices.Sort(accusers)
			b = appendKey(b, "accusers", false)
			b = append(b, '[')
			for j, a := range accusers {
				if j > 0 {
					b = append(b, ',')
				}
				b = appendJSONString(b, a)
			}
			b = append(b, ']')
		}
		b = append(b, '}')
	}
	b = append(b, ']')
	b = appendKey(b, "broadcast_queue", false)
	b = append(b, '{')
	b = strconv.AppendInt(appendKey(b, "depth", true), int64(n.queue.len()), 10)
	b = appendIntField(b, "bytes", int64(n.queue.bytes))
	if n.queue.oversized > 0 {
		b = appendUintField(b, "oversized", n.queue.oversized)
	}
	b = append(b, '}')
	b = appendKey(b, "probe", false)
	b = append(b, '{')
	b = strconv.AppendUint(appendKey(b, "round", true), n.round, 10)
	b = appendIntField(b, "position", int64(min(n.orderPos, len(n.order))))
	b = appendIntField(b, "round_length", int64(len(n.order)))
	b = appendIntField(b, "next_probe_ns", n.nextProbeAt)
	if p := &n.probe; p.active {
		b = appendStringField(b, "target", n.id(p.target))
		b = appendUintField(b, "seq", p.seq)
	}
	b = append(b, '}')
	b = appendKey(b, "counters", false)
	b = n.counters.appendJSON(b)
	return append(b, '}')
}
