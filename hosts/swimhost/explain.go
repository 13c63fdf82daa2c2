package swimhost

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/detsim/detsim/causal"
	"github.com/detsim/detsim/hosts/swim"
	"github.com/detsim/detsim/internal/vtime"
)

// explainer is the swim kind's causal.Explainer: how a view of a member
// came to be, from the records alone (message ids pair a message's ends,
// so it works on live and testbed bundles too). A view set by gossip is
// explained by the message received in the same step, that message's
// send, and the sender's own transition that queued the update, and so on
// back to a host whose own probe failed: its probe's timeout, what
// became of the ping and the ack (dropped, late by how much, behind which
// messages on the link), and, under the first transition, each refutation
// the accused member made and why it did not win.
type explainer struct{}

// Record types and the members the chains read.
const (
	tTransition = "state_transition"
	tSent       = "message_sent"
	tReceived   = "message_received"
	tProbeSent  = "probe_sent"
	tAcked      = "probe_acked"
	tTimedOut   = "probe_timed_out"
	tBump       = "self_incarnation_bump"
	tDropSend   = "drop_on_send"
	tDropDeliv  = "drop_on_delivery"
)

func (explainer) Keeps() []causal.Keep {
	msg := func(t string) causal.Keep {
		return causal.Keep{Type: t, Str: []string{"peer", "message"}, Num: []string{"bytes", "updates", "seq"}, IDs: []string{"id"}}
	}
	drop := func(t string) causal.Keep {
		return causal.Keep{Type: t, Str: []string{"from", "to", "reason"}, IDs: []string{"id"}}
	}
	return []causal.Keep{
		// Start-up views are most of a big run's records (a thousand peers'
		// million) and start no chain worth following: skipped.
		{Type: tTransition, Str: []string{"observer", "subject", "from", "to", "reason"}, Num: []string{"incarnation"}, Skip: [2]string{"reason", swim.ReasonInitial}},
		msg(tSent), msg(tReceived),
		// Only the ping_req fan-out: a direct probe is its ping's message_sent.
		{Type: tProbeSent, Str: []string{"target", "mode"}, Num: []string{"seq"}, Skip: [2]string{"mode", swim.ModeDirect}},
		{Type: tTimedOut, Str: []string{"target", "mode"}, Num: []string{"seq"}},
		{Type: tBump, Str: []string{"cause"}, Num: []string{"old", "new"}},
		drop(tDropSend), drop(tDropDeliv),
	}
}

func (explainer) Accepts() string {
	return "a swim state_transition record: W on one in the stepper's log, or detsim why --host its observer --subject its subject --at its time"
}

func (explainer) Target(ix *causal.Index, host, subject string, at int64) (causal.Rec, bool) {
	return ix.Latest(tTransition, host, math.MaxInt64, func(r causal.Rec) bool {
		return r.At() <= at && r.Str("subject") == subject
	})
}

// maxLinks bounds a chain: a legacy queue can pass one update around for
// minutes, and a chain is read by a person.
const maxLinks = 200

func (explainer) Explain(ix *causal.Index, r causal.Rec) (causal.Chain, bool) {
	if r.Type() != tTransition {
		return causal.Chain{}, false
	}
	b := &builder{ix: ix, seen: map[int64]bool{}}
	b.transition(r, true)
	return b.c, true
}

type builder struct {
	ix   *causal.Index
	c    causal.Chain
	seen map[int64]bool
}

func (b *builder) add(l causal.Link) { b.c.Links = append(b.c.Links, l) }

func (b *builder) stop(note string) { b.c.Note = note }

func (b *builder) origin(l causal.Link) {
	l.Origin = true
	b.add(l)
	b.c.Complete = true
}

// describe is a transition in words.
func describe(r causal.Rec) string {
	return fmt.Sprintf("%s sees %s %s→%s inc %d (%s)", r.Str("observer"), r.Str("subject"), r.Str("from"), r.Str("to"), r.Num("incarnation"), r.Str("reason"))
}

