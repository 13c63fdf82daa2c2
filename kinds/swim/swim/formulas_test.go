package swim

import (
	"math"
	"testing"
)

func TestLog10Fixed(t *testing.T) {
	// Expected values: floor(10^f · log10(x)), worked out independently.
	cases := []struct {
		x       uint64
		milli   int64
		micro   int64
		integer int64
	}{
		{1, 0, 0, 0},
		{2, 301, 301029, 0},
		{3, 477, 477121, 0},
		{4, 602, 602059, 0},
		{5, 698, 698970, 0},
		{9, 954, 954242, 0},
		{10, 1000, 1000000, 1},
		{11, 1041, 1041392, 1},
		{50, 1698, 1698970, 1},
		{99, 1995, 1995635, 1},
		{100, 2000, 2000000, 2},
		{500, 2698, 2698970, 2},
		{999, 2999, 2999565, 2},
		{1000, 3000, 3000000, 3},
		{1001, 3000, 3000434, 3},
		{4500, 3653, 3653212, 3},
		{10000, 4000, 4000000, 4},
		{123456789, 8091, 8091514, 8},
		{math.MaxUint64, 19265, 19265919, 19},
	}
	for _, c := range cases {
		if got := log10Fixed(c.x, 3); got != c.milli {
			t.Errorf("log10Fixed(%d, 3) = %d, want %d", c.x, got, c.milli)
		}
		if got := log10Fixed(c.x, 6); got != c.micro {
			t.Errorf("log10Fixed(%d, 6) = %d, want %d", c.x, got, c.micro)
		}
		if got := log10Fixed(c.x, 0); got != c.integer {
			t.Errorf("log10Fixed(%d, 0) = %d, want %d", c.x, got, c.integer)
		}
	}
	if got := log10Fixed(0, 3); got != 0 {
		t.Errorf("log10Fixed(0) = %d", got)
	}
}

// Powers of ten are exact, so the node scale steps exactly at 10, 100, …
func TestLog10Fixed_MonotoneAndExactAtPowers(t *testing.T) {
	prev := int64(-1)
	for x := uint64(1); x <= 20000; x++ {
		v := log10Fixed(x, 3)
		if v < prev {
			t.Fatalf("log10Fixed(%d) = %d < log10Fixed(%d) = %d", x, v, x-1, prev)
		}
		prev = v
	}
	p := uint64(1)
	for d := int64(0); d <= 19; d++ {
		if got := log10Fixed(p, 6); got != d*1_000_000 {
			t.Fatalf("log10Fixed(10^%d) = %d", d, got)
		}
		if d < 19 {
			p *= 10
		}
	}
}

func TestCeilLog10(t *testing.T) {
	cases := map[uint64]int64{0: 0, 1: 0, 2: 1, 9: 1, 10: 1, 11: 2, 100: 2, 101: 3, 1001: 4,
		math.MaxUint64: 20, 10_000_000_000_000_000_000: 19, 10_000_000_000_000_000_001: 20}
	for x, want := range cases {
		if got := ceilLog10(x); got != want {
			t.Errorf("ceilLog10(%d) = %d, want %d", x, got, want)
		}
	}
}

// memberlist's TestRetransmitLimit plus the LAN defaults.
func TestRetransmitLimit(t *testing.T) {
	cases := []struct{ mult, n, want int }{
		{3, 0, 0},
		{3, 1, 3},
		{3, 99, 6},
		{4, 3, 4},
		{4, 9, 4},
		{4, 10, 8},
		{4, 99, 8},
		{4, 100, 12},
		{4, 1000, 16},
	}
	for _, c := range cases {
		if got := retransmitLimit(c.mult, c.n); got != c.want {
			t.Errorf("retransmitLimit(%d, %d) = %d, want %d", c.mult, c.n, got, c.want)
		}
	}
}

