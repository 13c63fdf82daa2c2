package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/debugger"
	"github.com/detsim/detsim/tui/screen"
)

// The headless continue (detsim --batch --break-on) stops exactly where
// the stepper's c does.
func TestSessionContinue_MatchesStepper(t *testing.T) {
	bps := []debugger.Breakpoint{{Kind: debugger.BreakFail}, {Kind: debugger.BreakRecord, Query: debugger.Query{Conds: []debugger.Cond{{Key: "type", Val: "mutation"}}}}}
	s, err := debugger.NewSession(echoFailing(t), testRegistry(), nil)
	if err != nil {
		t.Fatal(err)
	}
	m := newTestModel(t, echoFailing(t), 80, 24)
	m = drive(t, m, keys("b", "a", "text:type=mutation", "enter", "esc")...)
	for range 4 {
		hit := s.Continue(bps)
		m = drive(t, m, keys("c")...)
		if hit.Step != m.frame().Index() || hit.Breakpoint == nil || m.hit == nil || !hit.Breakpoint.Equal(*m.hit) {
			t.Fatalf("headless stopped at %+v, the stepper at %d (%v)", hit, m.frame().Index(), m.hit)
		}
	}
	back, err := s.ReverseContinue(bps)
	if err != nil {
		t.Fatal(err)
	}
	m = drive(t, m, keys("C")...)
	if back.Step != m.frame().Index() {
		t.Fatalf("headless reverse at %d, stepper at %d", back.Step, m.frame().Index())
	}
}

func TestRenderText_PlainAndWithinWidth(t *testing.T) {
	seed := uint64(99)
	s, err := debugger.NewSession(echoParity(t), testRegistry(), &seed)
	if err != nil {
		t.Fatal(err)
	}
	s.Continue([]debugger.Breakpoint{{Kind: debugger.BreakTime, N: 6_000_000_000}})
	for _, w := range []int{80, 160, 30} {
		out, err := screen.RenderText(s, w, 48, nil)
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

func TestRenderText_AtAStep(t *testing.T) {
	s, err := debugger.NewSession(echoParity(t), testRegistry(), nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Continue([]debugger.Breakpoint{{Kind: debugger.BreakStep, N: 500}})
	e := s.Timeline().Engine()
	r, _ := s.Record(e.Records())
	last := append([]byte(nil), r.Bytes...)
	out, err := screen.RenderText(s, 120, 48, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "\x1b") || !strings.Contains(out, "step 500") {
		t.Fatalf("unexpected:\n%s", out)
	}
	if !strings.Contains(out, string(bundle.LineType(last))) {
		t.Fatalf("last record missing:\n%s", out)
	}
}
