package debugger

import (
	"strings"
	"testing"

	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/scenarios"
)

// wantErr fails t unless err, spec's error, is nil where want is empty
// and otherwise an error containing want.
func wantErr(t *testing.T, spec string, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("%q: refused: %v", spec, err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Errorf("%q: %v, want an error containing %q", spec, err, want)
	}
}

// library resolves the library scenario name with the built-in kinds.
func library(tb testing.TB, name string) *scenarios.Scenario {
	tb.Helper()
	sc, err := scenarios.Resolve(name, builtin.Registry())
	if err != nil {
		tb.Fatal(err)
	}
	return sc
}

func newSession(t testing.TB, sc *scenarios.Scenario) *Session {
	t.Helper()
	s, err := NewSession(sc, builtin.Registry(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSessionContinue_NoBreakpointRunsToTheEnd(t *testing.T) {
	s, err := NewSession(library(t, "reference/echo_parity"), builtin.Registry(), nil)
	if err != nil {
		t.Fatal(err)
	}
	hit := s.Continue(nil)
	if hit.Breakpoint != nil || !s.Timeline().Engine().Done() || hit.At != 20_000_000_000 {
		t.Fatalf("hit %+v, done %v", hit, s.Timeline().Engine().Done())
	}
}

// Lines come back byte-identical after reverse execution: the cache
// never needs invalidating.
func TestLineCache_SameBytesAfterReverse(t *testing.T) {
	s, err := NewSession(library(t, "reference/echo_parity"), builtin.Registry(), nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Continue([]Breakpoint{{Kind: BreakStep, N: 3000}})
	n := s.Timeline().Engine().Records()
	first := map[int64]string{}
	for l := n - 100; l <= n; l++ {
		sl, ok := s.ring.get(l)
		if !ok {
			t.Fatalf("line %d not cached", l)
		}
		first[l] = string(sl.b)
	}
	if _, err := s.Timeline().Goto(1); err != nil {
		t.Fatal(err)
	}
	s.ring = newLineRing(RecordCache)
	if _, err := s.Timeline().Goto(3000); err != nil {
		t.Fatal(err)
	}
	for l, want := range first {
		sl, ok := s.ring.get(l)
		if !ok || string(sl.b) != want {
			t.Fatalf("line %d differs after re-execution", l)
		}
	}
}

// BenchmarkContinue is the stepper's continue throughput with the record
// cache and a type breakpoint armed (echo_parity, never firing).
func BenchmarkContinue(b *testing.B) {
	sc := *library(b, "reference/echo_parity")
	sc.DurationNs = 1 << 50
	s := newSession(b, &sc)
	bps := []Breakpoint{{Kind: BreakFail}, {Kind: BreakRecord, Query: Query{Conds: []Cond{{Key: "type", Val: "no_such_type"}}}}}
	always := func() bool { return true }
	start := s.Timeline().Engine().Index()
	for b.Loop() {
		s.Forward(bps, nil, always) // pauseEvery steps
	}
	steps := s.Timeline().Engine().Index() - start
	b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "steps/s")
}
