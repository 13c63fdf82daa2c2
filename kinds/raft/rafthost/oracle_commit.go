package rafthost

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/detsim/detsim/hosts"
)

// commitWithin is proposal_commits_within { after_ns, within_ns }: every
// put a client issues at or after after_ns is applied by some member
// within within_ns of its issue — the liveness a client sees once a
// partition has healed and a quorum can talk. A put raft dropped (no
// leader yet) is never applied: it fails here, which is the point, and
// the verdict cites the drop. A put issued too late for its deadline to
// fall inside the run cannot be judged: if any such put was never
// applied, the verdict is Inconclusive and counts them by client, never
// a Pass that hides them.
type commitWithin struct {
	res           hosts.Result
	after, within int64
	queue         []*pendingPut // in issue order, so in deadline order
	byReq         map[string]*pendingPut
	judged        int
}

type pendingPut struct {
	req      string
	host     string
	deadline int64
	issued   hosts.Cite
	drop     *hosts.Cite // raft's proposal_dropped of it, if any
	reason   string
	done     bool
}

func newCommitWithin(p ProposalCommitsWithin) *commitWithin {
	return &commitWithin{after: p.AfterNs, within: p.WithinNs, byReq: map[string]*pendingPut{}}
}

func (o *commitWithin) reads(typ string) bool {
	return typ == tProposal || typ == tApply || typ == tPropDropped
}

func (o *commitWithin) observe(r *rec) error {
	o.expire(r.at)
	if o.res.Resolved {
		return nil
	}
	req, err := r.str("req")
	if err != nil {
		return err
	}
	switch r.typ {
	case tProposal:
		if r.at >= o.after {
			p := &pendingPut{req: req, host: r.host, deadline: r.at + o.within, issued: r.cite()}
			o.queue = append(o.queue, p)
			o.byReq[req] = p
		}
	case tPropDropped:
		if p, ok := o.byReq[req]; ok && p.drop == nil {
			c := r.cite()
			p.drop, p.reason = &c, r.text("reason")+" at "+r.host
		}
	case tApply:
		if p, ok := o.byReq[req]; ok {
			p.done = true
			delete(o.byReq, req)
		}
	}
	return nil
}

// expire fails the first put still unapplied whose deadline is before
// t, and lets go of those applied.
func (o *commitWithin) expire(t int64) {
	for len(o.queue) > 0 {
		p := o.queue[0]
		if !p.done && p.deadline >= t {
			return
		}
		o.queue[0] = nil
		o.queue = o.queue[1:]
		o.judged++
		if p.done {
			continue
		}
		why := "it was never applied"
		cites := []hosts.Cite{p.issued}
		if p.drop != nil {
			why = "raft dropped it (" + p.reason + ")"
			cites = append(cites, *p.drop)
		}
		o.res.Resolve(hosts.Fail, fmt.Sprintf("%s's put %s, issued at %s, was not applied by %s (within %s): %s",
			p.host, p.req, secs(p.issued.TimeNs), secs(p.deadline), secs(o.within), why), cites...)
		return
	}
}

func (o *commitWithin) hold(to int64) { o.expire(to + 1) }

func (o *commitWithin) finish(endNs int64) {
	o.expire(endNs + 1)
	if o.res.Resolved {
		return
	}
	if late := o.late(); late != "" {
		judged := "no put from " + secs(o.after) + " could be judged"
		if o.judged > 0 {
			judged = fmt.Sprintf("%s issued from %s, each applied within %s", count(o.judged, "put", "puts"), secs(o.after), secs(o.within))
		}
		o.res.Resolve(hosts.Inconclusive, judged+"; but "+late)
		return
	}
	if o.judged == 0 {
		o.res.Resolve(hosts.Inconclusive, fmt.Sprintf("no put was issued from %s early enough for its deadline to fall by the end of the run (%s)", secs(o.after), secs(endNs)))
		return
	}
	o.res.Resolve(hosts.Pass, fmt.Sprintf("%s issued from %s, each applied within %s", count(o.judged, "put", "puts"), secs(o.after), secs(o.within)))
}

// late describes the puts left unapplied whose deadline fell past the
// end, by client ("" for none).
func (o *commitWithin) late() string {
	by := map[string]int{}
	n := 0
	for _, p := range o.queue {
		if !p.done {
			by[p.host]++
			n++
		}
	}
	if n == 0 {
		return ""
	}
	var parts []string
	for _, h := range slices.Sorted(maps.Keys(by)) {
		parts = append(parts, fmt.Sprintf("%s %d", h, by[h]))
	}
	return fmt.Sprintf("%s issued less than %s before the end were never applied (%s): too late to judge", count(n, "put", "puts"), secs(o.within), strings.Join(parts, ", "))
}

func (o *commitWithin) result() *hosts.Result { return &o.res }

func (o *commitWithin) clone() oracle {
	c := &commitWithin{res: o.res.Clone(), after: o.after, within: o.within, judged: o.judged, byReq: make(map[string]*pendingPut, len(o.byReq))}
	copies := make(map[*pendingPut]*pendingPut, len(o.queue))
	for _, p := range o.queue {
		q := *p
		if p.drop != nil {
			d := *p.drop
			q.drop = &d
		}
		copies[p] = &q
		c.queue = append(c.queue, &q)
	}
	for _, req := range slices.Sorted(maps.Keys(o.byReq)) {
		c.byReq[req] = copies[o.byReq[req]]
	}
	return c
}
