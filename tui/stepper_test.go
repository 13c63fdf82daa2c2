package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/scenarios"
	"github.com/detsim/detsim/tui/screen"
)

// echoFailing is echo_parity with one assertion that fails as soon as
// the 41st ping is sent, so the "fail" breakpoint has something to find.
func echoFailing(t testing.TB) *scenarios.Scenario {
	sc := *loadScenario(t, "reference/echo_parity")
	sc.Assertions = append([]scenarios.Assertion{{
		Name: "few_pings", Kind: "event_count",
		Params: scenarios.EventCount{EventType: "ping_sent", Max: 40},
	}}, sc.Assertions...)
	return &sc
}

// panes drops the lines that say how a position was reached (the run
// state in the header and the status line), keeping what it shows.
func panes(m Model) string {
	lines := strings.Split(screenText(m), "\n")
	out := append([]string{lines[0]}, lines[2:len(lines)-2]...)
	return strings.Join(out, "\n")
}

func TestStepBackThenForward_IdenticalScreen(t *testing.T) {
	for _, tc := range []struct {
		name  string
		sc    func(testing.TB) *scenarios.Scenario
		steps int
	}{
		{"echo first step", echoParity, 1},
		{"echo", echoParity, 7},
		{"echo deeper", echoParity, 1500},
		{"mesh", mesh12, 300},
	} {
		for _, sz := range [][2]int{{80, 24}, {160, 48}} {
			t.Run(tc.name, func(t *testing.T) {
				m := newTestModel(t, tc.sc(t), sz[0], sz[1])
				if tc.steps > 1 {
					m = drive(t, m, keys("g", "text:"+screen.FmtInt(int64(tc.steps-1)), "enter")...)
				}
				m = drive(t, m, keys("n")...)
				want := screenText(m)
				m = drive(t, m, keys("p", "n")...)
				if got := screenText(m); got != want {
					t.Fatalf("after p, n the screen differs:\n--- got ---\n%s\n--- want ---\n%s", got, want)
				}
				m = drive(t, m, keys("left", "right")...)
				if got := screenText(m); got != want {
					t.Fatalf("after ←, → the screen differs:\n--- got ---\n%s\n--- want ---\n%s", got, want)
				}
			})
		}
	}
}

// A position reached by a jump shows the same panes as the same position
// reached by stepping back onto it and forward again.
func TestGotoThenBackForward_SamePanes(t *testing.T) {
	m := newTestModel(t, echoParity(t), 160, 48)
	m = drive(t, m, keys("g", "text:5.5s", "enter")...)
	want := panes(m)
	m = drive(t, m, keys("p", "p", "p", "n", "n", "n")...)
	if got := panes(m); got != want {
		t.Fatalf("panes differ:\n--- got ---\n%s\n--- want ---\n%s", got, want)
	}
}

func TestContinue_StopsAtFirstFailure(t *testing.T) {
	m := newTestModel(t, echoFailing(t), 160, 48)
	m = drive(t, m, keys("c")...)
	s := screenText(m)
	if !strings.Contains(s, "paused at breakpoint fail: few_pings Fail") {
		t.Fatalf("not paused at the fail breakpoint:\n%s", s)
	}
	if m.frame().Fail() != 1 {
		t.Fatalf("fail count %d, want 1", m.frame().Fail())
	}
	at := m.frame().Index()
	// The step before has not failed yet.
	m = drive(t, m, keys("p")...)
	if m.frame().Fail() != 0 {
		t.Fatalf("one step before the breakpoint, fail count is %d", m.frame().Fail())
	}
	// Continuing from the breakpoint does not stop there again.
	m = drive(t, m, keys("n", "c")...)
	if m.frame().Index() == at || !m.frame().Done() {
		t.Fatalf("second continue stopped at %d (done=%v); the first failure is at %d", m.frame().Index(), m.frame().Done(), at)
	}
	// Reverse-continue from the end finds it again.
	m = drive(t, m, keys("C")...)
	if m.frame().Index() != at {
		t.Fatalf("reverse-continue stopped at %d, want %d", m.frame().Index(), at)
	}
}

