package rafthost

import (
	"math"
	"strconv"

	"github.com/detsim/detsim/causal"
	"github.com/detsim/detsim/internal/vtime"
)

// explainer is the raft kind's causal.Explainer: how a host came to
// follow the leader it follows, from the records alone. A follower's
// leader_change is explained by the leader's message it heard in that
// step and that message's send; a leader's by the votes that elected it,
// its candidacy and pre-candidacy, and what started the campaign: the
// last word it had from the old leader and the fault (a partition, a
// kill) that came after it, the chain's origin. A host that lost its
// leader is explained by the message that made it step down and that
// sender's campaign.
type explainer struct{}

// tMutation is the engine's record of a fault on the timeline.
const tMutation = "mutation"

func (explainer) Keeps() []causal.Keep {
	msg := func(t string) causal.Keep {
		return causal.Keep{Type: t, Str: []string{"peer", "message"}, Num: []string{"term"}, IDs: []string{"id"}}
	}
	return []causal.Keep{
		{Type: tLeaderChange, Str: []string{"lead", "prev"}, Num: []string{"term"}},
		{Type: tRoleChange, Str: []string{"from", "to", "lead"}, Num: []string{"term"}},
		// Real votes only: the index reads no boolean member, and a
		// pre-vote round is told by its count of pre_vote messages.
		{Type: tVote, Str: []string{"candidate", "pre"}, Num: []string{"term"}, Skip: [2]string{"pre", "true"}},
		{Type: tNodeStart, Str: []string{"disk"}, Num: []string{"term"}},
		{Type: tPanic, Str: []string{"panic"}},
		{Type: tMutation, Str: []string{"kind", "peer"}},
		msg(tSent), msg(tReceived),
	}
}

func (explainer) Accepts() string {
	return "a raft leader_change record: W on one in the stepper's log, or detsim why --host its host --subject leader --at its time"
}

// Target is the host's latest leader change at or before at; a raft
// host holds one leader, so any subject names it.
func (explainer) Target(ix *causal.Index, host, _ string, at int64) (causal.Rec, bool) {
	return ix.Latest(tLeaderChange, host, math.MaxInt64, func(r causal.Rec) bool { return r.At() <= at })
}

// maxLinks bounds a chain: each hop goes back one election, and a
// chain is read by a person.
const maxLinks = 60

func (explainer) Explain(ix *causal.Index, r causal.Rec) (causal.Chain, bool) {
	if r.Type() != tLeaderChange {
		return causal.Chain{}, false
	}
	b := &chain{ix: ix, seen: map[int64]bool{}}
	b.leaderChange(r)
	return b.c, true
}

type chain struct {
	ix   *causal.Index
	c    causal.Chain
	seen map[int64]bool // lines already linked: a chain never loops
}

func (b *chain) add(l causal.Link) bool {
	if b.seen[l.Line] || len(b.c.Links) >= maxLinks {
		if len(b.c.Links) >= maxLinks {
			b.c.Note = "the chain stops after " + strconv.Itoa(maxLinks) + " links"
		}
		return false
	}
	b.seen[l.Line] = true
	b.c.Links = append(b.c.Links, l)
	return true
}

func (b *chain) origin(l causal.Link) {
	l.Origin = true
	if b.add(l) {
		b.c.Complete = true
	}
}

func term(r causal.Rec) string { return strconv.FormatInt(r.Num("term"), 10) }

// leaderChange links r and explains it by who it follows.
func (b *chain) leaderChange(r causal.Rec) {
	host, lead := r.Host(), r.Str("lead")
	text := host + " follows " + orNone(lead) + " in term " + term(r) + " (was " + orNone(r.Str("prev")) + ")"
	switch lead {
	case host:
		text = host + " leads term " + term(r) + " (was following " + orNone(r.Str("prev")) + ")"
	case "":
		text = host + " has no leader in term " + term(r) + " (was following " + orNone(r.Str("prev")) + ")"
	}
	if !b.add(r.Link(text, "")) {
		return
	}
	switch lead {
	case host:
		b.elected(r)
	case "":
		b.steppedDown(r)
	default:
		b.heardLeader(r, lead)
	}
}

