package swimcheck

import (
	"fmt"
	"slices"
)

// noFlap is no_flap_while_probes_ok { peer, window_start_ns,
// window_end_ns, max_cycle_ns }: no observer's view of the peer goes
// suspect → alive → suspect inside the window (within max_cycle_ns from
// the first suspicion to the second, when it is set) while direct probes
// between the two are all acked.
type noFlap struct {
	probeCheck
	// phases says, by observer index, how far its view of Y has gone
	// into a flap: 0 nowhere, 1 suspect, 2 suspect then alive. The
	// transitions themselves are the marks of the observer's open span.
	phases []uint8
	// maxCycle is max_cycle_ns; 0 is no bound.
	maxCycle int64
}

func newNoFlap(w *world, p NoFlapWhileProbesOK) checker {
	c := &noFlap{probeCheck: newProbeCheck(w, p.Peer, p.WindowStartNs, p.WindowEndNs), maxCycle: p.MaxCycleNs}
	c.describe = c.describeFlap
	return c
}

func (c *noFlap) onView(w *world, v viewChange) {
	p := &c.spans
	if v.subject != p.y || v.observer == p.y || v.was == v.cur.state {
		return
	}
	if v.timeNs < p.start || v.timeNs > p.end {
		return // a flap's three transitions all lie inside the window
	}
	for int(v.observer) >= len(c.phases) {
		c.phases = append(c.phases, 0)
	}
	ph := &c.phases[v.observer]
	m := mark{v.line, v.timeNs}
	switch {
	case v.cur.state == suspect && *ph == 2 && c.tooLong(v.observer, m):
		// Not a flap: the first suspicion is too long ago. This one may
		// start the next.
		*ph = 1
		p.open(v.observer, m)
	case v.cur.state == suspect && *ph == 2:
		s, violated := p.close(v.observer, m)
		*ph = 1
		p.open(v.observer, m) // this suspicion may start the next flap
		c.judge(w, s, violated)
	case v.cur.state == suspect:
		*ph = 1
		p.open(v.observer, m)
	case v.cur.state == alive && *ph == 1:
		*ph = 2
		if s := p.openSpan(v.observer); s != nil {
			s.marks = append(s.marks, m)
		}
	default:
		*ph = 0
		p.drop(v.observer)
	}
}

// tooLong reports whether the cycle observer x's open span began would
// last longer than max_cycle_ns if m closed it.
func (c *noFlap) tooLong(x int32, m mark) bool {
	if c.maxCycle <= 0 {
		return false
	}
	s := c.spans.openSpan(x)
	return s != nil && m.timeNs-s.marks[0].timeNs > c.maxCycle
}

func (c *noFlap) describeFlap(w *world, s *span) string {
	return fmt.Sprintf("%s's view of %s went suspect→alive→suspect at %s, %s, %s while every direct probe between them was acked (%s)",
		w.name(s.x), w.name(c.spans.y), fmtNs(s.marks[0].timeNs), fmtNs(s.marks[1].timeNs), fmtNs(s.marks[2].timeNs),
		probeCounts(w, s, c.spans.y))
}

func (c *noFlap) clone() checker {
	d := &noFlap{probeCheck: c.cloneCheck(), phases: slices.Clone(c.phases), maxCycle: c.maxCycle}
	d.describe = d.describeFlap
	return d
}