func TestReverseContinue_FindsPreviousHit(t *testing.T) {
	m := newTestModel(t, echoParity(t), 80, 24)
	m = drive(t, m, keys("b", "a", "text:type=mutation", "enter", "esc")...)
	var hits []int64
	for range 4 {
		m = drive(t, m, keys("c")...)
		hits = append(hits, m.frame().Index())
	}
	for i := len(hits) - 2; i >= 0; i-- {
		m = drive(t, m, keys("C")...)
		if m.frame().Index() != hits[i] {
			t.Fatalf("reverse-continue %d reached step %d, want %d (forward hits %v)", len(hits)-1-i, m.frame().Index(), hits[i], hits)
		}
	}
	m = drive(t, m, keys("C")...)
	if m.frame().Index() != 0 || !strings.Contains(m.status, "at step 0") {
		t.Fatalf("with no earlier hit, reverse-continue should stop at step 0; at %d, status %q", m.frame().Index(), m.status)
	}
}

func TestBreakpointKinds_StopWhereTheySay(t *testing.T) {
	for _, tc := range []struct {
		spec  string
		check func(t *testing.T, m Model)
	}{
		{"step=1234", func(t *testing.T, m Model) {
			if m.frame().Index() != 1234 {
				t.Errorf("at step %d", m.frame().Index())
			}
		}},
		{"time=4.5s", func(t *testing.T, m Model) {
			if m.frame().Now() < 4_500_000_000 {
				t.Errorf("at t=%d, before the breakpoint", m.frame().Now())
			}
			s := m.sess
			if _, err := s.Timeline().Goto(m.frame().Index() - 1); err != nil || s.Timeline().Engine().Now() >= 4_500_000_000 {
				t.Errorf("the step before is already at t=%d", s.Timeline().Engine().Now())
			}
		}},
		{"host=f", func(t *testing.T, m Model) {
			if m.frame().Last().Host != "f" {
				t.Errorf("last step %+v is not for f", m.frame().Last())
			}
		}},
		{"type=drop_on_delivery", func(t *testing.T, m Model) {
			found := false
			for n := m.frame().Records(); n >= m.frame().LogFrom(); n-- {
				l := m.frame().LogAt(n)
				if l.Step != m.frame().Index() {
					break
				}
				found = found || string(bundle.LineType(l.Bytes)) == "drop_on_delivery"
			}
			if !found {
				t.Errorf("step %d emitted no drop_on_delivery", m.frame().Index())
			}
		}},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			m := newTestModel(t, echoParity(t), 80, 24)
			m = drive(t, m, keys("b", "space", "a", "text:"+tc.spec, "enter", "esc", "c")...)
			if m.hit == nil || m.hit.String() != tc.spec {
				t.Fatalf("not stopped at %s: status %q", tc.spec, m.status)
			}
			tc.check(t, m)
		})
	}
}

func TestGoto_PastEndClampsAndSaysSo(t *testing.T) {
	for _, target := range []string{"99999999", "500s", "time=9999999999999"} {
		m := newTestModel(t, echoParity(t), 80, 24)
		m = drive(t, m, keys("g", "text:"+target, "enter")...)
		if !m.frame().Done() || !strings.Contains(m.status, "past the end") || !strings.Contains(m.status, "clamped") {
			t.Errorf("go to %s: done=%v status %q", target, m.frame().Done(), m.status)
		}
	}
}

func TestGoto_BadInputIsAnError(t *testing.T) {
	m := newTestModel(t, echoParity(t), 80, 24)
	m = drive(t, m, keys("g", "text:banana", "enter")...)
	if !m.isError || !strings.Contains(m.status, "go to:") || m.frame().Index() != 0 {
		t.Fatalf("status %q (error %v), index %d", m.status, m.isError, m.frame().Index())
	}
}

