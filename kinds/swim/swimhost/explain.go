package swimhost

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/detsim/detsim/causal"
	"github.com/detsim/detsim/internal/vtime"
	"github.com/detsim/detsim/kinds/swim/swim"
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
	tMutation   = "mutation"
	tQueue      = "broadcast_queue"
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
		// A scenario's faults (a pause holds a host's receives): a chain
		// that reaches one starts there.
		{Type: tMutation, Str: []string{"kind", "peer"}, Num: []string{"duration_ns"}},
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

// maxLinks bounds a chain's own links (details aside): a legacy queue can pass one update around for
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
	// frame is the transition being built, to learn where the next one
	// it reaches starts (see sub).
	frame *frame
}

func (b *builder) add(l causal.Link) { b.c.Links = append(b.c.Links, l) }

// main counts the chain's own links, not the details under them (a
// probe round's branches, a message's queued updates).
func (b *builder) main() int {
	n := 0
	for _, l := range b.c.Links {
		if l.Depth == 0 {
			n++
		}
	}
	return n
}

// sub is the chain below a transition that is not the chain's first, as
// built once for a bundle: the transition's own links up to the next
// transition it reached, then that one's, down to an origin. Many chains
// of a run pass through the same transitions (every gossiped suspicion
// through the probe that failed), and each built the same links again.
// It depends on the chain around it only through the transitions that
// chain has already passed (a loop) and the links it has (maxLinks): a
// sub used where neither could stop it reads as built afresh.
type sub struct {
	line  int64
	links []causal.Link
	next  *sub
	mains int // depth-0 links from here to the origin
}

type frame struct {
	reached bool // a next transition was reached
	nextAt  int  // where its links start
	next    *sub // its sub, when it has one
}

// fits says whether s can stand for what the chain would build from here.
func (b *builder) fits(s *sub) bool {
	if b.main()+s.mains >= maxLinks {
		return false
	}
	for n := s; n != nil; n = n.next {
		if b.seen[n.line] {
			return false
		}
	}
	return true
}

func (b *builder) replay(s *sub) {
	for n := s; n != nil; n = n.next {
		b.seen[n.line] = true
		b.c.Links = append(b.c.Links, n.links...)
	}
	b.c.Complete = true
}

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
	parent := b.frame
	if parent != nil {
		parent.reached, parent.nextAt = true, len(b.c.Links)
	}
	subs := b.tables().subs
	if !first {
		if s := subs[r.Line()]; s != nil && b.fits(s) {
			b.replay(s)
			if parent != nil {
				parent.next = s
			}
			return
		}
	}
	f := &frame{}
	b.frame = f
	start := len(b.c.Links)
	b.build(r, first)
	b.frame = parent
	if first || !b.c.Complete || f.reached && f.next == nil {
		return
	}
	end := len(b.c.Links)
	if f.reached {
		end = f.nextAt
	}
	s := &sub{line: r.Line(), links: slices.Clone(b.c.Links[start:end]), next: f.next}
	for _, l := range s.links {
		if l.Depth == 0 {
			s.mains++
		}
	}
	if f.next != nil {
		s.mains += f.next.mains
	}
	subs[r.Line()] = s
	if parent != nil {
		parent.next = s
	}
}

