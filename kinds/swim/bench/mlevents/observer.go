// Package mlevents writes what an unmodified hashicorp/memberlist node
// does as detsim's SWIM records (docs/events.md): from the datagrams and
// stream messages its transport carries, its log lines, its delegates and
// its member map. The synctest witness (bench's witness_*_test.go) and
// the memberlistd daemon (kinds/swim/bench/cmd/memberlistd) both record through it,
// so memberlist's behaviour has one mapping onto detsim's schema, and
// both read kind_config with one mapping onto memberlist.Config
// (ParseConfig, Apply). docs/calibration.md ("memberlist as an outside
// witness") has the mapping and what it leaves out.
package mlevents

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/jsonw"
	"github.com/detsim/detsim/kinds/swim/swim"
)

// Observer turns what one memberlist node (one life of one peer) does
// into detsim's swim records. It is not safe for concurrent use: its
// owner calls it under one lock and stamps each call's time t under that
// lock, so that what it emits is in nondecreasing time.
type Observer struct {
	self            string
	probeIntervalNs int64
	emit            func(t int64, ev hosts.Event)

	view   map[string]View
	ctx    context
	probes map[uint32]*probe
	relay  map[string]int     // target → pings owed on behalf of ping_reqs
	indir  map[indirect]int64 // ping_reqs this node owes an answer to → when received
}

// context is what the node logged or was told recently: what gives a
// change of its view its reason. Each entry carries the time it was
// noted; the owner clears them (ResetContext, ExpireContext).
type context struct {
	probeFailed map[string]int64 // logged "Suspect X has failed, no acks received"
	timedOut    map[string]int64 // logged "Marking X as failed, suspect timeout reached"
	mergedAt    int64            // a push/pull merge (MergeDelegate.NotifyMerge); -1: none
	cause       string           // the refutation it logged
	causeAt     int64
}

// probe is one probe the node started.
type probe struct {
	target   string
	seq      uint32
	sentAt   int64
	deadline int64
	direct   bool // probe_timed_out direct recorded
	done     bool
	indirect *swim.ProbeSent
}

// indirect is a ping_req an intermediary owes an answer to.
type indirect struct {
	prober string
	seq    uint32
}

// NewObserver observes the node self, whose probe interval (at full
// health) is probeIntervalNs; emit receives every record (kind_tag
// "swim", host self). NB: an indirect probe_sent gains intermediaries
// after it is emitted, one per ping_req memberlist sends after the first:
// encode records a moment after emit (the witness at the end of the run,
// memberlistd at its next flush), never in emit.
func NewObserver(self string, probeIntervalNs int64, emit func(t int64, ev hosts.Event)) *Observer {
	o := &Observer{self: self, probeIntervalNs: probeIntervalNs, emit: emit, view: map[string]View{},
		probes: map[uint32]*probe{}, relay: map[string]int{}, indir: map[indirect]int64{}}
	o.ResetContext()
	return o
}

// message is message_sent / message_received in the SWIM records' bytes
// (kinds/swim/swim's MessageSent AppendJSON), with memberlist's message kinds.
type message struct {
	typ     string
	peer    string
	kind    string
	bytes   int
	updates int
}

func (m *message) Type() string { return m.typ }
func (m *message) AppendJSON(b []byte) []byte {
	b = append(b, `{"type":`...)
	b = jsonw.AppendString(b, m.typ)
	b = append(b, `,"peer":`...)
	b = jsonw.AppendString(b, m.peer)
	b = append(b, `,"message":`...)
	b = jsonw.AppendString(b, m.kind)
	b = append(b, `,"bytes":`...)
	b = jsonw.AppendInt(b, int64(m.bytes))
	b = append(b, `,"updates":`...)
	b = jsonw.AppendInt(b, int64(m.updates))
	return append(b, '}')
}

// pruneAbove bounds the probe and ping_req bookkeeping of a long run:
// past it, entries nothing can match any more are dropped.
const pruneAbove = 64

func (o *Observer) prune(t int64) {
	if len(o.probes) >= pruneAbove {
		for seq, p := range o.probes {
			// Past twice its deadline no ack counts and no log line of
			// memberlist's names it any more.
			if t > p.deadline+(p.deadline-p.sentAt) {
				delete(o.probes, seq)
			}
		}
	}
	if len(o.indir) >= pruneAbove {
		for k, at := range o.indir {
			// memberlist answers a ping_req (ack or nack) within its
			// probe timeout, shorter than the interval.
			if t-at > 4*o.probeIntervalNs {
				delete(o.indir, k)
			}
		}
	}
}

