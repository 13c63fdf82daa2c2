package checked

import (
	"math"
	"testing"
)

const max, min = math.MaxInt64, math.MinInt64

func TestAdd(t *testing.T) {
	for _, tc := range []struct{ a, b, want int64 }{
		{1, 2, 3},
		{0, 0, 0},
		{-5, 3, -2},
		{max, 1, max},
		{max - 5, 10, max},
		{max, max, max},
		{min, -1, min},
		{min, min, min},
		{max, min, -1},
		{min + 5, -10, min},
	} {
		if got := Add(tc.a, tc.b); got != tc.want {
			t.Errorf("Add(%d, %d) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := Add(tc.b, tc.a); got != tc.want {
			t.Errorf("Add(%d, %d) = %d, want %d (not commutative)", tc.b, tc.a, got, tc.want)
		}
	}
}

func TestSub(t *testing.T) {
	for _, tc := range []struct{ a, b, want int64 }{
		{5, 3, 2},
		{3, 5, -2},
		{max, -1, max},
		{min, 1, min},
		{0, min, max},
		{-1, min, max},
		{-2, max, min},
		{max, max, 0},
	} {
		if got := Sub(tc.a, tc.b); got != tc.want {
			t.Errorf("Sub(%d, %d) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestMulDiv(t *testing.T) {
	for _, tc := range []struct {
		name                     string
		x, mul, div, floor, ceil int64
	}{
		{"exact", 6, 5, 3, 10, 10},
		{"floors and ceils", 3, 1_000_000_000, 2, 1_500_000_000, 1_500_000_000},
		{"a remainder", 7, 1, 2, 3, 4},
		{"product above 2^64, quotient fits", 1 << 40, 1 << 30, 1 << 10, 1 << 60, 1 << 60},
		{"quotient above MaxInt64 saturates", max, 4, 2, max, max},
		{"quotient above 2^64 saturates", max, max, 1, max, max},
		{"max*max/max", max, max, max, max, max},
		{"largest exact quotient", max, 1, 1, max, max},
		{"zero x", 0, 5, 0, 0, 0},
		{"negative x", -7, 1, 1, 0, 0},
		{"negative mul", 7, -1, 1, 0, 0},
		{"zero div is infinitely slow", 1, 1, 0, max, max},
		{"negative div is infinitely slow", 1, 1, -3, max, max},
	} {
		if got := MulDiv(tc.x, tc.mul, tc.div); got != tc.floor {
			t.Errorf("%s: MulDiv(%d, %d, %d) = %d, want %d", tc.name, tc.x, tc.mul, tc.div, got, tc.floor)
		}
		if got := MulDivCeil(tc.x, tc.mul, tc.div); got != tc.ceil {
			t.Errorf("%s: MulDivCeil(%d, %d, %d) = %d, want %d", tc.name, tc.x, tc.mul, tc.div, got, tc.ceil)
		}
	}
}

func TestMulDivUint64(t *testing.T) {
	for _, tc := range []struct{ a, b, c, want uint64 }{
		{0, 100, 3, 0},
		{1, 100, 3, 33},
		{2, 100, 3, 66},
		{3, 100, 3, 100},
		{3, math.MaxUint64, 4, 3<<62 - 1}, // (3·2⁶⁴ - 3) / 4
		{math.MaxUint64, math.MaxUint64, math.MaxUint64, math.MaxUint64},
		{math.MaxUint64, 2, 1, math.MaxUint64},
		{1, 1, 0, math.MaxUint64},
	} {
		if got := MulDivUint64(tc.a, tc.b, tc.c); got != tc.want {
			t.Errorf("MulDivUint64(%d, %d, %d) = %d, want %d", tc.a, tc.b, tc.c, got, tc.want)
		}
	}
}