// memberlist's TestSuspicionTimeout: suspicionTimeout(3, n, 1s) / 3.
func TestSuspicionMin(t *testing.T) {
	cases := map[int]int64{
		0:    1000 * ms,
		1:    1000 * ms,
		5:    1000 * ms,
		10:   1000 * ms,
		50:   1698 * ms,
		100:  2000 * ms,
		500:  2698 * ms,
		1000: 3000 * ms,
	}
	for n, want := range cases {
		if got := suspicionMinNs(3, n, s) / 3; got != want {
			t.Errorf("suspicionMin(3, %d, 1s)/3 = %d, want %d", n, got, want)
		}
	}
	// The LAN defaults for the cluster sizes the library scenarios use.
	if got := suspicionMinNs(4, 3, s); got != 4*s {
		t.Errorf("3 nodes: min %d, want 4s", got)
	}
	if got := suspicionMinNs(4, 1000, s); got != 12*s {
		t.Errorf("1000 nodes: min %d, want 12s", got)
	}
	if got := suspicionMinNs(maxMultiplier, math.MaxInt32, math.MaxInt64); got != math.MaxInt64 {
		t.Errorf("overflow not saturated: %d", got)
	}
}

// memberlist's TestSuspicion_remainingSuspicionTime, same numbers.
func TestRemainingSuspicion(t *testing.T) {
	cases := []struct {
		n, k                   int
		elapsed, lo, hi, wantR int64
	}{
		{0, 3, 0, 2 * s, 30 * s, 30 * s},
		{1, 3, 2 * s, 2 * s, 30 * s, 14 * s},
		{2, 3, 3 * s, 2 * s, 30 * s, 4810 * ms},
		{3, 3, 4 * s, 2 * s, 30 * s, -2 * s},
		{4, 3, 5 * s, 2 * s, 30 * s, -3 * s},
		{5, 3, 10 * s, 2 * s, 30 * s, -8 * s},
	}
	for _, c := range cases {
		if got := remainingSuspicionNs(c.n, c.k, c.elapsed, c.lo, c.hi); got != c.wantR {
			t.Errorf("remaining(n=%d, k=%d, elapsed=%d) = %d, want %d", c.n, c.k, c.elapsed, got, c.wantR)
		}
	}
}

// The timeout starts at max, shrinks with each confirmation, never below
// min, and is min from the start when no confirmations are expected.
func TestSuspicionTimeout_Shrinks(t *testing.T) {
	lo, hi := 4*s, 24*s
	want := []int64{24 * s, 11381 * ms, 4 * s, 4 * s} // k = 2: 24 − log(2)/log(3) × 20 = 11.381…
	for n, w := range want {
		if got := suspicionTimeoutNs(n, 2, lo, hi); got != w {
			t.Errorf("timeout after %d confirmations = %d, want %d", n, got, w)
		}
	}
	if got := suspicionTimeoutNs(0, 0, lo, hi); got != lo {
		t.Errorf("k=0: %d, want min", got)
	}
	prev := hi
	for n := 1; n <= 10; n++ {
		got := suspicionTimeoutNs(n, 10, lo, hi)
		if got > prev || got < lo {
			t.Fatalf("k=10 n=%d: %d (prev %d)", n, got, prev)
		}
		prev = got
	}
	if prev != lo {
		t.Fatalf("k confirmations should reach min, got %d", prev)
	}
}

func TestSuspicionK(t *testing.T) {
	cases := []struct{ mult, n, want int }{
		{4, 3, 0}, // 3 members: only 1 other could confirm, 2 are wanted
		{4, 4, 2},
		{4, 1000, 2},
		{6, 5, 0},
		{6, 6, 4},
		{1, 100, 0},
		{2, 100, 0},
	}
	for _, c := range cases {
		if got := suspicionK(c.mult, c.n); got != c.want {
			t.Errorf("suspicionK(%d, %d) = %d, want %d", c.mult, c.n, got, c.want)
		}
	}
}