// PacketSent records a datagram of size bytes the node sends to peer
// to, decoded as m, with its health score (GetHealthScore, read before
// the owner's lock) at the time: a direct probe starts at a ping that is
// not an intermediary's relay (a relay is the intermediary's next ping
// to a ping_req's target), an indirect one at its first ping_req. It
// returns the message kind recorded.
func (o *Observer) PacketSent(t int64, to string, size int, m Msg, health int) string {
	kind := PacketKind(m)
	switch {
	case m.GossipOnly:
	case m.Type == mlPing:
		if o.relay[m.Node] > 0 {
			o.relay[m.Node]--
			break
		}
		o.prune(t)
		o.probes[m.Seq] = &probe{target: m.Node, seq: m.Seq, sentAt: t, deadline: t + o.probeIntervalNs*int64(health+1)}
		o.emit(t, &swim.ProbeSent{Target: m.Node, Seq: uint64(m.Seq), Mode: swim.ModeDirect})
	case m.Type == mlIndirectPing:
		if p := o.probes[m.Seq]; p != nil {
			if p.indirect == nil {
				p.indirect = &swim.ProbeSent{Target: p.target, Seq: uint64(p.seq), Mode: swim.ModeIndirect}
				o.emit(t, p.indirect)
			}
			p.indirect.Via = append(p.indirect.Via, to)
		}
	case m.Type == mlAck:
		if k := (indirect{to, m.Seq}); has(o.indir, k) {
			kind = "indirect_ack"
			delete(o.indir, k)
		}
	case m.Type == mlNack:
		delete(o.indir, indirect{to, m.Seq})
	}
	o.emit(t, &message{typ: "message_sent", peer: to, kind: kind, bytes: size, updates: m.Broadcasts})
	return kind
}

// ReceivedKind is the kind of a datagram m from peer from as its
// receiver can tell it: an ack answering one of this node's probes that
// does not come from the probe's target comes from an intermediary, so it
// is an indirect_ack. (The witness passes the sender's kind instead,
// which it knows.)
func (o *Observer) ReceivedKind(from string, m Msg) string {
	if !m.GossipOnly && m.Type == mlAck {
		if p := o.probes[m.Seq]; p != nil && p.target != from {
			return "indirect_ack"
		}
	}
	return PacketKind(m)
}

// PacketReceived records a datagram of size bytes from peer from,
// decoded as m, of the given kind: an ack with one of this node's probe
// seqs before the probe's deadline acks it, direct from the target,
// indirect from an intermediary; a ping_req makes this node owe a relay
// ping and an answer.
func (o *Observer) PacketReceived(t int64, from string, size int, m Msg, kind string) {
	o.emit(t, &message{typ: "message_received", peer: from, kind: kind, bytes: size, updates: m.Broadcasts})
	switch {
	case m.GossipOnly:
	case m.Type == mlIndirectPing:
		o.prune(t)
		o.relay[m.Node]++
		o.indir[indirect{from, m.Seq}] = t
	case m.Type == mlAck:
		if p := o.probes[m.Seq]; p != nil && !p.done && t <= p.deadline {
			mode := swim.ModeIndirect
			if from == p.target {
				mode = swim.ModeDirect
			}
			p.done = true
			o.emit(t, &swim.ProbeAcked{Target: p.target, Seq: uint64(p.seq), Mode: mode, RTTNs: t - p.sentAt})
		}
	}
}

// StreamSent records a stream message (StreamKind) of size bytes to
// peer to. A push/pull's member list, like a join_response's, is not
// counted as piggybacked updates.
func (o *Observer) StreamSent(t int64, to, kind string, size int) {
	o.emit(t, &message{typ: "message_sent", peer: to, kind: kind, bytes: size})
}

// StreamReceived records a stream message (StreamKind) of size bytes
// from peer from.
func (o *Observer) StreamReceived(t int64, from, kind string, size int) {
	o.emit(t, &message{typ: "message_received", peer: from, kind: kind, bytes: size})
}

func between(s, before, after string) (string, bool) {
	_, rest, ok := strings.Cut(s, before)
	if !ok {
		return "", false
	}
	v, _, ok := strings.Cut(rest, after)
	return v, ok
}

