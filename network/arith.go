package network

import (
	"math"
	"math/bits"
)

// Every time computation in the send algorithm saturates instead of
// wrapping: a wrapped arrival time would schedule a message in the past,
// while a saturated one only lands after the run ends. The loader bounds
// its inputs, but the network does not rely on it.

// satAdd returns a+b clamped to [math.MinInt64, math.MaxInt64].
func satAdd(a, b int64) int64 {
	s := a + b
	if a >= 0 && b >= 0 && s < 0 {
		return math.MaxInt64
	}
	if a < 0 && b < 0 && s >= 0 {
		return math.MinInt64
	}
	return s
}

// satSub returns a-b clamped to [math.MinInt64, math.MaxInt64].
func satSub(a, b int64) int64 {
	s := a - b
	if b < 0 && s < a {
		return math.MaxInt64
	}
	if b > 0 && s > a {
		return math.MinInt64
	}
	return s
}

// mulDiv returns floor(x*mul/div) for non-negative x and mul, with the
// product held in 128 bits so it never wraps; a quotient above
// math.MaxInt64 saturates. A non-positive div means "infinitely slow" and
// saturates too unless the product is zero.
func mulDiv(x, mul, div int64) int64 {
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
	q, _ := bits.Div64(hi, lo, uint64(div))
	if q > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(q)
}

// serializationNs is how long byteLen bytes occupy a link of bandwidthBps
// bytes per second: floor(byteLen × 10⁹ / bandwidthBps) (spec §5.2).
func serializationNs(byteLen, bandwidthBps int64) int64 {
	return mulDiv(byteLen, 1_000_000_000, bandwidthBps)
}

// below maps one uniform 64-bit draw onto [0, n) by taking the high word
// of draw×n. Unlike rejection sampling it always consumes exactly one draw,
// which keeps the per-send draw count fixed; its bias is below n/2⁶⁴.
func below(draw, n uint64) uint64 {
	hi, _ := bits.Mul64(draw, n)
	return hi
}

// mulDivCeil returns ceil(x*mul/div) for non-negative x and mul and a
// positive div, with the product held in 128 bits; a quotient above
// math.MaxInt64 saturates.
func mulDivCeil(x, mul, div int64) int64 {
	if x <= 0 || mul <= 0 {
		return 0
	}
	if div <= 0 {
		return math.MaxInt64
	}
	hi, lo := bits.Mul64(uint64(x), uint64(mul))
	if hi >= uint64(div) {
		return math.MaxInt64
	}
	q, r := bits.Div64(hi, lo, uint64(div))
	if q >= math.MaxInt64 { // rounding up would pass the maximum either way
		return math.MaxInt64
	}
	if r != 0 {
		q++
	}
	return int64(q)
}

// queuedBytes is how many bytes a wire of bandwidthBps bytes per second
// has yet to send when backlogNs of serialisation remain on it:
// ceil(backlogNs × bandwidthBps / 10⁹), so a byte partly on the wire
// still counts (docs/network.md step 2b). A non-positive bandwidth never
// drains: any backlog on it is a full wire.
func queuedBytes(backlogNs, bandwidthBps int64) int64 {
	if backlogNs <= 0 {
		return 0
	}
	if bandwidthBps <= 0 {
		return math.MaxInt64
	}
	return mulDivCeil(backlogNs, bandwidthBps, 1_000_000_000)
}
