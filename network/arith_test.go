package network

import (
	"math"
	"testing"
)

func TestSerializationNs_128BitNeverWraps_5_2(t *testing.T) {
	for _, tc := range []struct {
		name       string
		bytes, bps int64
		want       int64
	}{
		{"spec formula floors", 3, 2, 1_500_000_000},
		{"1500 B at 10 Mbit/s", 1500, 1_250_000, 1_200_000},
		{"1 GB at 1 B/s fits exactly", 1_000_000_000, 1, 1_000_000_000_000_000_000},
		{"10 GB at 1 B/s saturates", 10_000_000_000, 1, math.MaxInt64},
		{"max bytes at 1 B/s saturates", math.MaxInt64, 1, math.MaxInt64},
		{"max bytes at max bandwidth", math.MaxInt64, math.MaxInt64, 1_000_000_000},
		{"product above 2^64 but quotient fits", 1 << 40, 1 << 30, 1_024_000_000_000},
		{"zero bytes are instant", 0, 1, 0},
		{"zero bytes on a dead link are instant", 0, 0, 0},
		{"non-positive bandwidth is infinitely slow", 1, 0, math.MaxInt64},
		{"negative bytes are instant", -7, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := serializationNs(tc.bytes, tc.bps); got != tc.want {
				t.Errorf("serializationNs(%d, %d) = %d, want %d", tc.bytes, tc.bps, got, tc.want)
			}
		})
	}
}

func TestBelow(t *testing.T) {
	for _, tc := range []struct{ draw, n, want uint64 }{
		{0, 10, 0},
		{math.MaxUint64, 10, 9},
		{1 << 63, 10, 5},
		{math.MaxUint64, 1, 0},
	} {
		if got := below(tc.draw, tc.n); got != tc.want {
			t.Errorf("below(%d, %d) = %d, want %d", tc.draw, tc.n, got, tc.want)
		}
	}
}

func TestQueuedBytes_RoundsUpAndNeverWraps(t *testing.T) {
	for _, tc := range []struct {
		name         string
		backlog, bps int64
		want         int64
	}{
		{"idle wire", 0, 1000, 0},
		{"drained wire (end before now)", -5, 1000, 0},
		{"whole bytes", 100_000_000, 1000, 100},
		{"a partly sent byte counts", 100_000_001, 1000, 101},
		{"inverse of serialisation at 3 B/s", serializationNs(7, 3), 3, 7},
		{"1 B/s, 4 MiB of wire time", (4 << 20) * 1_000_000_000, 1, 4 << 20},
		{"product above 2^64", math.MaxInt64, math.MaxInt64, math.MaxInt64},
		{"max backlog at 1 B/s", math.MaxInt64, 1, 9_223_372_037},
		{"a non-positive bandwidth never drains", 1, 0, math.MaxInt64},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := queuedBytes(tc.backlog, tc.bps); got != tc.want {
				t.Errorf("queuedBytes(%d, %d) = %d, want %d", tc.backlog, tc.bps, got, tc.want)
			}
		})
	}
}