// sameStep finds the message of type typ host received in r's step
// (its virtual time) meeting ok.
func (b *chain) sameStep(r causal.Rec, ok func(causal.Rec) bool) (causal.Rec, bool) {
	var found causal.Rec
	b.ix.Backward(tReceived, r.Host(), r.Line(), func(m causal.Rec) bool {
		if m.At() != r.At() {
			return false
		}
		if ok(m) {
			found = m
			return false
		}
		return true
	})
	return found, found.Valid()
}

// sendOf is the send of the message a receive names.
func (b *chain) sendOf(recv causal.Rec) (causal.Rec, bool) {
	for _, s := range b.ix.WithID(recv.IDCode("id")) {
		if s.Type() == tSent && s.Line() < recv.Line() {
			return s, true
		}
	}
	return causal.Rec{}, false
}

// message links a receive and its send; it returns the send (or the
// receive when the send is not held).
func (b *chain) message(recv causal.Rec, why string) (causal.Rec, bool) {
	if !b.add(recv.Link(recv.Host()+" received "+recv.Str("message")+" from "+recv.Str("peer"), why)) {
		return causal.Rec{}, false
	}
	s, ok := b.sendOf(recv)
	if !ok {
		return recv, true
	}
	if !b.add(s.Link(s.Host()+" sent "+s.Str("message")+" of term "+term(s)+" to "+s.Str("peer"),
		"in flight "+vtime.Seconds(recv.At()-s.At()))) {
		return causal.Rec{}, false
	}
	return s, true
}

// heardLeader: a follower learns its leader from the leader's append or
// heartbeat; the leader's own election explains the rest.
func (b *chain) heardLeader(r causal.Rec, lead string) {
	recv, ok := b.sameStep(r, func(m causal.Rec) bool { return m.Str("peer") == lead })
	if !ok {
		b.c.Note = "the message from " + lead + " that " + r.Host() + " heard is no longer held"
		return
	}
	s, ok := b.message(recv, "the leader's word, in term "+term(r))
	if !ok || s.Host() != lead {
		return
	}
	if l, ok := b.ix.Latest(tLeaderChange, lead, s.Line(), func(c causal.Rec) bool {
		return c.Str("lead") == lead && c.Num("term") == r.Num("term")
	}); ok {
		b.leaderChange(l)
	}
}

// elected: a leader won its term's votes as a candidate, after (with
// PreVote) winning pre-votes; what started the campaign is the origin.
func (b *chain) elected(r causal.Rec) {
	host, t := r.Host(), r.Num("term")
	cand, ok := b.ix.Latest(tRoleChange, host, r.Line(), func(c causal.Rec) bool {
		return c.Str("to") == "candidate" && c.Num("term") == t
	})
	if !ok {
		b.c.Note = host + "'s candidacy for term " + term(r) + " is no longer held"
		return
	}
	votes := b.votes(host, t, cand.Line(), r.Line())
	if !b.add(cand.Link(host+" campaigned for term "+term(cand), strconv.Itoa(len(votes))+" votes granted")) {
		return
	}
	b.details(votes)
	start := cand
	if pre, ok := b.ix.Latest(tRoleChange, host, cand.Line()-1, func(c causal.Rec) bool {
		return c.Str("to") == "pre_candidate"
	}); ok && b.noRoleBetween(host, pre.Line(), cand.Line()) {
		if !b.add(pre.Link(host+" asked for pre-votes at term "+term(pre), "a quorum said it would vote")) {
			return
		}
		start = pre
	}
	b.campaignCause(start)
}

// noRoleBetween says host changed role nowhere strictly between two lines.
func (b *chain) noRoleBetween(host string, from, to int64) bool {
	between := false
	b.ix.Backward(tRoleChange, host, to-1, func(c causal.Rec) bool {
		if c.Line() <= from {
			return false
		}
		between = true
		return false
	})
	return !between
}

