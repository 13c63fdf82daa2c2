package swim

// State is a member's liveness in some node's view.
type State uint8

// The states a member can be in. The zero value is "none": the node has
// never heard of the member. Wire values are the constants' values.
const (
	stateNone State = 0
	Alive     State = 1
	Suspect   State = 2
	Dead      State = 3
)

// String returns "alive", "suspect", "dead", or "none" for a member the
// node does not know.
func (s State) String() string {
	switch s {
	case Alive:
		return "alive"
	case Suspect:
		return "suspect"
	case Dead:
		return "dead"
	case stateNone:
		return "none"
	}
	return "invalid"
}

func (s State) valid() bool { return s == Alive || s == Suspect || s == Dead }

// Start is how a node begins its life.
type Start uint8

const (
	// Member knows every declared peer as Alive at incarnation 0.
	Member Start = iota
	// Joining knows only Config.Seeds (as Alive at incarnation 0) and
	// sends join_request to them until one answers with its full state.
	Joining
)

// supersedes reports whether an update (state s, incarnation inc) replaces
// a view (state vs, incarnation vinc). The order is lexicographic on
// (incarnation, state) with alive < suspect < dead: a higher incarnation
// always wins, and at equal incarnation suspect beats alive and dead beats
// both. A member nobody has heard of (none) is replaced by anything.
//
// Because the stored incarnation never decreases under this order, a stale
// lower-incarnation alive can never resurrect a dead member (al8n/memberlist
// #197), while a higher-incarnation alive — a refutation or a restart —
// brings it back.
func supersedes(s State, inc uint64, vs State, vinc uint64) bool {
	if vs == stateNone {
		return true
	}
	if inc != vinc {
		return inc > vinc
	}
	return s > vs
}
