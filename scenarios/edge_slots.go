package scenarios

import "github.com/detsim/detsim/network"

// indexedLink is an edge by peer indices, while links resolve.
type indexedLink struct {
	from, to int
	policy   network.Policy
}

// edgeSlots finds an edge's slot in links by peer indices: through a dense
// n×n table when that is small, else through a map, so that resolving
// millions of "*" expansions stays fast for every peer count.
type edgeSlots struct {
	n      int
	dense  []int32 // slot+1, 0 = none
	sparse map[int]int32
	links  []indexedLink
}

func newEdgeSlots(n, capacity int) *edgeSlots {
	s := &edgeSlots{n: n, links: make([]indexedLink, 0, capacity)}
	if n*n <= MaxLinkExpansion {
		s.dense = make([]int32, n*n)
	} else {
		s.sparse = make(map[int]int32, capacity)
	}
	return s
}

// policy returns the edge's policy, creating it as def on first use.
func (s *edgeSlots) policy(from, to int, def network.Policy) *network.Policy {
	key := from*s.n + to
	var slot int32
	if s.dense != nil {
		slot = s.dense[key]
	} else {
		slot = s.sparse[key]
	}
	if slot == 0 {
		s.links = append(s.links, indexedLink{from: from, to: to, policy: def})
		slot = int32(len(s.links))
		if s.dense != nil {
			s.dense[key] = slot
		} else {
			s.sparse[key] = slot
		}
	}
	return &s.links[slot-1].policy
}
