package swim

import (
	"math"
	"math/bits"
)

// fixedOne is 1.0 in the Q57 fixed-point format log10Fixed uses. Q57 leaves
// room for values below 100 (100·2^57 < 2^64), which is what the product of
// two mantissas in [1, 10) needs before it is renormalised.
const fixedOne = uint64(1) << 57

// log10Fixed returns floor(10^frac · log10(x)) for x ≥ 1 and 0 ≤ frac ≤ 6,
// computed with integers only so that no decision depends on floating-point
// rounding. The integer part is the number of decimal digits minus one; each
// fractional digit is the decimal exponent of the mantissa raised to the
// tenth power (the classic digit-by-digit method). Powers of ten are exact;
// other values are truncated, never rounded up. x = 0 returns 0.
func log10Fixed(x uint64, frac int) int64 {
	if x == 0 {
		return 0
	}
	intPart := int64(0)
	pow := uint64(1)
	for x/pow >= 10 {
		pow *= 10
		intPart++
	}
	// mantissa = x / pow in [1, 10), as Q57.
	hi, lo := bits.Mul64(x, fixedOne)
	m, _ := bits.Div64(hi, lo, pow)
	result := intPart
	for range frac {
		x2, e2 := mulNorm(m, m)
		x4, e4 := mulNorm(x2, x2)
		x5, e5 := mulNorm(x4, m)
		x10, e10 := mulNorm(x5, x5)
		digit := 2*(e5+e4+2*e2) + e10
		m = x10
		result = result*10 + digit
	}
	return result
}

// mulNorm multiplies two Q57 mantissas in [1, 10) and renormalises the
// product into [1, 10), returning the decimal exponent it removed (0 or 1).
func mulNorm(a, b uint64) (uint64, int64) {
	hi, lo := bits.Mul64(a, b)
	v := hi<<(64-57) | lo>>57
	if v >= 10*fixedOne {
		return v / 10, 1
	}
	return v, 0
}

// ceilLog10 returns the smallest d ≥ 0 with 10^d ≥ x (x = 0 gives 0): the
// exact integer value of ceil(log10(x)).
func ceilLog10(x uint64) int64 {
	d := int64(0)
	for p := uint64(1); p < x; d++ {
		if p > math.MaxUint64/10 {
			return d + 1
		}
		p *= 10
	}
	return d
}

// satMul, satAdd and mulDiv are the simulator's internal/checked in
// miniature. This package imports nothing of the simulator (a production
// service links it alone), so it keeps its own small copies, with the
// narrower contracts it needs: non-negative operands, and a non-positive
// divisor gives 0 where checked.MulDiv saturates.

// satMul returns a·b for non-negative a and b, saturating at MaxInt64
// instead of wrapping.
func satMul(a, b int64) int64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(lo)
}

// satAdd returns a+b for non-negative b, saturating at MaxInt64.
func satAdd(a, b int64) int64 {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// mulDiv returns floor(a·b/c) for non-negative a, b and positive c,
// computed in 128 bits and saturating at MaxInt64.
func mulDiv(a, b, c int64) int64 {
	if a <= 0 || b <= 0 || c <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi >= uint64(c) {
		return math.MaxInt64
	}
	q, _ := bits.Div64(hi, lo, uint64(c))
	if q > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(q)
}

// Rand is the node's only source of randomness. The simulator passes the
// host's own substream; a production service passes any uniform 64-bit
// generator.
type Rand interface{ Uint64() uint64 }

// below returns a uniform integer in [0, n) for n > 0 (Lemire's
// multiply-and-reject method, so no modulo bias).
func below(r Rand, n uint64) uint64 {
	hi, lo := bits.Mul64(r.Uint64(), n)
	if lo < n {
		threshold := -n % n
		for lo < threshold {
			hi, lo = bits.Mul64(r.Uint64(), n)
		}
	}
	return hi
}

// shuffle permutes s uniformly (Fisher–Yates) with draws from r.
func shuffle(r Rand, s []int32) {
	for i := len(s) - 1; i > 0; i-- {
		j := below(r, uint64(i+1))
		s[i], s[j] = s[j], s[i]
	}
}