// LogLine reads one of memberlist's log lines (it writes one line per
// Write): the probe and suspicion outcomes and refutations it reports.
func (o *Observer) LogLine(t int64, line string) {
	if x, ok := between(line, "memberlist: Failed UDP ping: ", " (timeout reached)"); ok {
		if p := o.openProbe(x); p != nil && !p.direct {
			p.direct = true
			o.emit(t, &swim.ProbeTimedOut{Target: x, Seq: uint64(p.seq), Mode: swim.ModeDirect})
		}
	} else if x, ok := between(line, "memberlist: Suspect ", " has failed, no acks received"); ok {
		var seq uint64
		if p := o.openProbe(x); p != nil {
			p.done, seq = true, uint64(p.seq)
		}
		o.emit(t, &swim.ProbeTimedOut{Target: x, Seq: seq, Mode: swim.ModeIndirect})
		o.ctx.probeFailed[x] = t
	} else if x, ok := between(line, "memberlist: Was able to connect to ", " over TCP but UDP probes failed"); ok {
		if p := o.openProbe(x); p != nil {
			p.done = true
			o.emit(t, &swim.ProbeAcked{Target: x, Seq: uint64(p.seq), Mode: "tcp", RTTNs: t - p.sentAt})
		}
	} else if x, ok := between(line, "memberlist: Marking ", " as failed, suspect timeout reached"); ok {
		o.ctx.timedOut[x] = t
	} else if strings.Contains(line, "memberlist: Refuting a suspect message") {
		o.ctx.cause, o.ctx.causeAt = swim.CauseRefuteSuspect, t
	} else if strings.Contains(line, "memberlist: Refuting a dead message") {
		o.ctx.cause, o.ctx.causeAt = swim.CauseRefuteDead, t
	} else if strings.Contains(line, "memberlist: Refuting an alive message") {
		o.ctx.cause, o.ctx.causeAt = swim.CauseRefuteAlive, t
	}
}

// openProbe is the node's latest unfinished probe of target.
func (o *Observer) openProbe(target string) *probe {
	var best *probe
	for _, p := range o.probes {
		if p.target == target && !p.done && (best == nil || p.sentAt > best.sentAt) {
			best = p
		}
	}
	return best
}

// Merged notes a push/pull merge (MergeDelegate.NotifyMerge): the
// changes it makes are "join".
func (o *Observer) Merged(t int64) { o.ctx.mergedAt = t }

// ResetContext forgets what the node logged or was told: the witness
// calls it after every sample, when all of an instant's work is done.
func (o *Observer) ResetContext() {
	o.ctx = context{probeFailed: map[string]int64{}, timedOut: map[string]int64{}, mergedAt: -1}
}

// ExpireContext forgets what the node logged or was told before the
// time before: the daemon's samples race memberlist's goroutines, so a
// log line may come a moment before the change it explains is visible.
func (o *Observer) ExpireContext(before int64) {
	maps.DeleteFunc(o.ctx.probeFailed, func(_ string, at int64) bool { return at < before })
	maps.DeleteFunc(o.ctx.timedOut, func(_ string, at int64) bool { return at < before })
	if o.ctx.mergedAt < before {
		o.ctx.mergedAt = -1
	}
	if o.ctx.causeAt < before {
		o.ctx.cause = ""
	}
}

// Sample compares the node's member map (ReadView) with the view last
// recorded and records every change: a state_transition per member that
// changed, and a self_incarnation_bump when its own incarnation rose.
// memberlist forgets a dead member after GossipToTheDeadTime; a member
// missing from v is kept as last seen (detsim never forgets).
func (o *Observer) Sample(t int64, v map[string]View) {
	for _, name := range slices.Sorted(maps.Keys(v)) {
		nv := v[name]
		ov, known := o.view[name]
		if known && ov == nv {
			continue
		}
		o.emit(t, &swim.StateTransition{Observer: o.self, Subject: name, From: ov.State, To: nv.State,
			Incarnation: nv.Inc, Reason: o.reason(name, ov, nv, known)})
		if name == o.self && known && nv.Inc > ov.Inc {
			cause := cmp.Or(o.ctx.cause, swim.CauseRefuteSuspect)
			o.emit(t, &swim.SelfIncarnationBump{Old: ov.Inc, New: nv.Inc, Cause: cause})
		}
		o.view[name] = nv
	}
}

// View is the view last recorded: member → state and incarnation.
func (o *Observer) View() map[string]View { return maps.Clone(o.view) }

// reason gives a change of the node's view of subj its detsim reason,
// from what the node did or was told: a probe failure or a suspicion
// timeout explains one change each.
func (o *Observer) reason(subj string, ov, nv View, known bool) string {
	c := &o.ctx
	switch {
	case subj == o.self && !known:
		return swim.ReasonInitial
	case subj == o.self:
		return swim.ReasonRefuted
	case nv.State == swim.Suspect && has(c.probeFailed, subj):
		delete(c.probeFailed, subj)
		return swim.ReasonProbeFailed
	case nv.State == swim.Dead && has(c.timedOut, subj):
		delete(c.timedOut, subj)
		return swim.ReasonSuspicionTimeout
	case c.mergedAt >= 0:
		return swim.ReasonJoin
	case known && ov.State != swim.Alive && nv.State == swim.Alive && nv.Inc > ov.Inc:
		return swim.ReasonRefuted
	}
	return swim.ReasonGossip
}

func has[K comparable](m map[K]int64, k K) bool {
	_, ok := m[k]
	return ok
}
