package network

import (
	"cmp"
	"slices"
)

// Graph is a link graph given by regions rather than edges: rows of
// senders, each split into cells of receivers that share one policy. A
// [[links]] file of a few "*" and "eu-*" entries over ten thousand peers
// names a hundred million edges but only a few regions, so the graph
// costs what its entries say, not peers squared, and an edge is made
// only when first used (NewGraph). Positions are in peer-id order of the
// peers the graph is given with; a self pair is never an edge, and a pair
// no cell covers is NoRoute.
type Graph struct {
	Policies []Policy   // indexed by GraphCell.Policy
	Rows     []GraphRow // sorted by Lo, disjoint
}

// GraphRow is the senders Lo..Hi-1 (peer-id order) and where they reach.
type GraphRow struct {
	Lo, Hi int32
	Cells  []GraphCell // sorted by Lo, disjoint
}

// GraphCell is the receivers Lo..Hi-1 (peer-id order) of one policy.
type GraphCell struct {
	Lo, Hi int32
	Policy int32 // index into Graph.Policies
}

// MeshGraph is the full mesh of n peers with policy p.
func MeshGraph(n int, p Policy) Graph {
	if n == 0 {
		return Graph{Policies: []Policy{p}}
	}
	return Graph{Policies: []Policy{p}, Rows: []GraphRow{{Lo: 0, Hi: int32(n), Cells: []GraphCell{{Lo: 0, Hi: int32(n)}}}}}
}

// Lookup returns the policy of the edge from → to (peer-id positions) and
// whether there is one.
func (g *Graph) Lookup(from, to int) (*Policy, bool) {
	if c := g.cell(from, to); c != nil {
		return &g.Policies[c.Policy], true
	}
	return nil, false
}

// cell is the cell holding from → to, or nil for no edge.
func (g *Graph) cell(from, to int) *GraphCell {
	if from == to {
		return nil
	}
	r := g.row(from)
	if r == nil {
		return nil
	}
	i, _ := slices.BinarySearchFunc(r.Cells, to, func(c GraphCell, to int) int { return cmp.Compare(int(c.Hi), to+1) })
	if i < len(r.Cells) && int(r.Cells[i].Lo) <= to {
		return &r.Cells[i]
	}
	return nil
}

// row is the row holding sender from, or nil.
func (g *Graph) row(from int) *GraphRow {
	i, _ := slices.BinarySearchFunc(g.Rows, from, func(r GraphRow, from int) int { return cmp.Compare(int(r.Hi), from+1) })
	if i < len(g.Rows) && int(g.Rows[i].Lo) <= from {
		return &g.Rows[i]
	}
	return nil
}

// rowEdges is how many edges sender from has in row r: its cells' width
// less its own self pair.
func (r *GraphRow) rowEdges(from int) int {
	total := 0
	for _, c := range r.Cells {
		total += int(c.Hi - c.Lo)
		if int(c.Lo) <= from && from < int(c.Hi) {
			total--
		}
	}
	return total
}

// NumEdges is how many directed edges the graph has.
func (g *Graph) NumEdges() int64 {
	var total int64
	for i := range g.Rows {
		r := &g.Rows[i]
		for from := r.Lo; from < r.Hi; from++ {
			total += int64(r.rowEdges(int(from)))
		}
	}
	return total
}

// Each calls fn with every edge in (from, to) peer-id order.
func (g *Graph) Each(fn func(from, to int, p *Policy)) {
	for i := range g.Rows {
		r := &g.Rows[i]
		for from := int(r.Lo); from < int(r.Hi); from++ {
			for _, c := range r.Cells {
				for to := int(c.Lo); to < int(c.Hi); to++ {
					if to != from {
						fn(from, to, &g.Policies[c.Policy])
					}
				}
			}
		}
	}
}
