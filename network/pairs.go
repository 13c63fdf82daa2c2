package network

import "maps"

// denseMaxPeers is the most peers whose pair index is a flat n×n table:
// one load per send, 4 MiB at 1 024 peers. Beyond, the index is a map
// holding only the pairs that are edges (declared, or a mesh's in use),
// so memory follows what the scenario declares and uses, not peers
// squared (a flat table at 9 999 peers is 400 MB before anything runs).
const denseMaxPeers = 1024

// pairIndex maps an ordered pair of host indices to an int32, -1 when
// absent.
type pairIndex struct {
	n      int
	dense  []int32
	sparse map[uint64]int32
}

func newPairIndex(n int) pairIndex {
	if n > denseMaxPeers {
		return pairIndex{n: n, sparse: map[uint64]int32{}}
	}
	d := make([]int32, n*n)
	for i := range d {
		d[i] = -1
	}
	return pairIndex{n: n, dense: d}
}

func (p *pairIndex) get(from, to int) int32 {
	if p.sparse == nil {
		return p.dense[from*p.n+to]
	}
	if v, ok := p.sparse[uint64(from)<<32|uint64(to)]; ok {
		return v
	}
	return -1
}

func (p *pairIndex) set(from, to int, v int32) {
	if p.sparse == nil {
		p.dense[from*p.n+to] = v
		return
	}
	p.sparse[uint64(from)<<32|uint64(to)] = v
}

func (p *pairIndex) clone() pairIndex {
	if p.sparse == nil {
		return pairIndex{n: p.n, dense: append([]int32(nil), p.dense...)}
	}
	return pairIndex{n: p.n, sparse: maps.Clone(p.sparse)}
}

// approxBytes is the index's memory, a map entry taken at 24 bytes.
func (p *pairIndex) approxBytes() int64 {
	if p.sparse == nil {
		return 4 * int64(len(p.dense))
	}
	return 24 * int64(len(p.sparse))
}
