package tui

import (
	"strings"
	"testing"

	"github.com/detsim/detsim/debugger"
	"github.com/detsim/detsim/tui/screen"
)

func swimModel(t *testing.T, w, h int) Model {
	return newTestModel(t, loadScenario(t, "reproduction/gossip_flap"), w, h)
}

// A count repeats n, p, c and C.
func TestKeys_CountPrefix(t *testing.T) {
	m := drive(t, swimModel(t, 120, 40), keys("text:10n")...)
	if m.frame().Index() != 10 {
		t.Fatalf("10n: step %d", m.frame().Index())
	}
	m = drive(t, m, keys("text:3p")...)
	if m.frame().Index() != 7 {
		t.Fatalf("3p: step %d", m.frame().Index())
	}
	one := drive(t, swimModel(t, 120, 40), keys("b", "a", "text:type=state_transition to=suspect", "enter", "esc", "c", "c")...)
	two := drive(t, swimModel(t, 120, 40), keys("b", "a", "text:type=state_transition to=suspect", "enter", "esc", "text:2c")...)
	if one.frame().Index() != two.frame().Index() || one.hit == nil || two.hit == nil {
		t.Fatalf("c c at %d, 2c at %d", one.frame().Index(), two.frame().Index())
	}
	back := drive(t, two, keys("text:2C")...)
	first := drive(t, swimModel(t, 120, 40), keys("b", "a", "text:type=state_transition to=suspect", "enter", "esc", "c")...)
	if back.frame().Index() >= first.frame().Index() {
		t.Fatalf("2C from the second hit (%d) reached %d; the first is at %d", two.frame().Index(), back.frame().Index(), first.frame().Index())
	}
}

// g takes a record reference, a grouped step or a time; past the end it
// clamps and says so; enter on a log record goes to the step that emitted it.
func TestKeys_GotoRecordStepAndEnter(t *testing.T) {
	m := drive(t, swimModel(t, 120, 40), keys("g", "text:events.ndjson#L1000", "enter")...)
	if got := m.scr.LogCursor(); got != 1000 || !strings.Contains(m.status, "record 1 000") {
		t.Fatalf("goto L1000: cursor %d, status %q", got, m.status)
	}
	l := m.frame().LogAt(1000)
	if l == nil || l.Step != m.frame().Index() {
		t.Fatalf("at step %d, record 1000 from step %v", m.frame().Index(), l)
	}
	m = drive(t, m, keys("g", "text:4 137", "enter")...)
	if m.frame().Index() != 4137 {
		t.Fatalf("g 4 137: step %d", m.frame().Index())
	}
	m = drive(t, m, keys("k", "k", "k", "k", "k", "k", "k", "k", "k", "k", "k", "k", "k", "k", "k", "k", "k", "k", "k", "k", "k", "k", "k", "k", "k")...)
	cur := m.scr.LogCursor()
	want := m.frame().LogAt(cur).Step
	m = drive(t, m, keys("enter")...)
	if m.frame().Index() != want || m.scr.LogCursor() != cur {
		t.Fatalf("enter on record %d (step %d): at step %d, cursor %d", cur, want, m.frame().Index(), m.scr.LogCursor())
	}
	m = drive(t, m, keys("g", "text:L99999999", "enter")...)
	if !strings.Contains(m.status, "past the end") || !m.frame().Done() {
		t.Fatalf("goto past the last record: %q", m.status)
	}
	m = drive(t, m, keys("g", "text:L0", "enter")...)
	if !m.isError {
		t.Fatalf("L0 accepted: %q", m.status)
	}
}

// / searches the whole run, ] and [ go on either way, a miss says so and
// leaves the cursor; a bad field is refused with the valid ones.
func TestKeys_SearchNextPrevAndMiss(t *testing.T) {
	m := drive(t, swimModel(t, 120, 40), keys("/", "text:type=state_transition to=suspect", "enter")...)
	first := m.scr.LogCursor()
	l := m.frame().LogAt(first)
	if l == nil || !strings.Contains(string(l.Bytes), `"to":"suspect"`) || m.frame().Index() != l.Step {
		t.Fatalf("first match: cursor %d %v at step %d", first, l, m.frame().Index())
	}
	m = drive(t, m, keys("]")...)
	second := m.scr.LogCursor()
	if second <= first || !strings.Contains(string(m.frame().LogAt(second).Bytes), `"to":"suspect"`) {
		t.Fatalf("] from %d went to %d", first, second)
	}
	m = drive(t, m, keys("[")...)
	if got := m.scr.LogCursor(); got != first {
		t.Fatalf("[ from %d went to %d, want %d", second, got, first)
	}
	step, cur := m.frame().Index(), m.scr.LogCursor()
	m = drive(t, m, keys("/", "text:no-such-text-anywhere", "enter")...)
	if !strings.Contains(m.status, "no record matches") || m.scr.LogCursor() != cur || m.frame().Index() != step {
		t.Fatalf("miss: %q, cursor %d→%d, step %d→%d", m.status, cur, m.scr.LogCursor(), step, m.frame().Index())
	}
	m = drive(t, m, keys("/", "text:type=message_sent colour=red", "enter")...)
	if !m.isError || !strings.Contains(m.status, "fields of message_sent") {
		t.Fatalf("bad field: %q", m.status)
	}
}

