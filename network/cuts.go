package network

import (
	"math/bits"
	"slices"
	"strings"
)

// meshCut is one active Partition on a mesh: its two sides as bitsets
// of host indices. A mesh does not make the edges a Partition crosses
// (at 10 000 peers a 5 000 | 5 000 cut is fifty million): an edge made
// later is born partitioned when a cut crosses it (edge), the links
// view asks the cuts of an edge not yet made (LinkRangeAt), and the
// partitioned count is worked out from the cuts (cutPairs).
type meshCut struct{ a, b []uint64 }

func bitset(in []bool) []uint64 {
	s := make([]uint64, (len(in)+63)/64)
	for i, v := range in {
		if v {
			s[i/64] |= 1 << (i % 64)
		}
	}
	return s
}

func has(s []uint64, i int) bool { return s[i/64]&(1<<(i%64)) != 0 }

// crossesCut reports whether an active mesh cut separates from and to.
func (n *Network) crossesCut(from, to int) bool {
	for _, c := range n.cuts {
		if has(c.a, from) && has(c.b, to) || has(c.b, from) && has(c.a, to) {
			return true
		}
	}
	return false
}

// cutPairs is how many ordered pairs of distinct peers some active cut
// separates: per peer, the union of the other sides of the cuts it is
// on, one bitset row at a time (peers × cuts × peers/64 word
// operations, at a Partition only).
func (n *Network) cutPairs() int {
	row := make([]uint64, (n.n+63)/64)
	total := 0
	for i := range n.n {
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
		for _, v := range row {
			total += bits.OnesCount64(v)
		}
	}
	return total
}

// eachEdgeBetween calls fn with every edge whose pair between(from, to)
// holds, in (From, To) peer-id order. On a mesh only the edges already
// made are visited: one not made has nothing in flight to cut.
func (n *Network) eachEdgeBetween(between func(from, to int) bool, fn func(e *edgeState)) {
	if !n.mesh {
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