// transition adds r and what caused it. first is the chain's own record:
// the refutations of its accusation go under it.
func (b *builder) transition(r causal.Rec, first bool) {
	switch {
	case b.seen[r.Line()]:
		b.stop(fmt.Sprintf("record %d comes round again: the chain would loop", r.Line()))
		return
	case len(b.c.Links) >= maxLinks:
		b.stop(fmt.Sprintf("the chain passes %d links; stopped at record %d", maxLinks, r.Line()))
		return
	}
	b.seen[r.Line()] = true
	obs, subj, to := r.Str("observer"), r.Str("subject"), r.Str("to")
	switch r.Str("reason") {
	case swim.ReasonInitial:
		b.origin(r.Link(describe(r), "the start-up view: every declared member alive at incarnation 0"))
	case swim.ReasonProbeFailed:
		b.add(r.Link(describe(r), obs+"'s own probe of "+subj+" got no ack in the probe interval"))
		if first {
			b.refutations(r)
		}
		b.probe(r)
	case swim.ReasonSuspicionTimeout:
		b.add(r.Link(describe(r), obs+"'s suspicion of "+subj+" expired with no refutation heard"))
		if first {
			b.refutations(r)
		}
		prev, ok := b.ix.Latest(tTransition, obs, r.Line()-1, func(p causal.Rec) bool {
			return p.Str("subject") == subj && p.Str("to") == swim.Suspect.String()
		})
		if !ok {
			b.stop(obs + "'s suspicion of " + subj + " began before the records held")
			return
		}
		b.transition(prev, false)
	case swim.ReasonRefuted:
		if obs == subj {
			b.add(r.Link(describe(r), obs+" refuted an accusation against itself"))
			if bump, ok := b.sameStep(r, func(p causal.Rec) bool { return p.Type() == tBump && p.Host() == obs }); ok {
				b.origin(bump.Link(fmt.Sprintf("%s raised its incarnation %d→%d (%s)", obs, bump.Num("old"), bump.Num("new"), bump.Str("cause")), "a refutation starts here: only "+obs+" raises its own incarnation"))
				return
			}
			b.stop("no self_incarnation_bump in the same step")
			return
		}
		fallthrough
	default: // gossip, join, refuted news from another host
		if first && (to == swim.Suspect.String() || to == swim.Dead.String()) {
			b.add(r.Link(describe(r), ""))
			b.refutations(r)
		} else {
			b.add(r.Link(describe(r), ""))
		}
		b.carried(r)
	}
}