func TestAwareness(t *testing.T) {
	cases := []struct{ score, delta, max, want int }{
		{0, -1, 8, 0},
		{0, 1, 8, 1},
		{6, 1, 8, 7},
		{7, 1, 8, 7},
		{7, 3, 8, 7},
		{3, -2, 8, 1},
		{0, 5, 1, 0}, // max 1: health never degrades
	}
	for _, c := range cases {
		if got := applyHealthDelta(c.score, c.delta, c.max); got != c.want {
			t.Errorf("applyHealthDelta(%d, %+d, %d) = %d, want %d", c.score, c.delta, c.max, got, c.want)
		}
	}
	scales := []struct {
		d     int64
		score int
		want  int64
	}{
		{s, 0, s},
		{s, 1, 2 * s},
		{500 * ms, 7, 4 * s},
		{math.MaxInt64, 1, math.MaxInt64},
	}
	for _, c := range scales {
		if got := scaleByHealth(c.d, c.score); got != c.want {
			t.Errorf("scaleByHealth(%d, %d) = %d, want %d", c.d, c.score, got, c.want)
		}
	}
}

// Failed probes worsen local health and stretch the probe interval;
// successful ones heal it.
func TestAwareness_ScalesProbeInterval(t *testing.T) {
	cfg := DefaultConfig()
	cfg.IndirectChecks = 0 // a failed probe then costs exactly one point
	cfg.SuspicionMult = 10 // b stays suspect (and probed) for 10 s
	n := New("a", cfg, Member, []string{"a", "b"}, &testRand{3})
	starts := []int64{}
	var timeouts []int64 // each probe's timeout timer, relative to its start
	for now := int64(0); now < 30*s; now += 100 * ms {
		started := false
		for _, e := range n.Tick(now) {
			if e.Kind == EffectEvent && e.Event.Type() == "probe_sent" {
				starts = append(starts, now)
				started = true
			}
			if started && e.Kind == EffectTimer && e.Token>>56 == timerProbeTimeout {
				timeouts = append(timeouts, e.At-now)
			}
		}
	}
	// The probe timeout scales with health too: 0.5 s, 1 s, 1.5 s, …
	for i, d := range timeouts {
		if d != int64(i+1)*500*ms {
			t.Fatalf("probe %d timeout %d, want %d (all %v)", i, d, int64(i+1)*500*ms, timeouts)
		}
	}
	// b never answers: gaps of 1, 2, 3, 4 seconds, then b is dead.
	wantGaps := []int64{1 * s, 2 * s, 3 * s, 4 * s}
	if len(starts) != len(wantGaps)+1 {
		t.Fatalf("probe starts %v", starts)
	}
	for i, w := range wantGaps {
		if gap := starts[i+1] - starts[i]; gap != w {
			t.Fatalf("gap %d = %d, want %d (starts %v)", i, gap, w, starts)
		}
	}
	if n.Health() == 0 {
		t.Fatal("health did not degrade")
	}
}

func TestSaturatingMath(t *testing.T) {
	if satMul(math.MaxInt64, 2) != math.MaxInt64 || satMul(3, 4) != 12 || satMul(-1, 4) != 0 {
		t.Fatal("satMul")
	}
	if satAdd(math.MaxInt64-1, 5) != math.MaxInt64 || satAdd(1, 2) != 3 {
		t.Fatal("satAdd")
	}
	if mulDiv(math.MaxInt64, math.MaxInt64, 1) != math.MaxInt64 || mulDiv(10, 7, 3) != 23 {
		t.Fatal("mulDiv")
	}
}

func TestBelow_UniformEnough(t *testing.T) {
	r := &testRand{42}
	var counts [3]int
	for range 30000 {
		counts[below(r, 3)]++
	}
	for i, c := range counts {
		if c < 9500 || c > 10500 {
			t.Fatalf("bucket %d: %d of 30000", i, c)
		}
	}
}
