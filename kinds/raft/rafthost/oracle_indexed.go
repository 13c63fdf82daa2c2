package rafthost

import (
	"maps"
	"slices"
)

// indexed maps raft log indexes to V for the oracles that keep something
// per index: a slice over the indexes seen, which a log's are (dense from
// 1), and a map for an index far past them, so a bundle's wild index
// never sizes the slice. A map alone was a tenth of the judge's time in
// its growth and hashing (docs/BENCHMARKS.md, "The raft kind").
type indexed[V any] struct {
	at   []V
	has  []bool
	far  map[uint64]V
	size int
}

// indexedReach is how far past the indexes held a new one may lie and
// still go in the slice.
const indexedReach = 1 << 16

func (x *indexed[V]) get(i uint64) (V, bool) {
	if i < uint64(len(x.at)) && x.has[i] {
		return x.at[i], true
	}
	v, ok := x.far[i]
	return v, ok
}

// put sets i, which get says is not set.
func (x *indexed[V]) put(i uint64, v V) {
	x.size++
	if i >= uint64(len(x.at)) {
		if i-uint64(len(x.at)) >= indexedReach {
			if x.far == nil {
				x.far = map[uint64]V{}
			}
			x.far[i] = v
			return
		}
		n := int(i) + 1
		x.at = slices.Grow(x.at, n-len(x.at))[:n]
		x.has = slices.Grow(x.has, n-len(x.has))[:n]
	}
	x.at[i], x.has[i] = v, true
}

func (x *indexed[V]) len() int { return x.size }

func (x *indexed[V]) clone() indexed[V] {
	return indexed[V]{at: slices.Clone(x.at), has: slices.Clone(x.has), far: maps.Clone(x.far), size: x.size}
}