func TestGoto_TimeBackwardsLandsOnFirstStepAtOrAfter(t *testing.T) {
	m := newTestModel(t, echoParity(t), 80, 24)
	m = drive(t, m, keys("g", "text:9s", "enter")...)
	m = drive(t, m, keys("g", "text:2.5s", "enter")...)
	if m.frame().Now() < 2_500_000_000 {
		t.Fatalf("at t=%d", m.frame().Now())
	}
	s := m.sess
	if _, err := s.Timeline().Goto(m.frame().Index() - 1); err != nil || s.Timeline().Engine().Now() >= 2_500_000_000 {
		t.Fatalf("step before is at t=%d", s.Timeline().Engine().Now())
	}
}

func TestReseed_RestartsWithTheNewSeed(t *testing.T) {
	m := newTestModel(t, echoParity(t), 80, 24)
	m = drive(t, m, keys("n", "n", "s")...)
	for range 5 {
		m = drive(t, m, keys("backspace")...)
	}
	m = drive(t, m, keys("text:1234", "enter")...)
	if m.seed != 1234 || m.frame().Index() != 0 || m.sess.Scenario().Seed != 1234 {
		t.Fatalf("seed %d index %d", m.seed, m.frame().Index())
	}
	if !strings.Contains(screenText(m), "seed 1234") {
		t.Fatalf("header does not show the new seed:\n%s", screenText(m))
	}
}

// Small and degenerate terminals never panic and never draw a line wider
// than the screen, whatever is open.
func TestTinyTerminals_NeverGarbled(t *testing.T) {
	for _, sz := range [][2]int{{40, 10}, {20, 5}, {1, 1}, {2, 2}, {39, 7}, {200, 60}, {0, 0}} {
		for _, ks := range [][]string{nil, {"?"}, {"b"}, {"g", "text:12"}, {"n", "n", "enter"}, {"tab", "tab", "j"}} {
			m := newTestModel(t, mesh12(t), 80, 24)
			m = drive(t, m, tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
			m = drive(t, m, keys(ks...)...)
			s := screenText(m)
			if sz[1] == 0 {
				if s != "" {
					t.Errorf("0×0 screen drew %q", s)
				}
				continue
			}
			checkScreenShape(t, s, sz[0], sz[1])
		}
	}
}

func TestHundredHosts_MatrixScrollsWithSelection(t *testing.T) {
	m := newTestModel(t, meshScenario(100, 10_000_000_000), 160, 48)
	m = drive(t, m, keys("g", "text:2s", "enter", "tab")...)
	for range 70 {
		m = drive(t, m, keys("j")...)
	}
	s := screenText(m)
	checkScreenShape(t, s, 160, 48)
	if !strings.Contains(s, "▶p70") || !strings.Contains(s, "/100") {
		t.Fatalf("selected row p70 not drawn:\n%s", s)
	}
	if m.frame().Row(70) == nil {
		t.Fatal("the frame does not hold the selected row")
	}
}

func TestEventCursor_ScrollsPastTheFrameWindow(t *testing.T) {
	m := newTestModel(t, echoParity(t), 80, 24)
	m = drive(t, m, keys("g", "text:10s", "enter")...)
	records := m.frame().Records()
	for range 30 {
		m = drive(t, m, keys("pgup")...)
	}
	at := m.scr.LogCursor()
	if at > records-200 {
		t.Fatalf("cursor at %d of %d after 30 pages up", at, records)
	}
	if l := m.frame().LogAt(at); l == nil || l.Bytes == nil {
		t.Fatalf("record %d under the cursor is not in the frame (window from %d)", at, m.frame().LogFrom())
	}
	if !strings.Contains(screenText(m), "▶") {
		t.Fatal("no cursor on screen")
	}
}
