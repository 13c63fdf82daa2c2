package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/detsim/detsim/bundle"
)

// The headless continue (detsim --batch --break-on) stops exactly where
// the stepper's c does.
func TestSessionContinue_MatchesStepper(t *testing.T) {
	bps := []Breakpoint{{Kind: BreakFail}, {Kind: BreakType, Arg: "mutation"}}
	s, err := NewSession(echoFailing(t), testRegistry(), nil)
	if err != nil {
		t.Fatal(err)
	}
	m := newTestModel(t, echoFailing(t), 80, 24)
	m = drive(t, m, keys("b", "a", "text:type=mutation", "enter", "esc")...)
	for range 4 {
		hit := s.Continue(bps)
		m = drive(t, m, keys("c")...)
		if hit.Step != m.fr.index || hit.Breakpoint == nil || m.hit == nil || *hit.Breakpoint != *m.hit {
			t.Fatalf("headless stopped at %+v, the stepper at %d (%v)", hit, m.fr.index, m.hit)
		}
	}
	back, err := s.ReverseContinue(bps)
	if err != nil {
		t.Fatal(err)
	}
	m = drive(t, m, keys("C")...)
	if back.Step != m.fr.index {
		t.Fatalf("headless reverse at %d, stepper at %d", back.Step, m.fr.index)
	}
}

func TestSessionContinue_NoBreakpointRunsToTheEnd(t *testing.T) {
	s, err := NewSession(echoParity(t), testRegistry(), nil)
	if err != nil {
		t.Fatal(err)
	}
	hit := s.Continue(nil)
	if hit.Breakpoint != nil || !s.Timeline().Engine().Done() || hit.At != 20_000_000_000 {
		t.Fatalf("hit %+v, done %v", hit, s.Timeline().Engine().Done())
	}
}

func TestRenderText_PlainAndWithinWidth(t *testing.T) {
	seed := uint64(99)
	s, err := NewSession(echoParity(t), testRegistry(), &seed)
	if err != nil {
		t.Fatal(err)
	}
	s.Continue([]Breakpoint{{Kind: BreakTime, N: 6_000_000_000}})
	for _, w := range []int{80, 160, 30} {
		out, err := s.RenderText(w, 48)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out, "\x1b") {
			t.Fatalf("ANSI in text output")
		}
		for i, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			if ansi.StringWidth(l) > w {
				t.Fatalf("width %d: line %d is %d wide", w, i+1, ansi.StringWidth(l))
			}
		}
		if w >= 80 && (!strings.Contains(out, "seed 99") || !strings.Contains(out, "t=+6")) {
			t.Fatalf("header missing:\n%s", out)
		}
	}
	// Rendering leaves the session where it was.
	if got := s.Timeline().Engine().Now(); got < 6_000_000_000 {
		t.Fatalf("session moved to t=%d", got)
	}
}

func TestRenderText_FromBareTimeline(t *testing.T) {
	s, err := NewSession(echoParity(t), testRegistry(), nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Continue([]Breakpoint{{Kind: BreakStep, N: 500}})
	e := s.Timeline().Engine()
	var last [][]byte
	for n := e.Records() - 9; n <= e.Records(); n++ {
		sl, _ := s.ring.get(n)
		last = append(last, append([]byte(nil), sl.b...))
	}
	out := RenderText(s.Timeline(), 120, last)
	if strings.Contains(out, "\x1b") || !strings.Contains(out, "step 500") {
		t.Fatalf("unexpected:\n%s", out)
	}
	if !strings.Contains(out, string(bundle.LineType(last[9]))) {
		t.Fatalf("last record missing:\n%s", out)
	}
}

// Lines come back byte-identical after reverse execution: the cache
// never needs invalidating.
func TestLineCache_SameBytesAfterReverse(t *testing.T) {
	s, err := NewSession(echoParity(t), testRegistry(), nil)
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
	s.ring = newLineRing(ringSize)
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

// A far jump that lands on a checkpoint re-executes from an earlier one
// so the log pane is full.
func TestLand_RefillsTheLogAfterAFarJump(t *testing.T) {
	s, err := NewSession(echoParity(t), testRegistry(), nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Continue([]Breakpoint{{Kind: BreakStep, N: 9000}})
	s.ring = newLineRing(ringSize) // forget everything
	vp := viewParams{bandLo: 0, bandHi: 6}
	f, err := s.land(8001, vp) // just past the checkpoint at 8000
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range f.log {
		if l.b == nil {
			t.Fatalf("record %d missing from the frame (window %d..%d)", l.n, f.logFrom, f.records)
		}
	}
	if len(f.log) != logWindow {
		t.Fatalf("window holds %d records, want %d", len(f.log), logWindow)
	}
}
