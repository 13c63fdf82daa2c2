package network

import (
	"fmt"
	"slices"
)

// LinkView is one edge as the terminal stepper shows it.
type LinkView struct {
	From, To string
	// FromIdx and ToIdx are From's and To's host indices (peer order).
	FromIdx, ToIdx int
	State          CacheState
	LastSendNs     int64 // 0 until the first send that arrived
	InFlight       int   // deliveries not yet past their arrival time
	// Active lists the mutations in force on the edge, e.g. "Partitioned",
	// "LatencySpike ×4.50 until 65000000000", in the order applied.
	Active []string
}

// Links describes every declared edge, sorted by (From, To), as of the
// latest time the network was given (by Send or ApplyMutation). It
// allocates and is meant for the UI, not the hot path.
func (n *Network) Links() []LinkView { return n.LinkRangeAt(0, n.NumLinks(), n.seen) }

// LinksAt is Links as of virtual time now (not before the latest time the
// network was given): in-flight counts and mutations in force are those
// at now, not at the last send on the edge or anywhere else.
func (n *Network) LinksAt(now int64) []LinkView { return n.LinkRangeAt(0, n.NumLinks(), now) }

// LinkRange is Links[lo:hi] (clamped) without building the others: a
// viewer over a thousand-peer mesh's million edges builds the ones on
// screen. NumLinks and LinkCounts give what a title needs.
func (n *Network) LinkRange(lo, hi int) []LinkView { return n.LinkRangeAt(lo, hi, n.seen) }

// LinkRangeAt is LinkRange as of virtual time now, as LinksAt.
func (n *Network) LinkRangeAt(lo, hi int, now int64) []LinkView {
	now = max(now, n.seen)
	lo, hi = max(lo, 0), min(hi, n.NumLinks())
	views := make([]LinkView, 0, max(hi-lo, 0))
	for i := lo; i < hi; i++ {
		from, to := n.pairAt(i)
		v := LinkView{From: n.peers[from], To: n.peers[to], FromIdx: from, ToIdx: to}
		f := n.flowOf(n.existing(from, to))
		if f == nil && n.crossesCut(from, to) { // a graph's edge not made yet
			v.Active = append(v.Active, "Partitioned")
		}
		if f != nil {
			v.State, v.LastSendNs, v.InFlight = f.state, f.lastSendNs, f.inFlightAt(now)
			if f.partitioned {
				v.Active = append(v.Active, "Partitioned")
			}
			for _, ef := range f.effects {
				if ef.start <= now && now < ef.until {
					v.Active = append(v.Active, ef.String())
				}
			}
		}
		views = append(views, v)
	}
	return views
}

// NumLinks is the number of declared edges, len(Links()).
func (n *Network) NumLinks() int {
	if n.graph != nil {
		return n.rowStart[n.n]
	}
	return len(n.edges)
}

// pairAt is the i-th declared edge in (From, To) peer-id order. A graph's
// is worked out, not stored: its sender from the row counts, its
// receiver by walking that sender's cells.
func (n *Network) pairAt(i int) (from, to int) {
	if n.graph == nil {
		e := &n.edges[i]
		return int(e.from), int(e.to)
	}
	r, _ := slices.BinarySearch(n.rowStart, i+1)
	r-- // the last sender whose edges start at or before i
	k := i - n.rowStart[r]
	for _, c := range n.graph.row(r).Cells {
		w := int(c.Hi - c.Lo)
		self := int(c.Lo) <= r && r < int(c.Hi)
		if self {
			w--
		}
		if k < w {
			to := int(c.Lo) + k
			if self && to >= r {
				to++ // the sender's own position is not an edge
			}
			return int(n.order[r]), int(n.order[to])
		}
		k -= w
	}
	panic("network: pairAt out of range")
}

// LinkCounts returns how many edges Links would show Cold and how many
// with a mutation in force, without building them: the cold count is
// kept as edges change state, the mutated count from the partitioned
// count and the few edges timed effects ever touched.
func (n *Network) LinkCounts() (cold, mutated int) {
	mutated = n.partitioned
	for _, fi := range n.effected {
		f := n.flows.at(fi)
		if f.partitioned {
			continue
		}
		for _, ef := range f.effects {
			if ef.start <= n.seen && n.seen < ef.until {
				mutated++
				break
			}
		}
	}
	return n.NumLinks() - n.notCold, mutated
}

// InFlight counts the deliveries on every edge that do not arrive before
// now.
func (n *Network) InFlight(now int64) int {
	total := 0
	n.flows.each(func(f *edgeFlow) { total += f.inFlightAt(now) })
	return total
}

// String renders an effect for LinkView.Active.
func (ef effect) String() string {
	switch ef.kind {
	case LatencySpike:
		return fmt.Sprintf("LatencySpike ×%d.%02d until %d", ef.value/100, ef.value%100, ef.until)
	case LossBurst:
		return fmt.Sprintf("LossBurst %dppm until %d", ef.value, ef.until)
	case RelayBuffer:
		return fmt.Sprintf("RelayBuffer floor %dns until %d", ef.value, ef.until)
	}
	return ef.kind.String()
}
