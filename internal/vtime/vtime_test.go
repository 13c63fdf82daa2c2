package vtime

import (
	"fmt"
	"math"
	"testing"
)

func TestFormats(t *testing.T) {
	tests := []struct {
		ns                      int64
		seconds, fixed, compact string
	}{
		{0, "0s", "0.000000000s", "0s"},
		{1, "0.000000001s", "0.000000001s", "1ns"},
		{-1, "-0.000000001s", "-0.000000001s", "-1ns"},
		{500_000_000, "0.5s", "0.500000000s", "500ms"},
		{-500_000_000, "-0.5s", "-0.500000000s", "-500ms"},
		{999_999_999, "0.999999999s", "0.999999999s", "999999999ns"},
		{1_000_000_000, "1s", "1.000000000s", "1s"},
		{1_500_000_000, "1.5s", "1.500000000s", "1500ms"},
		{-1_500_000_000, "-1.5s", "-1.500000000s", "-1500ms"},
		{-5_000_000_000, "-5s", "-5.000000000s", "-5s"},
		{1_500, "0.0000015s", "0.000001500s", "1500ns"},
		{63_412_518_204, "63.412518204s", "63.412518204s", "63412518204ns"},
		{324_217_671_130, "324.21767113s", "324.217671130s", "324217671130ns"},
		{420_000_000_000, "420s", "420.000000000s", "420s"},
		{math.MaxInt64, "9223372036.854775807s", "9223372036.854775807s", "9223372036854775807ns"},
		{math.MinInt64, "-9223372036.854775808s", "-9223372036.854775808s", "-9223372036854775808ns"},
		{math.MinInt64 + 1, "-9223372036.854775807s", "-9223372036.854775807s", "-9223372036854775807ns"},
	}
	for _, tc := range tests {
		if got := Seconds(tc.ns); got != tc.seconds {
			t.Errorf("Seconds(%d) = %q, want %q", tc.ns, got, tc.seconds)
		}
		if got := Fixed(tc.ns); got != tc.fixed {
			t.Errorf("Fixed(%d) = %q, want %q", tc.ns, got, tc.fixed)
		}
		if got := Compact(tc.ns); got != tc.compact {
			t.Errorf("Compact(%d) = %q, want %q", tc.ns, got, tc.compact)
		}
	}
}

func TestSplit(t *testing.T) {
	tests := []struct {
		ns        int64
		neg       bool
		sec, frac uint64
	}{
		{0, false, 0, 0},
		{1_500_000_000, false, 1, 500_000_000},
		{-1_500_000_000, true, 1, 500_000_000},
		{-1, true, 0, 1},
		{math.MaxInt64, false, 9_223_372_036, 854_775_807},
		{math.MinInt64, true, 9_223_372_036, 854_775_808},
	}
	for _, tc := range tests {
		neg, sec, frac := Split(tc.ns)
		if neg != tc.neg || sec != tc.sec || frac != tc.frac {
			t.Errorf("Split(%d) = %v, %d, %d; want %v, %d, %d", tc.ns, neg, sec, frac, tc.neg, tc.sec, tc.frac)
		}
	}
}

// TestFixed_MatchesThePrintfItReplaced: for every non-negative time the
// CLI's old fmt.Sprintf("%d.%09ds") and Fixed agree, so the fold changed
// only negative times, which that Sprintf wrote as -1.-500000000s.
func TestFixed_MatchesThePrintfItReplaced(t *testing.T) {
	for ns := int64(0); ns < math.MaxInt64/3; ns = ns*3 + 7 {
		if want := fmt.Sprintf("%d.%09ds", ns/1e9, ns%1e9); Fixed(ns) != want {
			t.Fatalf("Fixed(%d) = %q, want %q", ns, Fixed(ns), want)
		}
	}
}