// carried follows news r learnt from a message: the message received in
// the same step, its send, and the sender's transition that queued it.
func (b *builder) carried(r causal.Rec) {
	obs, subj, to, inc := r.Str("observer"), r.Str("subject"), r.Str("to"), r.Num("incarnation")
	recv, ok := b.sameStep(r, func(p causal.Rec) bool {
		return p.Type() == tReceived && p.Host() == obs && (p.Num("updates") > 0 || p.Str("message") == swim.JoinResponse.String() || p.Str("message") == swim.JoinRequest.String())
	})
	if !ok {
		b.stop("no message received by " + obs + " in the same step carried it")
		return
	}
	sender := recv.Str("peer")
	b.add(recv.Link(fmt.Sprintf("%s received %s from %s: %s, %s B, %d updates", obs, idText(recv), sender, recv.Str("message"), group(recv.Num("bytes")), recv.Num("updates")), "it carried the update "+subj+" "+to+" inc "+strconv.FormatInt(inc, 10)))
	var send causal.Rec
	if code := recv.IDCode("id"); code != 0 {
		for _, p := range b.ix.WithID(code) {
			if p.Line() < recv.Line() && p.Type() == tSent && p.Host() == sender {
				send = p
			}
		}
	} else if send = b.anonymousSend(recv); !send.Valid() {
		b.stop("the receive names no message id and no send can only be it (a like message sent again before it)")
		return
	}
	if !send.Valid() {
		b.stop("the send of " + idText(recv) + " is before the records held")
		return
	}
	paired := ""
	if recv.IDCode("id") == 0 {
		paired = " (paired by sender, message, seq and size: the receive names no id)"
	}
	b.add(send.Link(fmt.Sprintf("%s sent %s to %s: %s, %s B, %d updates", sender, idText(send), obs, send.Str("message"), group(send.Num("bytes")), send.Num("updates")),
		"in flight "+dur(recv.At()-send.At())+paired))
	if sender == subj {
		// News about the sender itself: its own refutation or start.
		bump, ok := b.ix.Latest(tBump, subj, send.Line(), func(p causal.Rec) bool { return p.Num("new") == inc })
		if ok {
			b.origin(bump.Link(fmt.Sprintf("%s raised its incarnation %d→%d (%s)", subj, bump.Num("old"), bump.Num("new"), bump.Str("cause")), "the news starts here"))
			return
		}
	}
	held, ok := b.ix.Latest(tTransition, sender, send.Line(), func(p causal.Rec) bool {
		return p.Str("subject") == subj && p.Str("to") == to && p.Num("incarnation") == inc
	})
	switch {
	case ok:
		b.transition(held, false)
	case sender == subj:
		b.origin(send.Link(fmt.Sprintf("%s speaks for itself: %s at incarnation %d since it started", sender, to, inc), "the news starts here"))
	case to == swim.Alive.String() && inc == 0:
		b.origin(send.Link(fmt.Sprintf("%s had held %s alive at incarnation 0 since it started", sender, subj), "its start-up view (start-up views are not indexed): the news starts here"))
	default:
		b.stop(sender + "'s view " + subj + " " + to + " inc " + strconv.FormatInt(inc, 10) + " is from before the records held")
	}
}

// probe adds the probe whose failure made r: its timeouts, the ping and
// the ack and what became of them, the ping_reqs. The direct timeout is
// the origin.
func (b *builder) probe(r causal.Rec) {
	obs, subj := r.Str("observer"), r.Str("subject")
	last, ok := b.ix.Latest(tTimedOut, obs, r.Line(), func(p causal.Rec) bool { return p.Str("target") == subj })
	if !ok {
		b.stop("the probe's timeout is before the records held")
		return
	}
	seq := last.Num("seq")
	direct := last
	if last.Str("mode") != swim.ModeDirect {
		b.add(last.Link(fmt.Sprintf("%s's probe #%d of %s: the indirect probes timed out", obs, seq, subj), "no indirect_ack by the end of the probe interval"))
		b.reqs(last, seq)
		if d, ok := b.ix.Latest(tTimedOut, obs, last.Line()-1, func(p causal.Rec) bool {
			return p.Num("seq") == seq && p.Str("target") == subj && p.Str("mode") == swim.ModeDirect
		}); ok {
			direct = d
		}
	}
	ping, ok := b.ix.Latest(tSent, obs, direct.Line(), func(p causal.Rec) bool {
		return p.Num("seq") == seq && p.Str("peer") == subj && p.Str("message") == swim.Ping.String()
	})
	why := "the probe timeout passed with no ack from " + subj
	var details []causal.Link
	if ok {
		why, details = b.roundTrip(ping, direct)
	}
	l := direct.Link(fmt.Sprintf("%s's probe #%d of %s timed out (direct)", obs, seq, subj), why)
	b.origin(l)
	b.c.Links = append(b.c.Links, details...)
}

