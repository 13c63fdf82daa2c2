package tui

import (
	"regexp"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/detsim/detsim/tui/screen"
)

// Issue 33, the newcomer's friction in the stepper, each seen in tmux at
// 80×24 and 200×50.

// The add-breakpoint prompt leaves the line to what is typed, and a
// refused breakpoint says why in full (the nearest type and the list of
// types) with the prompt still open on what was typed: before, the label
// filled the 80-column line, the suggestion was cut, and the prompt
// closed, so the rest of the typing ran as the list's keys (d deleted the
// selected breakpoint).
func TestBreakpointPrompt_TypedTextAndRefusalOnScreen(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {200, 50}} {
		m := newTestModel(t, loadScenario(t, "reproduction/gossip_flap"), sz[0], sz[1])
		m = drive(t, m, keys("b", "a", "text:type=state_transiton to=suspect")...)
		if s := screenText(m); !strings.Contains(s, "type=state_transiton to=suspect█") {
			t.Errorf("%dx%d: what is typed is not on screen:\n%s", sz[0], sz[1], s)
		}
		m = drive(t, m, keys("enter")...)
		if m.prompt == nil || m.prompt.value != "type=state_transiton to=suspect" || m.overlay != screen.OverlayBreakpoints {
			t.Fatalf("%dx%d: after a refused breakpoint the prompt is %+v, overlay %v", sz[0], sz[1], m.prompt, m.overlay)
		}
		s := oneLine(screenText(m))
		for _, w := range []string{`did you mean "state_transition"?`, "(types: ", "self_incarnation_bump, state_transition)"} {
			if !strings.Contains(s, w) {
				t.Errorf("%dx%d: the refusal is cut, %q not on screen:\n%s", sz[0], sz[1], w, screenText(m))
			}
		}
		n := len(m.bps)
		// The correction goes into the prompt: backspace over the typo's
		// tail and retype; d is text, not delete.
		m = drive(t, m, append(keys(repeat("backspace", len("siton to=suspect"))...), keys("text:sition to=suspect d")...)...)
		if len(m.bps) != n || m.prompt == nil || m.prompt.value != "type=state_transition to=suspect d" {
			t.Fatalf("%dx%d: keys after the refusal ran as commands: %d breakpoints (was %d), prompt %+v", sz[0], sz[1], len(m.bps), n, m.prompt)
		}
		m = drive(t, m, keys("backspace", "backspace", "enter")...)
		if m.prompt != nil || len(m.bps) != n+1 || m.bps[n].String() != "type=state_transition to=suspect" {
			t.Fatalf("%dx%d: the corrected breakpoint: prompt %+v, breakpoints %v, status %q", sz[0], sz[1], m.prompt, m.bps, m.status)
		}
	}
}

// oneLine joins a screen's lines, trimmed, so text wrapped over lines
// reads as one.
func oneLine(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		out = append(out, strings.TrimSpace(l))
	}
	return regexp.MustCompile(`\s+`).ReplaceAllString(strings.Join(out, " "), " ")
}

// The same through the bubbletea runtime: a refused breakpoint keeps
// its prompt, and esc then cancels it rather than closing the list.
func TestTeatest_RefusedBreakpointKeepsPrompt(t *testing.T) {
	m := newTestModel(t, loadScenario(t, "reproduction/gossip_flap"), 80, 24)
	tm := runTea(t, m, 80, 24)
	tm.Type("ba")
	enter(t, tm, "host=orhc", `did you mean "orch"?`)
	tm.Type("d")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEscape})
	final := quit(t, tm)
	if len(final.bps) != 1 || final.overlay != screen.OverlayBreakpoints || final.prompt != nil {
		t.Fatalf("after the refusal, d and esc: breakpoints %v, overlay %v, prompt %+v", final.bps, final.overlay, final.prompt)
	}
}

