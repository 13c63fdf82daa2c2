package property

import (
	"fmt"
	"strconv"

	"github.com/detsim/detsim/rng"
	"github.com/detsim/detsim/scenarios"
)

// Range is an inclusive range of integers. In a property file it is
// written as one integer (a fixed value) or as a two-element array
// [min, max].
type Range struct {
	Min, Max int64
	set      bool // present in the file
}

// Fixed returns the one-value range [v, v].
func Fixed(v int64) Range { return Range{Min: v, Max: v, set: true} }

// Between returns the range [lo, hi].
func Between(lo, hi int64) Range { return Range{Min: lo, Max: hi, set: true} }

// Set reports whether the file gave the range.
func (r Range) Set() bool { return r.set }

// UnmarshalTOML reads an integer or a [min, max] pair. Bounds are checked
// later, with the key's name in the message.
func (r *Range) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case int64:
		*r = Fixed(x)
		return nil
	case []any:
		if len(x) == 2 {
			lo, okLo := x[0].(int64)
			hi, okHi := x[1].(int64)
			if okLo && okHi {
				*r = Between(lo, hi)
				return nil
			}
		}
	}
	return fmt.Errorf("want an integer or an array [min, max] of two integers, got %s", scenarios.Describe(v))
}

// String renders the range the way a property file writes it.
func (r Range) String() string {
	if r.Min == r.Max {
		return strconv.FormatInt(r.Min, 10)
	}
	return fmt.Sprintf("[%d, %d]", r.Min, r.Max)
}

// check explains what is wrong with r as a range within [lo, hi], or
// returns "".
func (r Range) check(lo, hi int64) string {
	switch {
	case r.Min > r.Max:
		return fmt.Sprintf("%s is empty: min %d is greater than max %d", r, r.Min, r.Max)
	case r.Min < lo:
		return fmt.Sprintf("%s: min must be at least %d", r, lo)
	case r.Max > hi:
		return fmt.Sprintf("%s: max must be at most %d", r, hi)
	}
	return ""
}

// draw returns a value drawn uniformly from r with one draw of s (none
// when r holds one value). r must be non-empty.
func (r Range) draw(s *rng.Stream) int64 {
	if r.Min == r.Max {
		return r.Min
	}
	// Max - Min fits a uint64 even for the widest int64 range.
	return r.Min + int64(s.Below(uint64(r.Max-r.Min)+1))
}