// roundTrip says why the probe's ping got no ack in time, and returns the
// records that show it as details: the ping's fate, then the ack's.
func (b *builder) roundTrip(ping, timeout causal.Rec) (string, []causal.Link) {
	obs, subj, seq := ping.Host(), ping.Str("peer"), ping.Num("seq")
	var out []causal.Link
	out = append(out, detail(ping.Link(fmt.Sprintf("%s sent ping %s to %s: %s B, %d updates", obs, idText(ping), subj, group(ping.Num("bytes")), ping.Num("updates")), "")))
	end, kind := b.fate(ping)
	switch kind {
	case fateDropped:
		out = append(out, detail(end.Link(fmt.Sprintf("the ping was dropped: %s", end.Str("reason")), "")))
		return "its ping " + idText(ping) + " was dropped (" + end.Str("reason") + ")", out
	case fateNone:
		return "its ping " + idText(ping) + " never arrived (still in flight at the end of the records held)" + b.behind(ping), out
	case fateUnseen:
		return "no receive of its ping " + idText(ping) + " is recorded (" + unseen + ")" + b.behind(ping), out
	}
	if end.At() > timeout.At() {
		out = append(out, detail(end.Link(fmt.Sprintf("%s received the ping %s after sending", subj, dur(end.At()-ping.At())), "")))
		return "its ping " + idText(ping) + " (" + group(ping.Num("bytes")) + " B) arrived " + dur(end.At()-timeout.At()) + " after the probe timeout" + b.behind(ping), out
	}
	out = append(out, detail(end.Link(fmt.Sprintf("%s received the ping in %s", subj, dur(end.At()-ping.At())), "")))
	ack, ok := b.ix.Earliest(tSent, subj, end.Line(), func(p causal.Rec) bool {
		return p.Str("peer") == obs && p.Str("message") == swim.Ack.String() && p.Num("seq") == seq
	})
	if !ok {
		return subj + " never acked the ping", out
	}
	out = append(out, detail(ack.Link(fmt.Sprintf("%s sent ack %s to %s: %s B, %d updates", subj, idText(ack), obs, group(ack.Num("bytes")), ack.Num("updates")), "")))
	aend, akind := b.fate(ack)
	switch akind {
	case fateDropped:
		out = append(out, detail(aend.Link("the ack was dropped: "+aend.Str("reason"), "")))
		return "the ack " + idText(ack) + " was dropped (" + aend.Str("reason") + ")", out
	case fateNone:
		return "the ack " + idText(ack) + " never arrived" + b.behind(ack), out
	case fateUnseen:
		return "no receive of the ack " + idText(ack) + " is recorded (" + unseen + ")" + b.behind(ack), out
	}
	out = append(out, detail(aend.Link(fmt.Sprintf("%s received the ack %s after the ping", obs, dur(aend.At()-ping.At())), "")))
	if aend.At() > timeout.At() {
		return "the ack " + idText(ack) + " (" + group(ack.Num("bytes")) + " B) arrived " + dur(aend.At()-timeout.At()) + " after the probe timeout" + b.behind(ack), out
	}
	return "the ack arrived in time, yet the probe timed out (a pause or receive backlog on " + obs + "?)", out
}

// reqs adds the probe's ping_reqs and their fates as details.
func (b *builder) reqs(timeout causal.Rec, seq int64) {
	obs := timeout.Host()
	start, ok := b.ix.Latest(tProbeSent, obs, timeout.Line(), func(p causal.Rec) bool {
		return p.Num("seq") == seq && p.Str("mode") == swim.ModeIndirect
	})
	if !ok {
		return
	}
	b.ix.Onward(tSent, obs, start.Line(), func(p causal.Rec) bool {
		if p.At() > start.At() {
			return false
		}
		if p.Str("message") == swim.PingReq.String() && p.Num("seq") == seq {
			what := "arrived"
			switch end, kind := b.fate(p); kind {
			case fateDropped:
				what = "dropped (" + end.Str("reason") + ")"
			case fateNone:
				what = "never arrived"
			case fateUnseen:
				what = "no receive recorded"
			default:
				what = "arrived after " + dur(end.At()-p.At())
			}
			b.add(detail(p.Link(fmt.Sprintf("%s sent ping_req %s via %s: %s", obs, idText(p), p.Str("peer"), what), "")))
		}
		return true
	})
}

type fateKind int

// unseen says why a real network's recording cannot tell a lost message
// from one it cannot pair.
const unseen = "lost, or not told apart from a like message: this recording's receives carry no id and the kernel's drops are not recorded"

const (
	fateNone fateKind = iota
	fateArrived
	fateDropped
	// fateUnseen: no receive can be paired with the send and the bundle
	// cannot say it was dropped (a real network's recording).
	fateUnseen
)

