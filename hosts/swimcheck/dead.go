package swimcheck

import (
	"fmt"
)

// noDead is no_dead_when_probes_ok { peer, window_start_ns,
// window_end_ns }: no observer marks the peer dead inside the window
// while direct probes between the two were all acked since the observer's
// view entered the state it left for dead.
type noDead struct {
	probeCheck
}

func newNoDead(w *world, p NoDeadWhenProbesOK) checker {
	c := &noDead{probeCheck: newProbeCheck(w, p.Peer, p.WindowStartNs, p.WindowEndNs)}
	c.describe = c.describeDeath
	return c
}

func (c *noDead) onView(w *world, v viewChange) {
	p := &c.spans
	if v.subject != p.y || v.observer == p.y || v.old.state == v.cur.state || p.windowDone {
		return
	}
	m := mark{v.line, v.timeNs}
	if v.cur.state == dead && v.timeNs >= p.start {
		s, violated := p.close(v.observer, m)
		c.judge(w, s, violated)
		return
	}
	if v.cur.state == alive || v.cur.state == suspect {
		p.open(v.observer, m) // the next dead is judged from here
		return
	}
	p.drop(v.observer)
}

func (c *noDead) describeDeath(w *world, s *span) string {
	return fmt.Sprintf("%s marked %s dead at %s while every direct probe between them since %s was acked (%s)",
		w.name(s.x), w.name(c.spans.y), fmtNs(s.marks[1].timeNs), fmtNs(s.marks[0].timeNs), probeCounts(w, s, c.spans.y))
}

func (c *noDead) clone() checker {
	d := &noDead{probeCheck: c.cloneCheck()}
	d.describe = d.describeDeath
	return d
}
