// Package checked is integer arithmetic that saturates instead of wrapping,
// with products held in 128 bits (DESIGN §3: "arithmetic that can overflow
// uses math/bits 128-bit helpers or checked math; never a wrap"). A
// saturated virtual time lands after the end of any run, where a wrapped
// one would land in the past.
//
// Every function is small enough to inline: the network's send path calls
// them several times per message.
package checked

import (
	"math"
	"math/bits"
)

// Add returns a+b clamped to [math.MinInt64, math.MaxInt64].
func Add(a, b int64) int64 {
	s := a + b
	if a >= 0 && b >= 0 && s < 0 {
		return math.MaxInt64
	}
	if a < 0 && b < 0 && s >= 0 {
		return math.MinInt64
	}
	return s
}

// Sub returns a-b clamped to [math.MinInt64, math.MaxInt64].
func Sub(a, b int64) int64 {
	s := a - b
	if b < 0 && s < a {
		return math.MaxInt64
	}
	if b > 0 && s > a {
		return math.MinInt64
	}
	return s
}

// MulDiv returns floor(x*mul/div) for non-negative x and mul, with the
// product held in 128 bits so it never wraps; a quotient above
// math.MaxInt64 saturates. A non-positive x or mul gives 0; otherwise a
// non-positive div means "infinitely slow" and saturates.
func MulDiv(x, mul, div int64) int64 { return mulDiv(x, mul, div, false) }

// MulDivCeil is MulDiv rounding up: ceil(x*mul/div), saturating the same
// way.
func MulDivCeil(x, mul, div int64) int64 { return mulDiv(x, mul, div, true) }

func mulDiv(x, mul, div int64, up bool) int64 {
	if x <= 0 || mul <= 0 {
		return 0
	}
	if div <= 0 {
		return math.MaxInt64
	}
	hi, lo := bits.Mul64(uint64(x), uint64(mul))
	if hi >= uint64(div) { // the quotient would not fit in 64 bits
		return math.MaxInt64
	}
	q, r := bits.Div64(hi, lo, uint64(div))
	if q > math.MaxInt64 {
		return math.MaxInt64
	}
	if up && r != 0 {
		q++ // at most 2^63: rounding up from the maximum saturates below
	}
	if q > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(q)
}

// MulDivUint64 returns floor(a*b/c) with the product held in 128 bits; a
// quotient of 2^64 or more, or a zero c, saturates at math.MaxUint64.
func MulDivUint64(a, b, c uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	if hi >= c {
		return math.MaxUint64
	}
	q, _ := bits.Div64(hi, lo, c)
	return q
}
