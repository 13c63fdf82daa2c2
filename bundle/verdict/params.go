package verdict

import (
	"slices"

	"github.com/detsim/detsim/scenarios"
)

// constructor returns the function building the checker of p's kind, or
// nil for a value that is none of the ten scenarios structs (a pointer to
// one, say). Building nothing yet, it lets New check p first.
func constructor(p scenarios.AssertionParams) func(*world) checker {
	switch p := p.(type) {
	case scenarios.AllAliveAt:
		return func(w *world) checker { return newAllAliveAt(w, p) }
	case scenarios.AllAliveThroughout:
		return func(w *world) checker { return newAllAliveThroughout(w, p) }
	case scenarios.ConvergenceAfter:
		return func(w *world) checker { return newConvergence(w, p) }
	case scenarios.NoFlapWhileProbesOK:
		return func(w *world) checker { return newNoFlap(w, p) }
	case scenarios.NoDeadWhenProbesOK:
		return func(w *world) checker { return newNoDead(w, p) }
	case scenarios.SelfIncarnationBounded:
		return func(w *world) checker { return newSelfIncarnation(w, p) }
	case scenarios.MessageSizeBounded:
		return func(w *world) checker { return newMessageSize(w, p) }
	case scenarios.DeadPeerResurrectsWithin:
		return func(w *world) checker { return newResurrects(w, p) }
	case scenarios.EventCount:
		return func(w *world) checker { return newEventCount(w, p) }
	case scenarios.EffectOutcomeOnce, scenarios.CancelSettlesWithin, scenarios.NoTornSuccess, scenarios.NoLostAck,
		scenarios.ToolResultMatched, scenarios.OutputBounded, scenarios.RetryBudget:
		return func(w *world) checker { return newOracle(p) }
	case scenarios.ResponseBounded:
		return func(*world) checker { return newResponseBounded(p) }
	case scenarios.TurnOutcomeOnce:
		return func(*world) checker { return newTurnOutcomeOnce(p) }
	case scenarios.NoCommitAfterSettle:
		return func(*world) checker { return newNoCommitAfterSettle(p) }
	case scenarios.EventRate:
		return func(w *world) checker { return newEventRate(w, p) }
	}
	return nil
}

// peerSet is an assertion's named peers: their world indices in the
// order the scenario listed them, and each index's position in that
// order (-1 when not named). It never changes after New, so clones share
// it.
type peerSet struct {
	order []int32
	pos   []int32 // by world index; shorter than the world when later ids are unnamed
}

// newPeerSet interns names in order; a repeated name counts once, at its
// first place (code-built assertions may repeat one; the loader rejects
// that).
func newPeerSet(w *world, names []string) peerSet {
	s := peerSet{}
	var seen []string
	for _, n := range names {
		if slices.Contains(seen, n) {
			continue
		}
		seen = append(seen, n)
		s.order = append(s.order, w.intern(n))
	}
	s.pos = make([]int32, len(w.names))
	for i := range s.pos {
		s.pos[i] = -1
	}
	for p, i := range s.order {
		s.pos[i] = int32(p)
	}
	return s
}

func (s peerSet) has(i int32) bool { return int(i) < len(s.pos) && s.pos[i] >= 0 }
