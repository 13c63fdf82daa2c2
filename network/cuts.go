package network

import (
	"math/bits"
	"slices"
	"strings"
)

// meshCut is one active Partition on a graph (NewGraph): its two sides
// as bitsets of peer-id positions. A graph does not make the edges a
// Partition crosses (at 10 000 peers a 5 000 | 5 000 cut of a mesh is
// fifty million): an edge made later is born partitioned when a cut
// crosses it (edge), the links view asks the cuts of an edge not yet
// made (LinkRangeAt), and the partitioned count is worked out from the
// cuts and the graph (cutPairs).
type meshCut struct{ a, b []uint64 }

// rankBits is the bitset of the peer-id positions of the hosts in.
func (n *Network) rankBits(in []bool) []uint64 {
	s := make([]uint64, (len(in)+63)/64)
	for i, v := range in {
		if v {
			r := n.rank[i]
			s[r/64] |= 1 << (r % 64)
		}
	}
	return s
}

func has(s []uint64, i int) bool { return s[i/64]&(1<<(i%64)) != 0 }

// crossesCut reports whether an active cut separates hosts from and to.
func (n *Network) crossesCut(from, to int) bool {
	if len(n.cuts) == 0 {
		return false
	}
	rf, rt := int(n.rank[from]), int(n.rank[to])
	for _, c := range n.cuts {
		if has(c.a, rf) && has(c.b, rt) || has(c.b, rf) && has(c.a, rt) {
			return true
		}
	}
	return false
}

// cutPairs is how many of the graph's edges some active cut separates:
// per sender, the union of the other sides of the cuts it is on, one
// bitset row at a time, counted over the sender's cells (peers × cuts ×
// peers/64 word operations, at a Partition only).
func (n *Network) cutPairs() int {
	row := make([]uint64, (n.n+63)/64)
	total := 0
	for i := range n.n {
		gr := n.graph.row(i)
		if gr == nil {
			continue
		}
		clear(row)
		on := false
		for _, c := range n.cuts {
			for _, side := range [2][2][]uint64{{c.a, c.b}, {c.b, c.a}} {
				if has(side[0], i) {
					on = true
					for w, v := range side[1] {
						row[w] |= v
					}
				}
			}
		}
		if !on {
			continue
		}
		row[i/64] &^= 1 << (i % 64)
		for _, c := range gr.Cells {
			total += onesIn(row, int(c.Lo), min(int(c.Hi), n.n))
		}
	}
	return total
}

// onesIn counts the set bits of s at positions lo..hi-1.
func onesIn(s []uint64, lo, hi int) int {
	total := 0
	for lo < hi {
		w, b := lo/64, lo%64
		span := min(64-b, hi-lo)
		mask := ^uint64(0) >> (64 - span) << b
		total += bits.OnesCount64(s[w] & mask)
		lo += span
	}
	return total
}

// eachEdgeBetween calls fn with every edge whose pair between(from, to)
// holds, in (From, To) peer-id order. On a graph only the edges already
// made are visited: one not made has nothing in flight to cut.
func (n *Network) eachEdgeBetween(between func(from, to int) bool, fn func(e *edgeState)) {
	if n.graph == nil {
		for i := range n.edges {
			if e := &n.edges[i]; between(int(e.from), int(e.to)) {
				fn(e)
			}
		}
		return
	}
	var hit []int
	for i := range n.edges {
		if e := &n.edges[i]; between(int(e.from), int(e.to)) {
			hit = append(hit, i)
		}
	}
	slices.SortFunc(hit, func(x, y int) int {
		ex, ey := &n.edges[x], &n.edges[y]
		if c := strings.Compare(n.peers[ex.from], n.peers[ey.from]); c != 0 {
			return c
		}
		return strings.Compare(n.peers[ex.to], n.peers[ey.to])
	})
	for _, i := range hit {
		fn(&n.edges[i])
	}
}