// A breakpoint naming what the run lacks is refused with the valid names.
func TestKeys_BadBreakpointRefused(t *testing.T) {
	for spec, want := range map[string]string{
		"fail=orch_no_flop":      "assertions: orch_no_flap",
		"type=state_transitoin":  "types: ",
		"host=orhc":              "hosts: fra, orch, sgp",
		"type=probe_sent colour": "not key=value",
	} {
		m := drive(t, swimModel(t, 120, 40), keys("b", "a", "text:"+spec, "enter")...)
		if !m.isError || !strings.Contains(m.status, want) || len(m.bps) != 1 {
			t.Errorf("%q: status %q, %d breakpoints", spec, m.status, len(m.bps))
		}
	}
	if _, err := NewModel(loadScenario(t, "reproduction/gossip_flap"), testRegistry(), Options{Breakpoints: []debugger.Breakpoint{{Kind: debugger.BreakHost, Arg: "nope"}}}); err == nil {
		t.Error("--break-on host=nope accepted by the stepper")
	}
}

// v lists the verdicts; enter goes to the evidence record's step.
func TestKeys_VerdictsJumpToEvidence(t *testing.T) {
	m := drive(t, swimModel(t, 120, 40), keys("c", "v")...)
	var sel int
	for i, p := range m.frame().Verdicts() {
		if p.Resolved {
			sel = i
		}
	}
	ks := []string{}
	for range sel {
		ks = append(ks, "j")
	}
	line := evidenceLine(m.frame().Verdicts()[sel])
	m = drive(t, m, keys(append(ks, "enter")...)...)
	if m.overlay != screen.OverlayNone || m.scr.LogCursor() != line || m.frame().LogAt(line).Step != m.frame().Index() {
		t.Fatalf("evidence L%d: overlay %v cursor %d step %d", line, m.overlay, m.scr.LogCursor(), m.frame().Index())
	}
}

// The log follows the step until scrolled; G snaps back; F filters.
func TestKeys_FollowAndFilter(t *testing.T) {
	m := drive(t, swimModel(t, 120, 40), keys("g", "text:2000", "enter", "k", "k", "k")...)
	held := m.scr.LogCursor()
	m = drive(t, m, keys("n", "n")...)
	if m.scr.LogCursor() != held {
		t.Fatalf("scrolled cursor moved %d → %d on n", held, m.scr.LogCursor())
	}
	m = drive(t, m, keys("G")...)
	if !m.scr.Following() || m.scr.LogCursor() != m.frame().Records() {
		t.Fatalf("G: cursor %d of %d", m.scr.LogCursor(), m.frame().Records())
	}
	m = drive(t, m, keys("F", "text:host=orch", "enter", "k", "k")...)
	if l := m.frame().LogAt(m.scr.LogCursor()); l == nil || !strings.Contains(string(l.Bytes), `"host_id":"orch"`) {
		t.Fatalf("k under a filter landed on %v", l)
	}
	if s := screenText(m); !strings.Contains(s, "filter host=orch") {
		t.Fatalf("no filter in the title:\n%s", s)
	}
}

// Under a filter, j past the last match the frame holds searches the run
// beyond the record window: the first Dead of the reproduction (record
// 6 082, at 256 s) is found from step 2 000, and k from there, with no
// earlier Dead, says so and stays.
func TestKeys_FilterReachesBeyondTheWindow(t *testing.T) {
	m := drive(t, swimModel(t, 120, 40), keys("g", "text:2000", "enter")...)
	if m.scr.Focus() != screen.PaneEvents {
		t.Fatalf("focus %v, want the log", m.scr.Focus())
	}
	m = drive(t, m, keys("F", "text:type=state_transition to=dead", "enter", "j")...)
	n := m.scr.LogCursor()
	l := m.frame().LogAt(n)
	if l == nil || !strings.Contains(string(l.Bytes), `"to":"dead"`) || n != 6082 {
		t.Fatalf("j under the filter: cursor on record %d (%v); status %q", n, l, m.status)
	}
	m = drive(t, m, keys("k")...)
	if m.scr.LogCursor() != n || !strings.Contains(m.status, "no record matches") {
		t.Fatalf("k with no earlier match: cursor %d → %d, status %q", n, m.scr.LogCursor(), m.status)
	}
}

// The new keys through the real runtime: typed faster than they finish.
func TestTeatest_SearchVerdictsCount(t *testing.T) {
	tm := runTea(t, swimModel(t, 120, 40), 120, 40)
	tm.Type("25n")
	waitScreen(t, tm, "25 steps to step 25")
	enter(t, tm, "/type=probe_timed_out", "( ] next, [ previous )")
	tm.Type("]")
	tm.Type("v")
	waitScreen(t, tm, "j/k select")
	tm.Send(keyPress("esc"))
	enter(t, tm, "gL500", "(events.ndjson#L500) was emitted by step")
	final := quit(t, tm)
	if final.scr.LogCursor() != 500 {
		t.Fatalf("final cursor %d", final.scr.LogCursor())
	}
}
