package rng

import (
	"testing"
)

// TestFirstDraws_Pinned pins the first draws of a few substreams as
// literal numbers. If this fails, every recorded run ever made has
// changed: that is a spec-level change (§7.2, §15), not a refactor.
func TestFirstDraws_Pinned(t *testing.T) {
	r := New(42)
	cases := []struct {
		name string
		s    *Stream
		want [3]uint64
	}{
		{"link a->b", r.Link("a", "b"), pinned["link a->b"]},
		{"link b->a", r.Link("b", "a"), pinned["link b->a"]},
		{"host a tick", r.Host("a", "tick"), pinned["host a tick"]},
		{"mutation 0", r.Mutation(0), pinned["mutation 0"]},
	}
	for _, c := range cases {
		got := [3]uint64{c.s.Uint64(), c.s.Uint64(), c.s.Uint64()}
		if got != c.want {
			t.Errorf("%s: first draws %d, pinned %d", c.name, got, c.want)
		}
	}
}

func TestSubstreams_IndependentOfEachOtherAndOfOrder(t *testing.T) {
	// Deriving other substreams first, or drawing from them, never moves
	// a substream's draws: each is a pure function of (seed, tuple).
	a := New(7).Link("x", "y")
	r := New(7)
	r.Link("x", "z").Uint64()
	r.Host("x", "tick").Uint64()
	b := r.Link("x", "y")
	for i := 0; i < 100; i++ {
		if a.Uint64() != b.Uint64() {
			t.Fatalf("draw %d differs", i)
		}
	}
	// Length prefixes keep ("ab","c") and ("a","bc") apart.
	if New(1).Link("ab", "c").Uint64() == New(1).Link("a", "bc").Uint64() {
		t.Fatal(`("ab","c") and ("a","bc") share a substream`)
	}
	if New(1).Link("a", "b").Uint64() == New(2).Link("a", "b").Uint64() {
		t.Fatal("two seeds share a substream")
	}
}

func TestClone_ContinuesFromTheSamePosition(t *testing.T) {
	s := New(3).Host("h", "kind")
	s.Uint64()
	c := s.Clone()
	if c.Position() != 1 || s.Uint64() != c.Uint64() {
		t.Fatal("a clone does not continue where the original is")
	}
}

func TestBelow_InRangeAndUnbiasedEnough(t *testing.T) {
	s := New(9).Host("h", "x")
	var counts [3]int
	for i := 0; i < 30000; i++ {
		v := s.Below(3)
		if v >= 3 {
			t.Fatalf("Below(3) = %d", v)
		}
		counts[v]++
	}
	for i, c := range counts {
		if c < 9500 || c > 10500 {
			t.Fatalf("value %d drawn %d times of 30000", i, c)
		}
	}
}

func TestChance_Extremes(t *testing.T) {
	s := New(1).Link("a", "b")
	for i := 0; i < 1000; i++ {
		if s.Chance(0) {
			t.Fatal("0 ppm fired")
		}
		if !s.Chance(1_000_000) {
			t.Fatal("1 000 000 ppm did not fire")
		}
	}
}

func TestNormal_SymmetricTableAndScale(t *testing.T) {
	for i := range normalTable {
		if normalTable[i] != -normalTable[len(normalTable)-1-i] {
			t.Fatalf("table not symmetric at %d", i)
		}
	}
	s := New(5).Link("a", "b")
	var sum, sq int64
	const n = 20000
	for i := 0; i < n; i++ {
		v := s.Normal(1000)
		sum += v
		sq += v * v
	}
	if mean := sum / n; mean < -30 || mean > 30 {
		t.Fatalf("mean %d of N(0, 1000)", mean)
	}
	if variance := sq / n; variance < 900_000 || variance > 1_100_000 {
		t.Fatalf("variance %d of N(0, 1000²)", variance)
	}
	if s.Normal(0) != 0 {
		t.Fatal("zero stddev gave a nonzero sample")
	}
}

// TestNamedSubstreams_AreTheDocumentedTuples pins what the helpers name:
// every bundle ever recorded drew from these tuples, so a helper that
// spelled a label differently would silently change every run.
func TestNamedSubstreams_AreTheDocumentedTuples(t *testing.T) {
	r := New(42)
	for _, c := range []struct {
		name      string
		got, want *Stream
	}{
		{"tick", r.Tick("a"), r.Host("a", "tick")},
		{"first life", r.Life("a", 0), r.Host("a", "kind")},
		{"third life", r.Life("a", 2), r.Host("a", "kind/life=2")},
		{"property", r.Property("peers"), r.Host("property", "peers")},
	} {
		if g, w := c.got.Uint64(), c.want.Uint64(); g != w {
			t.Errorf("%s: first draw %d, want %d", c.name, g, w)
		}
	}
	if r.Tick("a").Uint64() != pinned["host a tick"][0] {
		t.Errorf("Tick(a) no longer draws the pinned tick offset")
	}
}

// TestFork_IndependentOfPositionAndLabel: a fork does not depend on how
// far its parent has drawn, draws nothing from it, and two labels (or
// two lives' parents) give different streams.
func TestFork_IndependentOfPositionAndLabel(t *testing.T) {
	r := New(7)
	a := r.Life("h", 0)
	before := a.Fork("election").Uint64()
	a.Uint64()
	a.Uint64()
	pos := a.Position()
	if got := a.Fork("election").Uint64(); got != before {
		t.Errorf("fork after two draws gives %d, before %d", got, before)
	}
	if a.Position() != pos {
		t.Errorf("Fork drew from its parent")
	}
	if a.Fork("other").Uint64() == before {
		t.Errorf("two labels fork the same stream")
	}
	if r.Life("h", 1).Fork("election").Uint64() == before {
		t.Errorf("two lives fork the same stream")
	}
	if a.Fork("election").Uint64() == a.Uint64() {
		t.Errorf("a fork draws its parent's values")
	}
}
