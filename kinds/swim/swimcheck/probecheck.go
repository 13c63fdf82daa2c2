package swimcheck

import "fmt"

// probeCheck is what no_flap_while_probes_ok and no_dead_when_probes_ok
// share: the probe spans between the named peer Y and every other peer,
// the window, and how Pass and Inconclusive are told apart.
type probeCheck struct {
	base
	spans probeSpans
	// describe says, for the reason, why a violated check is a violation.
	describe func(w *world, s *span) string
	// note, when set, adds to a Pass what the check saw that is not a
	// violation but a symptom its docs name (docs/assertions.md).
	note func(w *world) string
}

func newProbeCheck(w *world, peer string, start, end int64) probeCheck {
	return probeCheck{spans: probeSpans{y: w.intern(peer), start: start, end: end}}
}

func (c *probeCheck) wants() want { return wantViews | wantProbes | wantMutations }

func (c *probeCheck) onProbe(w *world, f probeFact) {
	s, violated := c.spans.onProbe(f)
	c.judge(w, s, violated)
}

func (c *probeCheck) onMutation(w *world, m mutationFact) {
	if m.kind == "PeerKill" && !m.noop {
		s, violated := c.spans.peerKilled(m.peer)
		c.judge(w, s, violated)
	}
}

// judge fails on a violated check, else concludes once the window is read
// and nothing waits on a pending probe.
func (c *probeCheck) judge(w *world, s *span, violated bool) {
	switch {
	case violated:
		c.res.resolve(Fail, c.describe(w, s), s.evidence()...)
	case c.spans.windowDone && !c.spans.undecided():
		c.conclude(w)
	}
}

func (c *probeCheck) conclude(w *world) {
	y := w.name(c.spans.y)
	if c.spans.fired {
		text := fmt.Sprintf("direct probes with %s succeeded both ways inside %s and no violation was found", y, c.window())
		if c.note != nil {
			text += c.note(w)
		}
		c.res.resolve(Pass, text)
		return
	}
	c.res.resolve(Inconclusive, fmt.Sprintf("no peer had a direct probe with %s succeed each way inside %s: the precondition never fired", y, c.window()))
}

func (c *probeCheck) window() string {
	return fmt.Sprintf("[%s, %s]", fmtNs(c.spans.start), fmtNs(c.spans.end))
}

func (c *probeCheck) hold(w *world, _, to int64) {
	if to >= c.spans.end && !c.spans.windowDone {
		c.spans.closeWindow()
		c.judge(w, nil, false)
	}
}

// finish ignores the probes still pending and judges what is left.
func (c *probeCheck) finish(w *world, _ int64) {
	if s, ok := c.spans.violatedAtEnd(); ok {
		c.judge(w, s, true)
		return
	}
	c.conclude(w)
}

// probeCounts says how many probes each way a span saw acked.
func probeCounts(w *world, s *span, y int32) string {
	return fmt.Sprintf("%d %s→%s, %d %s→%s", s.acked[toPeer], w.name(s.x), w.name(y), s.acked[fromPeer], w.name(y), w.name(s.x))
}

func (c *probeCheck) cloneCheck() probeCheck {
	d := *c
	d.res = c.res.clone()
	d.spans = c.spans.clone()
	return d
}
