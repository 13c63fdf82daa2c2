package main

import "testing"

// TestSpread: a cell is the lower median, then the range when it shows;
// a latency not reached within the run sorts last and shows as —.
func TestSpread(t *testing.T) {
	runs := func(first ...int64) []Result {
		rs := make([]Result, len(first))
		for i, f := range first {
			rs[i] = Result{FirstNs: f}
			rs[i].Views[Healthy][Healthy].Dead = int(f)
		}
		return rs
	}
	for _, tc := range []struct {
		m    Metric
		runs []Result
		want string
	}{
		{deadAtHealthy, runs(3, 1, 2), "2 [1–3]"},
		{deadAtHealthy, runs(4, 1, 3, 2), "2 [1–4]"},
		{deadAtHealthy, runs(7, 7), "7"},
		{deadAtHealthy, nil, "—"},
		{firstDetection, runs(9_000_000_000, 9_040_000_000), "9.0"},
		{firstDetection, runs(-1, 9_000_000_000, 12_060_000_000), "12.1 [9.0–—]"},
		{firstDetection, runs(-1, -1, 9_000_000_000), "— [9.0–—]"},
	} {
		if got := spread(tc.m, tc.runs); got != tc.want {
			t.Errorf("%s %+v: %q, want %q", tc.m.Title, tc.runs, got, tc.want)
		}
	}
}

func TestRatio(t *testing.T) {
	for _, tc := range []struct {
		a, b int64
		want string
	}{
		{0, 0, "0 vs 0"},
		{12, 0, "12 vs 0"},
		{0, 3, "0 vs 3"},
		{100, 8, "100 vs 8 (12.5× fewer)"},
		{2, 5, "2 vs 5 (2.5× more)"},
	} {
		if got := ratio(tc.a, tc.b); got != tc.want {
			t.Errorf("ratio(%d, %d) = %q, want %q", tc.a, tc.b, got, tc.want)
		}
	}
}
