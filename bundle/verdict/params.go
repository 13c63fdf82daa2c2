package verdict

import (
	"math"
	"slices"

	"github.com/detsim/detsim/scenarios"
)

// newChecker builds the checker of p's kind. It reports false for a
// value that is none of the ten scenarios structs (a pointer to one).
func newChecker(w *world, p scenarios.AssertionParams) (checker, bool) {
	switch p := p.(type) {
	case scenarios.AllAliveAt:
		return newAllAliveAt(w, p), true
	case scenarios.AllAliveThroughout:
		return newAllAliveThroughout(w, p), true
	case scenarios.ConvergenceAfter:
		return newConvergence(w, p), true
	case scenarios.NoFlapWhileProbesOK:
		return newNoFlap(w, p), true
	case scenarios.NoDeadWhenProbesOK:
		return newNoDead(w, p), true
	case scenarios.SelfIncarnationBounded:
		return newSelfIncarnation(w, p), true
	case scenarios.MessageSizeBounded:
		return newMessageSize(w, p), true
	case scenarios.DeadPeerResurrectsWithin:
		return newResurrects(w, p), true
	case scenarios.EventCount:
		return newEventCount(w, p), true
	case scenarios.EventRate:
		return newEventRate(w, p), true
	}
	return nil, false
}

// satAdd adds two non-negative times, saturating at the largest int64.
func satAdd(a, b int64) int64 {
	if b > math.MaxInt64-a {
		return math.MaxInt64
	}
	return a + b
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
