package tui

import (
	"reflect"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"

	"github.com/detsim/detsim/debugger"
	"github.com/detsim/detsim/tui/screen"
)

// The header names the breakpoint that fired (issue 22: with
// --break-on fail=orch_no_flap, c paused "at breakpoint
// fail=orch_no_flap: ping_within_budget Fail", the run's first failure).
func TestHeader_NamesTheBreakpointThatFired(t *testing.T) {
	sc := loadScenario(t, "reproduction/gossip_flap")
	bp, err := debugger.ParseBreakpoint("fail=orch_no_flap")
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewModel(sc, testRegistry(), Options{Width: 160, Height: 48, Breakpoints: []debugger.Breakpoint{bp}})
	if err != nil {
		t.Fatal(err)
	}
	m = drive(t, m, keys("c")...)
	s := screenText(m)
	if !strings.Contains(s, "paused at breakpoint fail=orch_no_flap: orch_no_flap Fail") {
		t.Errorf("header after c to fail=orch_no_flap:\n%s", strings.SplitN(s, "\n", 3)[1])
	}
	// With plain "fail", each stop names what failed at that step, not
	// the first failure again.
	m = newTestModel(t, sc, 160, 48)
	var heads []string
	for range 3 {
		m = drive(t, m, keys("c")...)
		heads = append(heads, strings.SplitN(screenText(m), "\n", 3)[1])
	}
	first := heads[0][strings.Index(heads[0], "fail: ")+6:]
	first = first[:strings.Index(first, " Fail")]
	if strings.Contains(heads[1], "fail: "+first+" Fail") && strings.Contains(heads[2], "fail: "+first+" Fail") {
		t.Errorf("every fail stop names %s:\n%s", first, strings.Join(heads, "\n"))
	}
	for _, h := range heads {
		if !strings.Contains(h, "paused at breakpoint fail: ") {
			t.Errorf("a fail stop says %q", h)
		}
	}
}

// The key help lists every key the stepper answers to and scrolls, so at
// 80×24 every one can be read; the footer keeps "? help" and "q quit"
// (issue 22: the list stopped after "/ search", the footer before ? help).
func TestHelp_ScrollsAndListsEveryKey(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {40, 12}, {200, 60}} {
		m := newTestModel(t, loadScenario(t, "reproduction/gossip_flap"), sz[0], sz[1])
		if foot := screenText(m); sz[0] >= 80 && (!strings.Contains(foot, "? help") || !strings.Contains(foot, "q quit")) {
			t.Errorf("%dx%d: the footer lacks ? help or q quit:\n%s", sz[0], sz[1], foot)
		}
		m = drive(t, m, keys("?")...)
		seen := screenText(m)
		for range 300 {
			m = drive(t, m, keys("j")...)
			seen += "\n" + screenText(m)
		}
		km := reflect.ValueOf(screen.NewKeyMap())
		for i := range km.NumField() {
			k := km.Field(i).Interface().(key.Binding).Help()
			if !strings.Contains(seen, k.Key) {
				t.Errorf("%dx%d: the help never shows key %q (%s)", sz[0], sz[1], k.Key, km.Type().Field(i).Name)
			}
			if sz[0] >= 80 && !strings.Contains(seen, firstWords(k.Desc)) {
				t.Errorf("%dx%d: the help never shows what %q does (%q)", sz[0], sz[1], k.Key, k.Desc)
			}
		}
		m = drive(t, m, keys("esc")...)
		if strings.Contains(screenText(m), "keys ") && strings.Contains(screenText(m), "scroll") {
			t.Errorf("%dx%d: esc did not close the help", sz[0], sz[1])
		}
	}
}

func firstWords(s string) string {
	f := strings.Fields(s)
	return strings.Join(f[:min(3, len(f))], " ")
}

// W on a gossiped suspicion shows the whole chain back to its origin,
// each link a jump target: enter goes to that record's step with the
// log cursor on it.
func TestChain_WExplainsAndJumps(t *testing.T) {
	m := newTestModel(t, loadScenario(t, "reproduction/gossip_flap"), 120, 40)
	m = drive(t, m, keys("/", "text:type=state_transition subject=orch to=suspect reason=gossip", "enter", "W")...)
	if m.overlay != screen.OverlayChain || m.chain == nil || len(m.chain.Links) < 4 || !m.chain.Complete {
		t.Fatalf("after W: overlay %v, chain %+v\n%s", m.overlay, m.chain, screenText(m))
	}
	s := screenText(m)
	if !strings.Contains(s, "origin") || !strings.Contains(s, "why: ") {
		t.Errorf("the chain overlay:\n%s", s)
	}
	last := m.chain.Links[len(m.chain.Links)-1]
	for range len(m.chain.Links) - 1 {
		m = drive(t, m, keys("j")...)
	}
	m = drive(t, m, keys("enter")...)
	if m.overlay != screen.OverlayNone || m.scr.LogCursor() != last.Line {
		t.Errorf("enter on L%d: overlay %v, log cursor %d", last.Line, m.overlay, m.scr.LogCursor())
	}
	if rec := m.frame().LogAt(last.Line); rec == nil || m.frame().Index() != rec.Step {
		t.Errorf("enter on L%d landed at step %d", last.Line, m.frame().Index())
	}
	// W on a record that is not a transition says what it explains.
	m = drive(t, m, keys("/", "text:type=message_sent", "enter", "W")...)
	if !m.isError || !strings.Contains(m.status, "state_transition") {
		t.Errorf("W on a non-transition: status %q", m.status)
	}
}

// = watches a value; } and { go to its next and previous change, from
// the record under the cursor, forward and backward.
func TestWatch_KeysFollowTheChanges(t *testing.T) {
	m := newTestModel(t, loadScenario(t, "reproduction/gossip_flap"), 120, 40)
	m = drive(t, m, keys("=", "text:host=fra member=orch field=state", "enter")...)
	first := m.scr.LogCursor()
	if m.isError || !strings.Contains(m.status, "→ alive") {
		t.Fatalf("= host=fra member=orch field=state: %q", m.status)
	}
	m = drive(t, m, keys("}")...)
	second := m.scr.LogCursor()
	if second <= first || !strings.Contains(m.status, "alive → suspect") {
		t.Fatalf("}: cursor %d (was %d), status %q", second, first, m.status)
	}
	m = drive(t, m, keys("}")...)
	third := m.scr.LogCursor()
	m = drive(t, m, keys("{")...)
	if m.scr.LogCursor() != second {
		t.Errorf("{ from the third change (L%d) went to L%d, want the second, L%d: %q", third, m.scr.LogCursor(), second, m.status)
	}
	if !strings.Contains(screenText(m), "watch host=fra member=orch field=state") {
		t.Errorf("the header does not show the watch")
	}
	// Bad names are refused with a did-you-mean.
	m = drive(t, m, keys("=", "backspace")...)
	for range 40 {
		m = drive(t, m, keys("backspace")...)
	}
	m = drive(t, m, keys("text:host=fr member=orch field=state", "enter")...)
	if !m.isError || !strings.Contains(m.status, `did you mean "fra"?`) {
		t.Errorf("a misspelt host: %q", m.status)
	}
}