// votes lists the votes granted to candidate for term t between two
// lines, by any host.
func (b *chain) votes(candidate string, t int64, from, to int64) []causal.Rec {
	var out []causal.Rec
	b.ix.Back(to, func(v causal.Rec) bool {
		if v.Line() <= from {
			return false
		}
		if v.Type() == tVote && v.Str("candidate") == candidate && v.Num("term") == t {
			out = append(out, v)
		}
		return true
	})
	return out
}

func (b *chain) details(votes []causal.Rec) {
	for _, v := range votes {
		l := v.Link(v.Host()+" granted its vote to "+v.Str("candidate")+" for term "+term(v), "")
		l.Depth = 1
		b.add(l)
	}
}

// campaignCause links what made host campaign at start: an election
// timeout after the last word from its old leader, and the fault since
// that word (the origin); or the life's start when it never had one.
func (b *chain) campaignCause(start causal.Rec) {
	host := start.Host()
	prev, ok := b.ix.Latest(tLeaderChange, host, start.Line(), nil)
	if !ok || prev.Str("lead") == "" {
		// Never had a leader in this stretch: the life began leaderless.
		if ns, ok := b.ix.Latest(tNodeStart, host, start.Line(), nil); ok {
			b.origin(ns.Link(host+" started ("+ns.Str("disk")+" disk, term "+term(ns)+") with no leader", "its election timer ran out, or campaign_at_ns"))
			return
		}
		b.c.Note = "what made " + host + " campaign is no longer held"
		return
	}
	old := prev.Str("lead")
	from := prev.Line()
	if heard, ok := b.ix.Latest(tReceived, host, start.Line(), func(m causal.Rec) bool { return m.Str("peer") == old }); ok && heard.Line() > from {
		from = heard.Line()
		if !b.add(heard.Link(host+" last heard from "+old+" ("+heard.Str("message")+")",
			"no word for "+vtime.Seconds(start.At()-heard.At())+", past the randomized election timeout")) {
			return
		}
	}
	// The fault since that word, newest first: the origin (a heal ends
	// a silence, never starts one).
	var fault causal.Rec
	b.ix.Back(start.Line(), func(m causal.Rec) bool {
		if m.Line() <= from {
			return false
		}
		if m.Type() == tMutation && m.Str("kind") != "Heal" {
			fault = m
			return false
		}
		return true
	})
	if fault.Valid() {
		b.origin(fault.Link("the timeline's "+fault.Str("kind"), "cut "+host+" off from "+old))
		return
	}
	if old == host {
		b.c.Note = host + " stepped down and campaigned again: see its step-down"
		return
	}
	b.origin(start.Link(host+"'s election timeout ran out", "nothing on the timeline explains the silence of "+old+": a slow disk, a lost message or a dead leader"))
}

// steppedDown: a host loses its leader when it hears a higher term (a
// candidate's vote request); that candidate's campaign explains the rest.
func (b *chain) steppedDown(r causal.Rec) {
	recv, ok := b.sameStep(r, func(causal.Rec) bool { return true })
	if !ok {
		// Its own timeout, with no message: it campaigns itself.
		if rc, ok := b.ix.Latest(tRoleChange, r.Host(), r.Line(), func(c causal.Rec) bool { return c.At() == r.At() }); ok {
			if b.add(rc.Link(r.Host()+" became "+rc.Str("to")+" at term "+term(rc), "")) {
				b.campaignCause(rc)
			}
			return
		}
		b.c.Note = "what made " + r.Host() + " drop its leader is no longer held"
		return
	}
	s, ok := b.message(recv, "a higher term: "+r.Host()+" steps down")
	if !ok || s.Type() != tSent {
		return
	}
	if rc, ok := b.ix.Latest(tRoleChange, s.Host(), s.Line(), func(c causal.Rec) bool {
		return c.Str("to") == "candidate" || c.Str("to") == "pre_candidate"
	}); ok {
		why := ""
		if s.Num("term") > rc.Num("term") {
			// A candidate that times out campaigns again without a role change.
			why = "and campaigned on, alone, to term " + term(s)
		}
		if b.add(rc.Link(s.Host()+" became "+rc.Str("to")+" at term "+term(rc), why)) {
			b.campaignCause(rc)
		}
	}
}