func (b *builder) build(r causal.Rec, first bool) {
	switch {
	case b.seen[r.Line()]:
		b.stop(fmt.Sprintf("record %d comes round again: the chain would loop", r.Line()))
		return
	case b.main() >= maxLinks:
		b.stop(fmt.Sprintf("the chain passes %d links; stopped at record %d", maxLinks, r.Line()))
		return
	}
	b.seen[r.Line()] = true
	obs, subj, to := r.Str("observer"), r.Str("subject"), r.Str("to")
	switch r.Str("reason") {
	case swim.ReasonInitial:
		b.origin(r.Link(describe(r), "the start-up view: every declared member alive at incarnation 0"))
	case swim.ReasonProbeFailed:
		b.add(r.Link(describe(r), obs+"'s own probe of "+subj+" got no ack in time"))
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

// probe adds the probe round whose failure made r: the round itself,
// every branch of it (the direct ping and its ack, and each ping_req
// through a helper, the helper's ping, the ack and the indirect_ack),
// each message with its timing against the probe timeout and the end of
// the probe interval. When a reply came back late, the chain goes on to
// the message that lost the most time and why it was big (late).
func (b *builder) probe(r causal.Rec) {
	obs, subj := r.Str("observer"), r.Str("subject")
	last, ok := b.ix.Latest(tTimedOut, obs, r.Line(), func(p causal.Rec) bool { return p.Str("target") == subj })
	if !ok {
		b.stop("the probe's timeout is before the records held")
		return
	}
	seq := last.Num("seq")
	direct := last
	indirect := last.Str("mode") != swim.ModeDirect
	if indirect {
		if d, ok := b.ix.Latest(tTimedOut, obs, last.Line()-1, func(p causal.Rec) bool {
			return p.Num("seq") == seq && p.Str("target") == subj && p.Str("mode") == swim.ModeDirect
		}); ok {
			direct = d
		}
	}
	var branches []branch
	if ping, ok := b.lastSend(obs, subj, swim.Ping.String(), seq, direct.Line()); ok {
		branches = append(branches, b.directBranch(ping))
	}
	if indirect {
		branches = append(branches, b.indirectBranches(last, seq)...)
	}
	end := last.At()
	text := fmt.Sprintf("%s's probe #%d of %s timed out: no ack by the end of the probe interval", obs, seq, subj)
	if !indirect {
		text = fmt.Sprintf("%s's probe #%d of %s timed out (direct)", obs, seq, subj)
	}
	var says []string
	for _, br := range branches {
		says = append(says, br.say(end))
	}
	why := strings.Join(says, "; ")
	if len(branches) == 0 {
		why = "the probe timeout passed with no ack from " + subj
	}
	l := last.Link(text, why)
	var details []causal.Link
	for _, br := range branches {
		details = append(details, b.branchLinks(br, direct.At(), end)...)
	}
	slow, br, ok := decisive(branches, end)
	if !ok {
		// Every branch was lost on the way: the network's drop (or a
		// message never seen again) is where the chain starts.
		b.origin(l)
		b.c.Links = append(b.c.Links, details...)
		return
	}
	b.add(l)
	b.c.Links = append(b.c.Links, details...)
	b.late(slow, br, end)
}

// hop is one message of a probe round's branch and what became of it.
type hop struct {
	send, end causal.Rec
	kind      fateKind
}

func (h hop) flight() int64 { return h.end.At() - h.send.At() }

// branch is one way a probe round asked for an ack: the direct ping, or
// a ping_req through one helper. Its hops are its messages in order;
// done says the last one was the reply and it reached the prober.
type branch struct {
	via  string // "" for the direct probe
	hops []hop
	done bool
	// stop says, when the branch ended short of the prober, where.
	stop string
	// nacked: the helper's own timeout passed before the target's ack
	// reached it, by lateBy; the ack was late, not lost.
	nacked bool
	lateBy int64
}

func (br branch) name() string {
	if br.via == "" {
		return "direct"
	}
	return "via " + br.via
}

// say is the branch's outcome in one clause, against the end of the
// probe interval.
func (br branch) say(end int64) string {
	if !br.done {
		return br.name() + ": " + br.stop
	}
	h := br.hops[len(br.hops)-1]
	if at := h.end.At(); at > end {
		return fmt.Sprintf("%s: the %s %s arrived %s after the end of the probe interval", br.name(), h.send.Str("message"), idText(h.send), dur(at-end))
	}
	return fmt.Sprintf("%s: the %s %s arrived in time, %s before the end of the probe interval, yet the probe failed (a pause or a receive backlog on %s?)", br.name(), h.send.Str("message"), idText(h.send), dur(end-h.end.At()), h.end.Host())
}

func (b *builder) hop(m causal.Rec) hop {
	end, kind := b.fate(m)
	return hop{send: m, end: end, kind: kind}
}

// arrived appends m's hop to br and says whether it arrived; when it did
// not, br.stop says what became of it.
func (b *builder) arrived(br *branch, m causal.Rec) bool {
	h := b.hop(m)
	br.hops = append(br.hops, h)
	what := m.Str("message") + " " + idText(m)
	switch h.kind {
	case fateDropped:
		br.stop = "its " + what + " was dropped (" + h.end.Str("reason") + ")"
	case fateNone:
		br.stop = "its " + what + " never arrived (still in flight at the end of the records held)"
	case fateUnseen:
		br.stop = "no receive of its " + what + " is recorded (" + unseen + ")"
	default:
		return true
	}
	return false
}

// directBranch follows the probe's ping and the target's ack.
func (b *builder) directBranch(ping causal.Rec) branch {
	obs, subj, seq := ping.Host(), ping.Str("peer"), ping.Num("seq")
	br := branch{}
	if !b.arrived(&br, ping) {
		return br
	}
	recv := br.hops[0].end
	ack, ok := b.firstSend(subj, obs, swim.Ack.String(), seq, recv.Line()-1)
	if !ok {
		br.stop = subj + " never acked the ping"
		return br
	}
	br.done = b.arrived(&br, ack)
	return br
}

// indirectBranches follows each ping_req of the round: to the helper,
// the helper's ping of the target (sent as it took the request), the
// target's ack, and the helper's indirect_ack (sent as it took the ack;
// one sent before is the nack of the helper's own timeout).
func (b *builder) indirectBranches(timeout causal.Rec, seq int64) []branch {
	obs, subj := timeout.Host(), timeout.Str("target")
	start, ok := b.ix.Latest(tProbeSent, obs, timeout.Line(), func(p causal.Rec) bool {
		return p.Num("seq") == seq && p.Str("mode") == swim.ModeIndirect
	})
	if !ok {
		return nil
	}
	var reqs []causal.Rec
	b.ix.Onward(tSent, obs, start.Line(), func(p causal.Rec) bool {
		if p.At() > start.At() {
			return false
		}
		if p.Str("message") == swim.PingReq.String() && p.Num("seq") == seq {
			reqs = append(reqs, p)
		}
		return true
	})
	var out []branch
	for _, req := range reqs {
		relay := req.Str("peer")
		br := branch{via: relay}
		out = append(out, br)
		if !b.arrived(&br, req) {
			out[len(out)-1] = br
			continue
		}
		got := br.hops[0].end
		var ping causal.Rec
		b.ix.Onward(tSent, relay, got.Line(), func(p causal.Rec) bool {
			if p.At() > got.At() {
				return false
			}
			if p.At() == got.At() && p.Str("peer") == subj && p.Str("message") == swim.Ping.String() {
				ping = p
				return false
			}
			return true
		})
		ok := ping.Valid()
		switch {
		case !ok:
			br.stop = relay + " sent no ping to " + subj + " as it took the request"
		case b.arrived(&br, ping):
			pinged := br.hops[1].end
			ack, ok := b.firstSend(subj, relay, swim.Ack.String(), ping.Num("seq"), pinged.Line()-1)
			if !ok {
				br.stop = subj + " never acked " + relay + "'s ping"
				break
			}
			if !b.arrived(&br, ack) {
				break
			}
			acked := br.hops[2].end
			iack, ok := b.firstSend(relay, obs, swim.IndirectAck.String(), seq, got.Line())
			if !ok || iack.At() > acked.At() {
				br.stop = relay + " sent no indirect_ack as the ack came"
				break
			}
			if iack.Line() < acked.Line() {
				br.stop = fmt.Sprintf("%s's own timeout passed first: its indirect_ack %s was a nack, %s before %s's ack arrived", relay, idText(iack), dur(acked.At()-iack.At()), subj)
				br.nacked, br.lateBy = true, acked.At()-iack.At()
				break
			}
			br.done = b.arrived(&br, iack)
		}
		out[len(out)-1] = br
	}
	return out
}

// branchLinks shows a branch as details: each message, when it arrived,
// the reply against the probe timeout and the end of the interval.
func (b *builder) branchLinks(br branch, timeout, end int64) []causal.Link {
	var out []causal.Link
	for i, h := range br.hops {
		m := h.send
		text := fmt.Sprintf("[%s] %s sent %s %s to %s: %s B, %d updates", br.name(), m.Host(), m.Str("message"), idText(m), m.Str("peer"), group(m.Num("bytes")), m.Num("updates"))
		var why string
		switch h.kind {
		case fateDropped:
			why = "dropped: " + h.end.Str("reason")
		case fateNone:
			why = "never arrived"
		case fateUnseen:
			why = "no receive recorded"
		default:
			why = "arrived after " + dur(h.flight())
			switch at := h.end.At(); {
			case i == len(br.hops)-1 && br.done && at > end:
				why += ", " + dur(at-end) + " after the end of the probe interval"
			case i == len(br.hops)-1 && br.done:
				why += ", in time"
			case br.via == "" && i == 0 && at > timeout:
				why += ", " + dur(at-timeout) + " after the probe timeout"
			}
		}
		out = append(out, detail(m.Link(text, why)))
	}
	if !br.done && br.stop != "" && len(br.hops) > 0 && br.hops[len(br.hops)-1].kind == fateArrived {
		last := br.hops[len(br.hops)-1].end
		out = append(out, detail(last.Link("["+br.name()+"] "+br.stop, "")))
	}
	return out
}

// decisive is the message that cost the round its ack: in the branch
// whose reply came back first (late), or else in the one whose target's
// ack missed its helper's timeout by least, the hop that took longest.
// Only a message sent by the end of the interval can have cost it the
// ack. None when every branch was lost on the way.
func decisive(brs []branch, end int64) (hop, branch, bool) {
	var best branch
	found := false
	for _, br := range brs {
		if br.done && (!found || br.hops[len(br.hops)-1].end.At() < best.hops[len(best.hops)-1].end.At()) {
			best, found = br, true
		}
	}
	for _, br := range brs {
		if !found || best.nacked && br.nacked && br.lateBy < best.lateBy {
			if br.nacked {
				best, found = br, true
			}
		}
	}
	if !found {
		return hop{}, branch{}, false
	}
	var slow hop
	for _, h := range best.hops {
		if h.kind == fateArrived && h.send.At() <= end && (!slow.send.Valid() || h.flight() > slow.flight()) {
			slow = h
		}
	}
	return slow, best, slow.send.Valid()
}

// late adds the message that made the round late, why it was slow (what
// was ahead of it on its link, how fast that link moved bytes) and goes
// on to why it was big: the updates it carried.
func (b *builder) late(h hop, br branch, end int64) {
	m := h.send
	from, to := m.Host(), m.Str("peer")
	if pause, ok := b.ix.Latest(tMutation, "", h.end.Line(), func(p causal.Rec) bool {
		return p.Str("kind") == "PeerPause" && p.Str("peer") == to && p.At()+p.Num("duration_ns") >= m.At() && p.At() <= end
	}); ok {
		b.origin(pause.Link(fmt.Sprintf("%s was paused for %s (PeerPause)", to, dur(pause.Num("duration_ns"))),
			fmt.Sprintf("%s %s from %s reached %s only as it resumed, %s after it was sent", m.Str("message"), idText(m), from, to, dur(h.flight()))))
		return
	}
	why := fmt.Sprintf("of the branches, %s came back first (its reply %s after the end of the probe interval); this message lost it the most time: %s on %s→%s",
		br.name(), dur(br.hops[len(br.hops)-1].end.At()-end), dur(h.flight()), from, to)
	if br.nacked {
		why = fmt.Sprintf("of the branches, %s came nearest (%s's ack reached %s %s after its timeout); this message lost it the most time: %s on %s→%s",
			br.name(), br.hops[len(br.hops)-1].send.Host(), br.via, dur(br.lateBy), dur(h.flight()), from, to)
	}
	ahead := b.behind(m)
	why += ahead
	if strings.HasPrefix(ahead, "; nothing was ahead") {
		why += b.pace(h)
	}
	why += reverse(h, br)
	l := m.Link(fmt.Sprintf("%s sent %s %s to %s: %s B, %d updates", from, m.Str("message"), idText(m), to, group(m.Num("bytes")), m.Num("updates")), why)
	if m.Num("updates") == 0 {
		// A bare message, slow on its link: the chain starts at the link.
		b.origin(l)
		return
	}
	b.add(l)
	b.queued(m)
}

// pace says how fast m's link moved bytes, from m's flight against the
// quickest flight on the same link of a message a quarter its size or
// less: the difference in bytes over the difference in time.
func (b *builder) pace(h hop) string {
	m := h.send
	l := b.linkLog(m.Host(), m.Str("peer"))
	var small hop
	// Oldest first, so that of equal flights the newest is taken.
	for i := range l.sends {
		p := l.sends[i]
		if p.Line() >= m.Line() {
			break
		}
		if p.Num("bytes")*4 > m.Num("bytes") {
			continue
		}
		if s := b.linkHop(l, i); s.kind == fateArrived && (!small.send.Valid() || s.flight() <= small.flight()) {
			small = s
		}
	}
	if !small.send.Valid() {
		return ""
	}
	dt, db := h.flight()-small.flight(), m.Num("bytes")-small.send.Num("bytes")
	if dt <= 0 || db <= 0 {
		return ""
	}
	return fmt.Sprintf("; the link moves about %s B/s (a %s B %s took %s on it, %s)", group(db*1_000_000_000/dt), group(small.send.Num("bytes")), small.send.Str("message"), dur(small.flight()), idText(small.send))
}

// reverse compares m's flight with the branch's message the other way
// on the same pair of hosts: a direction that takes far longer per byte
// is the thin one, and its bandwidth, not its latency, held the message.
func reverse(h hop, br branch) string {
	m := h.send
	for _, o := range br.hops {
		if o.send.Host() != m.Str("peer") || o.send.Str("peer") != m.Host() || o.kind != fateArrived {
			continue
		}
		s := fmt.Sprintf("; the other way, %s→%s, %s %s (%s B) took %s", o.send.Host(), m.Host(), o.send.Str("message"), idText(o.send), group(o.send.Num("bytes")), dur(o.flight()))
		if h.flight()*o.send.Num("bytes") > 2*o.flight()*m.Num("bytes") {
			s += fmt.Sprintf(": %s→%s moves each byte more than twice as slowly, a thin link", m.Host(), m.Str("peer"))
		}
		return s
	}
	return ""
}

// maxQueued bounds the updates listed under a message: a legacy queue at
// a thousand peers holds hundreds.
const maxQueued = 40

// queued explains m's size: the updates its sender had queued when it
// sent m (each of the sender's own transitions queues one), since when,
// how many times each had been sent, and which were stale. When the
// message carried every update ever queued, the queue retired none, and
// the chain ends at the first: the start of the run. Otherwise it goes on
// to why the oldest update it carried was queued.
func (b *builder) queued(m causal.Rec) {
	sender, carried := m.Host(), m.Num("updates")
	if b.ix.Forgotten() > 0 {
		b.stop(fmt.Sprintf("the updates %s queued before record %d are no longer held", sender, b.ix.Forgotten()))
		return
	}
	q := b.queueLog(sender)
	pushes := q.pushes[:q.queuedBy(m.Line())]
	if len(pushes) == 0 {
		b.stop(fmt.Sprintf("%s carried %d updates, and no update %s queued is recorded before it", idText(m), carried, sender))
		return
	}
	// Each send after an update was queued that carried every update
	// queued by then carried that one: its transmits.
	sent := q.sentBy(m.Line())
	full := q.full[sent]
	fullAt := func(k int) int32 { return q.full[q.sentBy(pushes[k].Line())] }
	partial := q.part[sent] > q.part[q.sentBy(pushes[0].Line())]
	all := carried >= int64(len(pushes))
	held := pushes
	if !all {
		held = pushes[len(pushes)-int(carried):]
	}
	newest := pushes[len(pushes)-1]
	stale := 0
	var details []causal.Link
	for i, p := range held {
		k := len(pushes) - len(held) + i
		nx := q.next[k]
		if nx < len(pushes) {
			stale++
		}
		if i >= maxQueued {
			continue
		}
		subj := p.Str("subject")
		why := fmt.Sprintf("queued %s before %s", dur(m.At()-p.At()), idText(m))
		n := full - fullAt(k)
		msgs := "messages"
		if n == 1 {
			msgs = "message"
		}
		if partial || !all {
			why += fmt.Sprintf(", sent with at least %d %s since", n, msgs)
		} else if n == 1 {
			why += ", sent with the 1 message since"
		} else {
			why += fmt.Sprintf(", sent with all %d %s since", n, msgs)
		}
		if nx < len(pushes) {
			nq := pushes[nx]
			why += fmt.Sprintf("; stale: %s %s inc %d was queued after it (L%d)", subj, nq.Str("to"), nq.Num("incarnation"), nq.Line())
		}
		details = append(details, detail(p.Link(fmt.Sprintf("%s queued %s %s inc %d (%s)", sender, subj, p.Str("to"), p.Num("incarnation"), p.Str("reason")), why)))
	}
	if len(held) > maxQueued {
		p := held[maxQueued]
		details = append(details, detail(p.Link(fmt.Sprintf("… and %d more updates queued from here on", len(held)-maxQueued), "")))
	}
	var text, why string
	switch {
	case all && carried == int64(len(pushes)):
		text = fmt.Sprintf("%s carried all %d updates %s had queued since the start of the run, %d of them stale", idText(m), carried, sender, stale)
		why = "the queue retired none: every message carries every update ever queued (as the legacy queue does), so each accusation and refutation made every later message bigger"
	case all:
		text = fmt.Sprintf("%s carried %d updates: all %d %s had queued since the start of the run, %d of them stale, and %d the records do not name (re-asserted accusations or confirmations)", idText(m), carried, len(pushes), sender, stale, carried-int64(len(pushes)))
		why = "the queue retired none of them"
	default:
		text = fmt.Sprintf("%s carried %d of the %d updates %s had queued since the start of the run (which ones the records do not say: listed are the newest)", idText(m), carried, len(pushes), sender)
		why = "the queue had retired or held back the rest"
	}
	b.add(newest.Link(text, why))
	b.c.Links = append(b.c.Links, details...)
	first := held[0]
	if all {
		what := "the first update %s queued: %s %s inc %d (%s)"
		if carried > int64(len(pushes)) {
			what = "the first update %s queued that the records name: %s %s inc %d (%s)"
		}
		b.origin(first.Link(fmt.Sprintf(what, sender, first.Str("subject"), first.Str("to"), first.Num("incarnation"), first.Str("reason")),
			"the queue's growth starts at the start of the run: nothing queued since has retired"))
		return
	}
	b.transition(first, false)
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
	if n == 1 {
		return fmt.Sprintf("; it left behind 1 message (%s B) still in flight on %s→%s", group(bytes), from, to)
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
