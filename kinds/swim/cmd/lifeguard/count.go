package main

import (
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/kinds/swim/swim"
)

// Class is what a member is in the experiment: healthy, or one of the
// slow members (a recv_cost_ns above zero). The crashed member is
// healthy until its crash; what is said of it afterwards is detection,
// not a false positive.
type Class int

const (
	Healthy Class = iota
	Slow
)

// Tally counts the transitions of one kind of view (whose, of whom) into
// suspect and dead.
type Tally struct {
	// Suspect and Dead count every transition of such a view into
	// suspect / dead, whatever the reason: gossip included, so one
	// accusation in a 100-member cluster can count up to 99 times.
	Suspect, Dead int
	// Accused counts the observers' own accusations: transitions to
	// suspect with reason probe_failed, each the start of a false
	// positive that gossip then spreads (a subset of Suspect).
	Accused int
}

// Result is what one run measured.
type Result struct {
	// Views[subject][observer] tallies what observers of one class came
	// to believe about subjects of one class: Views[Healthy][Healthy] is
	// the false positives held at healthy members, Views[Healthy][Slow]
	// the slow members' own mistaken views of healthy ones.
	Views [2][2]Tally
	// FirstNs is from the kill to the first healthy member holding the
	// crashed one dead; -1 if none did within the run.
	FirstNs int64
	// FullNs is from the kill to the moment every healthy live member
	// held the crashed one dead; -1 if not within the run. Slow members
	// learn it when they get through their backlog: that says nothing
	// about the detector, so they do not count.
	FullNs int64
}

// counter is the engine Sink that sorts a run's state transitions into
// a Result.
type counter struct {
	slow   map[string]bool
	killed string // "" when the scenario crashes no one
	killAt int64
	live   int             // healthy members other than the crashed one
	dead   map[string]bool // healthy observers that have held the crashed member dead
	res    Result
}

// newCounter counts for a cluster whose slow members are slow, in which
// killed (if not "") crashes at killAt, and live healthy members other
// than killed are to learn of it.
func newCounter(slow map[string]bool, killed string, killAt int64, live int) *counter {
	return &counter{slow: slow, killed: killed, killAt: killAt, live: live,
		dead: map[string]bool{}, res: Result{FirstNs: -1, FullNs: -1}}
}

func (c *counter) class(id string) Class {
	if c.slow[id] {
		return Slow
	}
	return Healthy
}

func (c *counter) Snapshot(int64, string, int, []byte) {}

func (c *counter) Event(at int64, _ string, _ string, ev hosts.Event) {
	st, ok := ev.(*swim.StateTransition)
	if !ok || st.Observer == st.Subject || (st.To != swim.Suspect && st.To != swim.Dead) {
		return
	}
	if c.killed != "" && st.Subject == c.killed && at >= c.killAt {
		c.detected(at, st)
		return
	}
	t := &c.res.Views[c.class(st.Subject)][c.class(st.Observer)]
	if st.To == swim.Dead {
		t.Dead++
		return
	}
	t.Suspect++
	if st.Reason == swim.ReasonProbeFailed {
		t.Accused++
	}
}

// detected notes a view of the crashed member after its crash.
func (c *counter) detected(at int64, st *swim.StateTransition) {
	if st.To != swim.Dead || c.slow[st.Observer] || c.dead[st.Observer] {
		return
	}
	c.dead[st.Observer] = true
	if c.res.FirstNs < 0 {
		c.res.FirstNs = at - c.killAt
	}
	if len(c.dead) == c.live {
		c.res.FullNs = at - c.killAt
	}
}