// fate finds the record that ended message m: its receive or a drop.
func (b *builder) fate(m causal.Rec) (causal.Rec, fateKind) {
	code := m.IDCode("id")
	if code == 0 {
		return b.anonymousReceive(m)
	}
	// An id names one message at a time (a fresh life counts from 1
	// again): the first end after the send is this one's.
ends:
	for _, p := range b.ix.WithID(code) {
		if p.Line() <= m.Line() {
			continue
		}
		switch p.Type() {
		case tReceived:
			return p, fateArrived
		case tDropSend, tDropDeliv:
			return p, fateDropped
		case tSent:
			break ends // the id sent again: a later life
		}
	}
	return b.anonymousReceive(m)
}

// pairWindow bounds how long after its send an id-less receive may still
// be a message's: longer than any queue a recorded run has shown, short
// enough that a retransmission minutes later is not taken for it.
const pairWindow = 60_000_000_000

// anonymousReceive pairs send m with a receive that carries no message id,
// as a process recorded on a real network writes them (the testbed's
// swimd: the wire carries no id). The receive must be the receiver's first
// one after the send from the same sender with the same message, seq and
// size, and m must be the only such send since the like receive before
// it: then it can only be this message. Ambiguous or absent, the fate is unknown, and on such a
// bundle unknown is not "in flight": the kernel's drops are not recorded.
func (b *builder) anonymousReceive(m causal.Rec) (causal.Rec, fateKind) {
	to, from, kind, seq, size := m.Str("peer"), m.Host(), m.Str("message"), m.Num("seq"), m.Num("bytes")
	same := func(p causal.Rec) bool {
		return p.Str("message") == kind && p.Num("seq") == seq && p.Num("bytes") == size
	}
	if !b.unidentified(to) && !b.unidentified(from) {
		return causal.Rec{}, fateNone // a simulated run: ids pair every receive
	}
	var recv causal.Rec
	b.ix.Onward(tReceived, to, m.Line(), func(p causal.Rec) bool {
		if p.At()-m.At() > pairWindow {
			return false
		}
		if p.Str("peer") == from && same(p) {
			recv = p
			return false
		}
		return true
	})
	if !recv.Valid() {
		return causal.Rec{}, fateUnseen
	}
	// The sends the receive could be: those like m after the receive of
	// the like message before it (a datagram is received once).
	var after int64
	if prev, ok := b.ix.Latest(tReceived, to, recv.Line()-1, func(p causal.Rec) bool {
		return p.Str("peer") == from && same(p)
	}); ok {
		after = prev.Line()
	}
	other := false
	b.ix.Backward(tSent, from, recv.Line(), func(p causal.Rec) bool {
		if p.Line() <= after || recv.At()-p.At() > pairWindow {
			return false
		}
		other = p.Line() != m.Line() && p.Str("peer") == to && same(p)
		return !other
	})
	if other {
		return causal.Rec{}, fateUnseen
	}
	return recv, fateArrived
}

// anonymousSend is the send an id-less receive can only be: the sender's
// latest like send to the receiver before it, when that send's own
// pairing (anonymousReceive) comes back to this receive.
func (b *builder) anonymousSend(recv causal.Rec) causal.Rec {
	obs, sender := recv.Host(), recv.Str("peer")
	send, ok := b.ix.Latest(tSent, sender, recv.Line(), func(p causal.Rec) bool {
		return p.Str("peer") == obs && p.Str("message") == recv.Str("message") && p.Num("seq") == recv.Num("seq") && p.Num("bytes") == recv.Num("bytes")
	})
	if !ok || recv.At()-send.At() > pairWindow {
		return causal.Rec{}
	}
	if end, kind := b.fate(send); kind != fateArrived || end.Line() != recv.Line() {
		return causal.Rec{}
	}
	return send
}

