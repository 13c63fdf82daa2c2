package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/detsim/detsim/scenarios"
)

// goldenStates are the screens pinned as golden files: each starts from a
// fresh stepper and types its keys.
var goldenStates = []struct {
	name     string
	scenario func(t testing.TB) *scenarios.Scenario
	keys     []string
}{
	{"echo_start", echoParity, nil},
	{"echo_steps", echoParity, []string{"n", "n", "n", "n", "n", "n", "n"}},
	{"echo_breakpoint", echoParity, []string{"b", "a", "text:type=mutation", "enter", "esc", "c", "c"}},
	{"echo_help", echoParity, []string{"n", "?"}},
	{"echo_record", echoParity, []string{"g", "text:3s", "enter", "k", "k", "o"}},
	{"echo_goto_past_end", echoParity, []string{"g", "text:999999999", "enter"}},
	{"mesh_matrix", mesh12, []string{"g", "text:10s", "enter", "tab", "j", "j"}},
	{"mesh_back_forward", mesh12, []string{"g", "text:10s", "enter", "p", "p", "n"}},
}

// swimStates are SWIM screens on the gossip-flap reproduction, at the
// sizes people debug it at and the smallest usable one.
var swimStates = []struct {
	name  string
	keys  []string
	sizes [][2]int
}{
	{"swim_step", []string{"g", "text:2072", "enter"}, [][2]int{{120, 40}, {40, 10}, {80, 24}}},
	{"swim_verdicts", []string{"c", "v", "j"}, [][2]int{{120, 40}, {40, 10}}},
	{"swim_search", []string{"g", "text:2000", "enter", "/", "text:type=state_transition to=suspect", "enter", "o"}, [][2]int{{120, 40}, {40, 10}}},
	{"swim_filter", []string{"g", "text:3000", "enter", "F", "text:host=orch type=message_sent", "enter"}, [][2]int{{120, 40}}},
	// Issue 22: the key help scrolls at any size; W explains a
	// suspicion back to its origin; = watches a value and } goes to its
	// next change.
	{"swim_help", []string{"?"}, [][2]int{{80, 24}, {200, 60}}},
	{"swim_help_end", []string{"?", "pgdown", "pgdown", "pgdown", "pgdown"}, [][2]int{{80, 24}}},
	{"swim_chain", []string{"/", "text:type=state_transition subject=orch to=suspect reason=gossip", "enter", "W"}, [][2]int{{120, 40}, {80, 24}}},
	{"swim_watch", []string{"=", "text:host=fra member=orch field=state", "enter", "}"}, [][2]int{{120, 40}}},
}

// TestGoldenScreensSwim pins SWIM screens (the real kind, not the fake).
func TestGoldenScreensSwim(t *testing.T) {
	for _, st := range swimStates {
		for _, sz := range st.sizes {
			name := fmt.Sprintf("%s_%dx%d.golden", st.name, sz[0], sz[1])
			t.Run(name, func(t *testing.T) {
				m := newTestModel(t, loadScenario(t, "reproduction/gossip_flap"), sz[0], sz[1])
				m = drive(t, m, keys(st.keys...)...)
				got := screenText(m)
				checkScreenShape(t, got, sz[0], sz[1])
				checkGolden(t, name, got+"\n")
			})
		}
	}
}

func echoParity(t testing.TB) *scenarios.Scenario { return loadScenario(t, "reference/echo_parity") }
func mesh12(testing.TB) *scenarios.Scenario       { return meshScenario(12, 60_000_000_000) }

// TestGoldenScreens renders each state headless at 80×24 and 160×48,
// strips ANSI and compares with testdata/*.golden (-update rewrites).
func TestGoldenScreens(t *testing.T) {
	for _, st := range goldenStates {
		for _, sz := range [][2]int{{80, 24}, {160, 48}} {
			name := fmt.Sprintf("%s_%dx%d.golden", st.name, sz[0], sz[1])
			t.Run(name, func(t *testing.T) {
				m := newTestModel(t, st.scenario(t), sz[0], sz[1])
				m = drive(t, m, keys(st.keys...)...)
				got := screenText(m)
				checkScreenShape(t, got, sz[0], sz[1])
				checkGolden(t, name, got+"\n")
			})
		}
	}
}

// checkScreenShape asserts the screen has exactly h lines, none wider
// than w: whatever the state, nothing is garbled.
func checkScreenShape(t *testing.T, s string, w, h int) {
	t.Helper()
	lines := strings.Split(s, "\n")
	if len(lines) != h {
		t.Errorf("screen has %d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if lw := ansi.StringWidth(l); lw > w {
			t.Errorf("line %d is %d cells wide, more than %d: %q", i+1, lw, w, l)
		}
	}
}
