package network

import "github.com/detsim/detsim/internal/checked"

// ApplyMutation applies m at virtual time at (spec §5.5 as amended by
// DESIGN §4) and returns the in-flight deliveries it cuts, plus cache-state
// notes for the edges it turned Cold.
//
//   - Partition stacks: the active set becomes the union of every
//     Partition since the last Heal. It cuts each declared edge between
//     PeersA and PeersB in both directions; their in-flight deliveries are
//     invalidated (Partitioned) and the edges turn Cold.
//   - Heal clears the whole partition set; it invalidates nothing and
//     leaves the edges Cold until their next send dials.
//   - LatencySpike, LossBurst and RelayBuffer are active on the named
//     edges during [at, at+DurationNs). They never touch deliveries
//     already in flight. If two of the same kind overlap on one edge, the
//     later-applied one governs while it is active.
//   - PeerKill invalidates the deliveries in flight to the peer
//     (PeerKilled) and turns every edge to and from it Cold; deliveries
//     the peer sent before dying still arrive.
//   - PeerResurrect, PeerPause and Cancel are the engine's business: the network
//     does nothing.
//
// Invalidations come in (From, To) peer-id order, then by delivery id;
// notes in (From, To) order. A delivery arriving exactly at `at` is
// included because the network cannot know whether the engine has popped
// it yet: the engine must ignore ids no longer in its queue. Peer ids or
// edges the network does not know are skipped. Both returned slices are
// buffers reused by the next ApplyMutation.
func (n *Network) ApplyMutation(m *Mutation, at int64) ([]Invalidated, []Note) {
	n.invalidated = n.invalidated[:0]
	n.mutNotes = n.mutNotes[:0]
	n.observe(at)
	n.flows.each(func(f *edgeFlow) { f.prune(at) })

	switch m.Kind {
	case Partition:
		inA, inB := n.members(m.PeersA), n.members(m.PeersB)
		if n.graph != nil {
			n.cuts = append(n.cuts, meshCut{n.rankBits(inA), n.rankBits(inB)})
			n.partitioned = n.cutPairs()
		}
		n.eachEdgeBetween(func(from, to int) bool { return (inA[from] && inB[to]) || (inB[from] && inA[to]) },
			func(e *edgeState) {
				f := n.use(e)
				if !f.partitioned && n.graph == nil {
					n.partitioned++
				}
				f.partitioned = true
				n.cut(e, f, Partitioned)
			})
	case Heal:
		n.flows.each(func(f *edgeFlow) { f.partitioned = false })
		n.partitioned = 0
		n.cuts = nil
	case LatencySpike, LossBurst, RelayBuffer:
		ef := effect{kind: m.Kind, start: at, until: checked.Add(at, max(m.DurationNs, 0)), value: m.effectValue()}
		for _, l := range m.Links {
			from, okF := n.index[l.From]
			to, okT := n.index[l.To]
			if !okF || !okT {
				continue
			}
			if e := n.edge(from, to); e != nil {
				f := n.use(e)
				if !f.effected {
					f.effected = true
					n.effected = append(n.effected, e.flow-1)
				}
				f.effects = append(f.effects, ef)
			}
		}
	case PeerKill:
		peer, ok := n.index[m.Peer]
		if !ok {
			break
		}
		n.eachUsedEdgeOf(peer, func(e *edgeState, f *edgeFlow) {
			switch {
			case int(e.to) == peer:
				n.cut(e, f, PeerKilled)
			case int(e.from) == peer:
				if n.cool(f) {
					n.mutNotes = append(n.mutNotes, cacheNote(e, f, CutByMutation))
				}
			}
		})
	}
	return n.invalidated, n.mutNotes
}

// cut invalidates e's in-flight deliveries for reason and turns e Cold;
// f is e's flow.
func (n *Network) cut(e *edgeState, f *edgeFlow, reason DropReason) {
	for _, d := range f.inFlight {
		n.invalidated = append(n.invalidated, Invalidated{
			ID: d.id, From: int(e.from), To: int(e.to), At: d.at, Reason: reason, Dialed: d.dialed,
		})
	}
	f.inFlight = f.inFlight[:0]
	if n.cool(f) {
		n.mutNotes = append(n.mutNotes, cacheNote(e, f, CutByMutation))
	}
}

// eachUsedEdgeOf calls fn with every edge to or from peer that has a
// flow (an unused edge is Cold with nothing in flight), in (From, To)
// peer-id order.
func (n *Network) eachUsedEdgeOf(peer int, fn func(e *edgeState, f *edgeFlow)) {
	visit := func(e *edgeState) {
		if e == nil || (int(e.from) != peer && int(e.to) != peer) {
			return
		}
		if f := n.flowOf(e); f != nil {
			fn(e, f)
		}
	}
	if n.graph == nil {
		for i := range n.edges {
			visit(&n.edges[i])
		}
		return
	}
	for _, from := range n.order {
		if int(from) != peer {
			visit(n.existing(int(from), peer))
			continue
		}
		for _, to := range n.order {
			if to != from {
				visit(n.existing(peer, int(to)))
			}
		}
	}
}

// members marks the host indices of ids; unknown ids are skipped.
func (n *Network) members(ids []string) []bool {
	in := make([]bool, n.n)
	for _, id := range ids {
		if i, ok := n.index[id]; ok {
			in[i] = true
		}
	}
	return in
}

// effectValue is the parameter a timed mutation applies: the spike factor
// (×100), the loss override (ppm) or the relay floor (ns), never negative.
func (m *Mutation) effectValue() int64 {
	switch m.Kind {
	case LatencySpike:
		return max(m.FactorX100, 0)
	case LossBurst:
		return max(m.ProbPPM, 0)
	case RelayBuffer:
		return max(m.FloorNs, 0)
	}
	return 0
}