// unidentified says whether host's receives carry no message ids (its
// first receive stands for all: a recording writes them one way).
func (b *builder) unidentified(host string) bool {
	r, ok := b.ix.Earliest(tReceived, host, 0, nil)
	return ok && r.IDCode("id") == 0
}

// behind says what was ahead of message m on its link when it was sent:
// the messages sent before it on the same edge and not yet delivered or
// dropped, which it waited behind (serialisation on a thin link).
func (b *builder) behind(m causal.Rec) string {
	from, to := m.Host(), m.Str("peer")
	var n, bytes int64
	var biggest causal.Rec
	// Look back over the last ten seconds of sends on the edge (a few
	// hundred at most: a person reads the sum and the largest).
	seen := 0
	b.ix.Backward(tSent, from, m.Line()-1, func(p causal.Rec) bool {
		if m.At()-p.At() > 10_000_000_000 || seen == 256 {
			return false
		}
		if p.Str("peer") != to {
			return true
		}
		seen++
		// An unseen message may have been lost: it is not counted ahead.
		if end, kind := b.fate(p); kind == fateNone || (kind != fateUnseen && end.At() > m.At()) {
			n++
			bytes += p.Num("bytes")
			if !biggest.Valid() || p.Num("bytes") > biggest.Num("bytes") {
				biggest = p
			}
		}
		return true
	})
	if n == 0 {
		return "; nothing was ahead of it on " + from + "→" + to
	}
	return fmt.Sprintf("; it left behind %d messages (%s B) still in flight on %s→%s, the largest %s (%s B)", n, group(bytes), from, to, idText(biggest), group(biggest.Num("bytes")))
}

// refutations lists, under the chain's first record, what the accused
// member did to refute the accusation before it, and why each did not
// win at the observer.
func (b *builder) refutations(r causal.Rec) {
	obs, subj, inc := r.Str("observer"), r.Str("subject"), r.Num("incarnation")
	var bumps []causal.Rec
	b.ix.Backward(tBump, subj, r.Line()-1, func(p causal.Rec) bool {
		if r.At()-p.At() > 120_000_000_000 || len(bumps) == 5 {
			return false
		}
		bumps = append(bumps, p)
		return true
	})
	for _, bump := range bumps {
		n := bump.Num("new")
		why := ""
		switch {
		case n <= inc:
			why = fmt.Sprintf("did not win: incarnation %d does not beat the accusation's %d", n, inc)
		default:
			why = fmt.Sprintf("did not win: %s had heard no alive at incarnation %d by then", obs, n)
		}
		b.add(detail(bump.Link(fmt.Sprintf("%s refuted: incarnation %d→%d (%s)", subj, bump.Num("old"), n, bump.Str("cause")), why)))
	}
}

func detail(l causal.Link) causal.Link { l.Depth = 1; return l }

// sameStep is the newest record before r, in r's step, meeting ok: a
// step's records are contiguous, so it is the newest at r's time (and
// step, when the index knows steps).
func (b *builder) sameStep(r causal.Rec, ok func(causal.Rec) bool) (causal.Rec, bool) {
	var found causal.Rec
	b.ix.Back(r.Line()-1, func(p causal.Rec) bool {
		if p.At() != r.At() || p.Step() != r.Step() {
			return false
		}
		if ok(p) {
			found = p
			return false
		}
		return true
	})
	return found, found.Valid()
}

func idText(r causal.Rec) string {
	if id := r.ID("id"); id != "" {
		return id
	}
	return "(no id)"
}

// group writes n with its digits grouped in threes, as the stepper does.
func group(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var out []byte
	for i := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ' ')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}

// dur writes a duration of virtual time: ms to a tenth below ten
// seconds (integers only: this package is inside the determinism fence).
func dur(ns int64) string {
	if ns < 10_000_000_000 && ns > -10_000_000_000 {
		sign := ""
		if ns < 0 {
			sign, ns = "-", -ns
		}
		return sign + strconv.FormatInt(ns/1_000_000, 10) + "." + strconv.FormatInt(ns/100_000%10, 10) + " ms"
	}
	return vtime.Seconds(ns)
}
