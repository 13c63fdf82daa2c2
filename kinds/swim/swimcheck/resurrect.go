package swimcheck

import (
	"fmt"
	"slices"

	"github.com/detsim/detsim/internal/checked"
)

// resurrects is dead_peer_resurrects_within { peer, after_ns, within_ns }:
// once the peer becomes reachable again at or after after_ns, every live
// peer that has a view of it holds it alive at some instant within
// within_ns.
type resurrects struct {
	base
	p             int32
	after, within int64
	cut           bool // an active Partition separates p from someone
	fired         bool
	trigger       mark // the mutation that made p reachable again
	deadline      int64
	// running is the first PeerResurrect of p at or after after_ns that
	// found it running (a no-op): it shows p never died.
	running mark
}

func newResurrects(w *world, p DeadPeerResurrectsWithin) checker {
	return &resurrects{p: w.intern(p.Peer), after: p.AfterNs, within: p.WithinNs}
}

func (c *resurrects) wants() want { return wantViews | wantMutations }

// onMutation follows p's reachability; the world has already applied
// the mutation's effect on liveness.
func (c *resurrects) onMutation(w *world, m mutationFact) {
	reachable := false
	switch m.kind {
	case "Partition":
		inA, inB := slices.Contains(m.peersA, c.p), slices.Contains(m.peersB, c.p)
		c.cut = c.cut || (inA && len(m.peersB) > 0) || (inB && len(m.peersA) > 0)
	case "Heal":
		reachable = c.cut && w.live(c.p)
		c.cut = false
	case "PeerResurrect":
		if m.peer == c.p && m.noop {
			if c.running.line == 0 && m.timeNs >= c.after {
				c.running = mark{m.line, m.timeNs}
			}
			return // a peer that never died cannot come back
		}
		reachable = m.peer == c.p && !c.cut
	}
	if reachable && !c.fired && m.timeNs >= c.after {
		c.fired = true
		c.trigger = mark{m.line, m.timeNs}
		c.deadline = checked.Add(m.timeNs, c.within)
	}
}

// tally splits the live observers other than p that have a view of p
// into those holding it alive (latest such view first) and the rest.
func (c *resurrects) tally(w *world) (latestAlive []mark, others []mark, first string) {
	latest, latestLine := int32(-1), 0
	for o := range int32(len(w.names)) {
		v := w.peek(o, c.p) // the time only of the views cited
		if o == c.p || !w.live(o) || v.state == noView {
			continue
		}
		if v.state == alive {
			if latest < 0 || v.line > latestLine {
				latest, latestLine = o, v.line
			}
			continue
		}
		if first == "" {
			first = describeView(w, o, c.p, v)
		}
		others = append(others, w.mark(o, c.p))
	}
	if latest >= 0 {
		latestAlive = []mark{w.mark(latest, c.p)}
	}
	return latestAlive, others, first
}

func (c *resurrects) hold(w *world, from, to int64) {
	if !c.fired || to < c.trigger.timeNs {
		return
	}
	latestAlive, others, first := c.tally(w)
	name := w.name(c.p)
	if len(others) == 0 && len(latestAlive) > 0 {
		c.res.resolve(Pass, fmt.Sprintf("%s became reachable at %s and every live peer with a view of it held it alive at %s",
			name, fmtNs(c.trigger.timeNs), fmtNs(from)), append(latestAlive, c.trigger)...)
		return
	}
	if to < c.deadline {
		return
	}
	if first == "" {
		first = "no live peer has a view of it"
	}
	c.res.resolve(Fail, fmt.Sprintf("%s became reachable at %s but was not held alive by every live peer by %s: %s",
		name, fmtNs(c.trigger.timeNs), fmtNs(c.deadline), first), append(others, c.trigger)...)
}

func (c *resurrects) finish(w *world, endNs int64) {
	if !c.fired && c.running.line > 0 {
		c.res.resolve(Inconclusive, fmt.Sprintf("the PeerResurrect of %s at %s found it running: the peer never died, and no mutation at or after %s made it reachable again",
			w.name(c.p), fmtNs(c.running.timeNs), fmtNs(c.after)), c.running)
		return
	}
	if !c.fired {
		c.res.resolve(Inconclusive, fmt.Sprintf("no mutation at or after %s made %s reachable again", fmtNs(c.after), w.name(c.p)))
		return
	}
	c.res.resolve(Inconclusive, fmt.Sprintf("%s became reachable at %s but the run ended at %s, before the deadline %s, without every live peer holding it alive",
		w.name(c.p), fmtNs(c.trigger.timeNs), fmtNs(endNs), fmtNs(c.deadline)), c.trigger)
}

func (c *resurrects) clone() checker { d := *c; d.res = c.res.clone(); return &d }