// The breakpoints list's keys (a, space, d) are the list's: the key help
// of the stepper does not list them as its own, the list shows them.
func TestHelp_ListsNoBreakpointListKeys(t *testing.T) {
	for _, g := range screen.NewKeyMap().FullHelp() {
		for _, b := range g {
			for _, k := range b.Keys() {
				if k == "a" || k == "space" && b.Help().Key != "n/→/space" || k == "d" {
					t.Errorf("the key help lists %q (%s) as a stepper key", k, b.Help().Desc)
				}
			}
		}
	}
	m := drive(t, swimModel(t, 80, 24), keys("b")...)
	if s := screenText(m); !strings.Contains(s, "a add · space toggle · d delete") {
		t.Errorf("the breakpoints list does not show its keys:\n%s", s)
	}
}

// The filter's count is of the records meeting it: the cursor's record
// is drawn among them when it does not, but not counted (before, the
// title said 56 where 55 matched).
func TestFilter_CountsOnlyMatches(t *testing.T) {
	m := drive(t, swimModel(t, 120, 40), keys("g", "text:3000", "enter", "F", "text:host=orch type=message_sent", "enter")...)
	f := m.frame()
	cur := f.LogAt(m.scr.LogCursor())
	if cur == nil || m.filter.Match(cur.Bytes, cur.Step, cur.At) {
		t.Fatalf("the test wants the cursor on a record the filter does not meet: %v", cur)
	}
	meet := 0
	for n := f.LogFrom(); n <= f.Records(); n++ {
		if l := f.LogAt(n); l != nil && l.Bytes != nil && m.filter.Match(l.Bytes, l.Step, l.At) {
			meet++
		}
	}
	if want := ": " + screen.FmtInt(int64(meet)) + " of "; !strings.Contains(screenText(m), want) {
		t.Errorf("the filter's title does not count %d matches (%q):\n%s", meet, want, screenText(m))
	}
}

// At a thousand hosts, h selects one by name (or a unique start of one),
// and c follows the host of the step it stops at; before, there was no
// such key and the panes stayed on the first hosts.
func TestHosts_SelectByNameAndFollowTheStop(t *testing.T) {
	if testing.Short() {
		t.Skip("a 1000-peer scenario")
	}
	for _, sz := range [][2]int{{80, 24}, {200, 50}} {
		m := newTestModel(t, loadScenario(t, "reproduction/gossip_flap_wan1000"), sz[0], sz[1])
		peers := m.frame().Peers()
		if len(peers) < 1000 {
			t.Fatalf("%d peers", len(peers))
		}
		want := peers[700]
		m = drive(t, m, keys("h", "text:"+want, "enter")...)
		if h, _ := m.scr.SelectedHost(); h != want || !m.scr.FrameCovers() || !strings.Contains(screenText(m), want) {
			t.Fatalf("%dx%d: h %s selected %s (status %q):\n%s", sz[0], sz[1], want, h, m.status, screenText(m))
		}
		m = drive(t, m, keys("h", "text:"+want[:len(want)-1]+"#", "enter")...)
		if m.prompt == nil || !strings.Contains(m.prompt.err, "no host") {
			t.Errorf("%dx%d: a host that is not: prompt %+v", sz[0], sz[1], m.prompt)
		}
		m = drive(t, m, keys("esc")...)
		far := peers[900]
		m = drive(t, m, keys("b", "a", "text:host="+far, "enter", "esc", "c")...)
		if h, _ := m.scr.SelectedHost(); m.hit == nil || h != far || !m.scr.FrameCovers() {
			t.Fatalf("%dx%d: c stopped at %v (step of %s) with %s selected, want it", sz[0], sz[1], m.hit, m.frame().Last().Host, h)
		}
		if s := screenText(m); !strings.Contains(s, far) {
			t.Errorf("%dx%d: the stop's host %s is not on screen:\n%s", sz[0], sz[1], far, s)
		}
	}
}
