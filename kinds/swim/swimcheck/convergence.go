package swimcheck

import (
	"fmt"
	"slices"
	"strings"
)

// convergence is convergence_after { after_ns, within_ns, peers }: some
// instant of [after, deadline] at which every named peer holds the same
// (state, incarnation) for every named member, itself included.
type convergence struct {
	base
	after, deadline int64
	peers           peerSet
	agree           []bool // by member position in peers.order
	disagreeing     int
}

func newConvergence(w *world, p ConvergenceAfter) checker {
	c := &convergence{peers: newPeerSet(w, p.Peers)}
	c.after, c.deadline = p.AfterNs, p.AfterNs+p.WithinNs // overflow rejected by Assertion.Check
	c.agree = make([]bool, len(c.peers.order))
	c.disagreeing = len(c.agree) // nobody has a view yet
	return c
}

func (c *convergence) wants() want { return wantViews }

// onView re-judges the changed member against every named observer.
func (c *convergence) onView(w *world, v viewChange) {
	if !c.peers.has(v.observer) || !c.peers.has(v.subject) {
		return
	}
	p := c.peers.pos[v.subject]
	now := c.membersAgree(w, v.subject)
	if now != c.agree[p] {
		c.agree[p] = now
		if now {
			c.disagreeing--
		} else {
			c.disagreeing++
		}
	}
}

func (c *convergence) membersAgree(w *world, m int32) bool {
	first := w.peek(c.peers.order[0], m)
	for _, o := range c.peers.order {
		v := w.peek(o, m)
		if v.state == noView || v.state != first.state || v.incarnation != first.incarnation {
			return false
		}
	}
	return true
}

func (c *convergence) hold(w *world, from, to int64) {
	if to < c.after {
		return
	}
	if c.disagreeing == 0 {
		latestO, latestM, latestLine := int32(-1), int32(-1), 0
		for _, o := range c.peers.order {
			for _, m := range c.peers.order {
				if v := w.peek(o, m); latestO < 0 || v.line > latestLine {
					latestO, latestM, latestLine = o, m, v.line
				}
			}
		}
		latest := []mark{w.mark(latestO, latestM)}
		c.res.resolve(Pass, fmt.Sprintf("at %s all %d named peers hold the same view of every named member",
			fmtNs(max(from, c.after)), len(c.peers.order)), latest...)
		return
	}
	if to >= c.deadline {
		c.failAtDeadline(w)
	}
}

// failAtDeadline cites every view of the first member still disputed.
func (c *convergence) failAtDeadline(w *world) {
	p := slices.Index(c.agree, false)
	m := c.peers.order[p]
	var marks []mark
	var parts []string
	for _, o := range c.peers.order {
		v := w.view(o, m)
		if mk, ok := markOf(v); ok {
			marks = append(marks, mk)
			parts = append(parts, fmt.Sprintf("%s %s/%d", w.name(o), v.state, v.incarnation))
		} else {
			parts = append(parts, fmt.Sprintf("%s no view", w.name(o)))
		}
	}
	c.res.resolve(Fail, fmt.Sprintf("no consistent view between %s and %s; at the deadline %d of %d members are disputed, %s: %s",
		fmtNs(c.after), fmtNs(c.deadline), c.disagreeing, len(c.agree), w.name(m), strings.Join(parts, ", ")), marks...)
}

func (c *convergence) finish(_ *world, endNs int64) {
	c.res.resolve(Inconclusive, fmt.Sprintf("the run ended at %s, before the deadline %s, without a consistent view",
		fmtNs(endNs), fmtNs(c.deadline)))
}

func (c *convergence) clone() checker {
	d := *c
	d.res = c.res.clone()
	d.agree = slices.Clone(c.agree)
	return &d
}
