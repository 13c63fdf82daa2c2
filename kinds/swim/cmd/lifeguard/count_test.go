package main

import (
	"testing"

	"github.com/detsim/detsim/kinds/swim/swim"
)

// TestCounter_SortsEachClassOfView feeds the counter a hand-made record
// stream in a five-member cluster — h1, h2, h3 healthy, s1 and s2 slow,
// and h3 crashing at t=100 — with records of every class, in different
// numbers per class, and checks that each lands in its own count and
// nowhere else.
func TestCounter_SortsEachClassOfView(t *testing.T) {
	st := func(obs, subj string, to swim.State, reason string) *swim.StateTransition {
		return &swim.StateTransition{Observer: obs, Subject: subj, From: swim.Alive, To: to, Incarnation: 1, Reason: reason}
	}
	type rec struct {
		at int64
		ev *swim.StateTransition
	}
	stream := []rec{
		// Ignored: a member's view of itself, a view back to alive, and
		// the initial views.
		{1, st("s1", "s1", swim.Suspect, swim.ReasonGossip)},
		{1, st("h1", "h2", swim.Alive, swim.ReasonRefuted)},
		{1, st("h1", "h2", swim.Alive, swim.ReasonInitial)},

		// A slow member accuses a healthy one (its own probe failed) and
		// later declares it dead.
		{10, st("s1", "h1", swim.Suspect, swim.ReasonProbeFailed)},
		{20, st("s1", "h1", swim.Dead, swim.ReasonSuspicionTimeout)},
		// Healthy members hear it: two suspicions and one death in
		// healthy members' views of a healthy member.
		{11, st("h2", "h1", swim.Suspect, swim.ReasonGossip)},
		{12, st("h3", "h1", swim.Suspect, swim.ReasonGossip)},
		{21, st("h2", "h1", swim.Dead, swim.ReasonGossip)},
		// A healthy member's own accusation of a healthy one.
		{30, st("h2", "h3", swim.Suspect, swim.ReasonProbeFailed)},
		// A slow member hears of a suspicion by gossip: a suspicion in
		// its view, not its accusation.
		{31, st("s1", "h2", swim.Suspect, swim.ReasonGossip)},
		// Nor is a suspicion learned from a join_response's full state.
		{32, st("h1", "h2", swim.Suspect, swim.ReasonJoin)},

		// Views of a slow member: accused and declared dead by a
		// healthy member, suspected by two others through gossip, and
		// by the other slow member.
		{40, st("h1", "s1", swim.Suspect, swim.ReasonProbeFailed)},
		{41, st("h2", "s1", swim.Suspect, swim.ReasonGossip)},
		{42, st("h3", "s1", swim.Suspect, swim.ReasonGossip)},
		{43, st("s2", "s1", swim.Suspect, swim.ReasonGossip)},
		{50, st("h1", "s1", swim.Dead, swim.ReasonSuspicionTimeout)},

		// h3 before its crash is a healthy member like any other.
		{99, st("h1", "h3", swim.Dead, swim.ReasonGossip)},
		// After its crash at t=100: detection, not a false positive. A
		// suspicion does not detect; the slow member's view does not
		// count; h2 is first (10 after the kill), h1 completes it (25),
		// and h2's second death record changes nothing.
		{105, st("h2", "h3", swim.Suspect, swim.ReasonProbeFailed)},
		{106, st("s1", "h3", swim.Dead, swim.ReasonSuspicionTimeout)},
		{110, st("h2", "h3", swim.Dead, swim.ReasonSuspicionTimeout)},
		{120, st("h2", "h3", swim.Dead, swim.ReasonGossip)},
		{125, st("h1", "h3", swim.Dead, swim.ReasonGossip)},
	}
	c := newCounter(map[string]bool{"s1": true, "s2": true}, "h3", 100, 2)
	c.Event(0, "h1", "swim", &swim.MessageSent{Peer: "h2"}) // not a state transition
	for _, r := range stream {
		c.Event(r.at, r.ev.Observer, "swim", r.ev)
	}
	want := Result{FirstNs: 10, FullNs: 25}
	want.Views[Healthy][Slow] = Tally{Suspect: 2, Dead: 1, Accused: 1}
	want.Views[Healthy][Healthy] = Tally{Suspect: 4, Dead: 2, Accused: 1}
	want.Views[Slow][Healthy] = Tally{Suspect: 3, Dead: 1, Accused: 1}
	want.Views[Slow][Slow] = Tally{Suspect: 1}
	if c.res != want {
		t.Errorf("counted\n%+v\nwant\n%+v", c.res, want)
	}
}

// TestCounter_NoCrash: without a kill nothing is detection, and the
// latencies stay "not within the run".
func TestCounter_NoCrash(t *testing.T) {
	c := newCounter(map[string]bool{}, "", 0, 3)
	c.Event(5, "a", "swim", &swim.StateTransition{Observer: "a", Subject: "b", To: swim.Dead, Reason: swim.ReasonGossip})
	if c.res.FirstNs != -1 || c.res.FullNs != -1 || c.res.Views[Healthy][Healthy].Dead != 1 {
		t.Errorf("%+v", c.res)
	}
}
