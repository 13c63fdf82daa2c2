package swimcheck

import (
	"fmt"
	"slices"
	"strings"
)

// noDead is no_dead_when_probes_ok { peer, window_start_ns,
// window_end_ns }: no observer marks the peer dead inside the window
// while direct probes between the two were all acked since the observer's
// view entered the state it left for dead.
type noDead struct {
	probeCheck
	// deaths are the peer's deaths inside the window (observer, time):
	// a Pass says them, since each was while probes were failing.
	deaths []death
	// down says the peer was killed and not resurrected since: a death
	// then is the kill's, not a failing probe's.
	down bool
}

type death struct {
	observer int32
	timeNs   int64
	killed   bool
}

func newNoDead(w *world, p NoDeadWhenProbesOK) checker {
	c := &noDead{probeCheck: newProbeCheck(w, p.Peer, p.WindowStartNs, p.WindowEndNs)}
	c.describe, c.note = c.describeDeath, c.noteDeaths
	return c
}

// maxDeathsSaid bounds the deaths a Pass names by time: the count says
// the rest.
const maxDeathsSaid = 5

// noteDeaths is the Pass's word on the deaths that were not violations:
// a member marked dead while probes were failing is what the check
// exists to show (docs/assertions.md), and a bare Pass would hide it.
func (c *noDead) noteDeaths(w *world) string {
	y := w.name(c.spans.y)
	var failing, killed []death
	for _, d := range c.deaths {
		if d.killed {
			killed = append(killed, d)
		} else {
			failing = append(failing, d)
		}
	}
	if len(failing) == 0 {
		note := "; no observer marked " + y + " dead while probes were failing"
		if len(killed) > 0 {
			note += fmt.Sprintf(" (marked dead %s after it was killed: %s)", times(len(killed)), deathsAt(w, killed))
		}
		return note
	}
	note := fmt.Sprintf("; %s was marked dead %s while probes between it and the observer were failing (%s)", y, times(len(failing)), deathsAt(w, failing))
	if len(killed) > 0 {
		note += fmt.Sprintf(", and %s after it was killed (%s)", times(len(killed)), deathsAt(w, killed))
	}
	return note
}

func times(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprint(n, " times")
}

// deathsAt names the first maxDeathsSaid deaths, by whom and when.
func deathsAt(w *world, ds []death) string {
	var at []string
	for i, d := range ds {
		if i == maxDeathsSaid {
			at = append(at, "…")
			break
		}
		at = append(at, w.name(d.observer)+" at "+fmtNs(d.timeNs))
	}
	return strings.Join(at, ", ")
}

func (c *noDead) onMutation(w *world, m mutationFact) {
	if m.peer == c.spans.y && !m.noop {
		switch m.kind {
		case "PeerKill":
			c.down = true
		case "PeerResurrect":
			c.down = false
		}
	}
	c.probeCheck.onMutation(w, m)
}

func (c *noDead) onView(w *world, v viewChange) {
	p := &c.spans
	if v.subject != p.y || v.observer == p.y || v.was == v.cur.state || p.windowDone {
		return
	}
	m := mark{v.line, v.timeNs}
	if v.cur.state == dead && v.timeNs >= p.start {
		c.deaths = append(c.deaths, death{v.observer, v.timeNs, c.down})
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
	d := &noDead{probeCheck: c.cloneCheck(), deaths: slices.Clone(c.deaths), down: c.down}
	d.describe, d.note = d.describeDeath, d.noteDeaths
	return d
}
