package sweep

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/detsim/detsim/internal/checked"
)

// Shard is one of Of equal parts of a sweep, numbered from 1: a sweep
// split over machines runs shard 1/n … n/n, one per machine. The zero
// value is the whole sweep.
type Shard struct{ Index, Of uint64 }

// ParseShard reads "i/n" with 1 <= i <= n.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, errI := strconv.ParseUint(a, 10, 32)
	n, errN := strconv.ParseUint(b, 10, 32)
	switch {
	case !ok || errI != nil || errN != nil:
		return Shard{}, fmt.Errorf("shard %q: want i/n, two positive integers (2/4 is the second of four shards)", s)
	case n == 0 || i == 0 || i > n:
		return Shard{}, fmt.Errorf("shard %q: want 1 <= i <= n (shards are numbered 1 to n)", s)
	}
	return Shard{Index: i, Of: n}, nil
}

// String renders the shard as "i/n".
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Of) }

// Seeds returns the contiguous block of the count seeds from start that
// the shard runs: shard i of n gets seeds [start + ⌊(i−1)·count/n⌋,
// start + ⌊i·count/n⌋). The blocks are in shard order and cover every
// seed once, so concatenating the outputs of shards 1 … n gives the
// per-seed lines of the unsharded sweep, in the same order.
func (s Shard) Seeds(start, count uint64) (first, n uint64) {
	if s.Of == 0 {
		return start, count
	}
	lo := checked.MulDivUint64(s.Index-1, count, s.Of)
	hi := checked.MulDivUint64(s.Index, count, s.Of)
	return start + lo, hi - lo
}

// IndexShard reads a 0-based shard index, as a Kubernetes Indexed Job
// (JOB_COMPLETION_INDEX) or a CI matrix gives it, and a shard count:
// index i of n is Shard{i+1, n}. Both are decimal integers, with
// 0 <= index < count; the caller names where they came from in its
// own message.
func IndexShard(index, count string) (Shard, error) {
	n, err := strconv.ParseUint(count, 10, 32)
	if err != nil || n == 0 {
		return Shard{}, fmt.Errorf("shard count %q: want a positive integer", count)
	}
	i, err := strconv.ParseUint(strings.TrimSpace(index), 10, 32)
	switch {
	case err != nil:
		return Shard{}, fmt.Errorf("shard index %q: want an integer from 0 to %d (the index counts from 0)", index, n-1)
	case i >= n:
		return Shard{}, fmt.Errorf("shard index %d: want 0 <= index < %d, the shard count (the index counts from 0)", i, n)
	}
	return Shard{Index: i + 1, Of: n}, nil
}
