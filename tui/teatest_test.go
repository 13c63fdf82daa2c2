package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// runTea runs m in the real bubbletea runtime on a w x h terminal.
func runTea(t *testing.T, m tea.Model, w, h int) *teatest.TestModel {
	t.Helper()
	return teatest.NewTestModel(t, m, teatest.WithInitialTermSize(w, h))
}

// enter types typed and enter, and waits for want on the screen.
func enter(t *testing.T, tm *teatest.TestModel, typed, want string) {
	t.Helper()
	tm.Type(typed)
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	waitScreen(t, tm, want)
}

// quit types q and returns the model the program ended with.
func quit(t *testing.T, tm *teatest.TestModel) Model {
	t.Helper()
	tm.Type("q")
	return tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(Model)
}

// waitScreen waits until the screen shows want. The output is a stream
// of screen updates that rewrite only the cells that changed and may
// break a line's text with style changes, so the bytes are read with
// their escape sequences stripped, and a wait that has not matched for a
// second asks the program for a full repaint (tea.ClearScreen), after
// which every line on screen is in the stream whole: a string that showed
// up cell by cell, across frames, is still found, on a loaded machine
// too.
func waitScreen(t *testing.T, tm *teatest.TestModel, want string) {
	t.Helper()
	checks := 0
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		if strings.Contains(ansi.Strip(string(b)), want) {
			return true
		}
		if checks++; checks%100 == 0 {
			tm.Send(tea.ClearScreen())
		}
		return false
	}, teatest.WithDuration(20*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
}

// A whole session through the real bubbletea runtime: keys typed faster
// than the steps finish are queued, not lost.
func TestTeatest_KeySequence(t *testing.T) {
	m := newTestModel(t, echoParity(t), 80, 24)
	tm := runTea(t, m, 80, 24)
	tm.Type("nnnnn")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyLeft})
	waitScreen(t, tm, "back to step 4")
	enter(t, tm, "g9s", "the first at or after t=+9s")
	tm.Type("C")
	waitScreen(t, tm, "no breakpoint before step")
	final := quit(t, tm)
	if final.frame().Index() != 0 {
		t.Fatalf("final step %d, want 0", final.frame().Index())
	}
}

// esc stops a long continue between chunks, and the stepper stays usable.
func TestTeatest_EscInterruptsContinue(t *testing.T) {
	m := newTestModel(t, meshScenario(12, 1<<50), 80, 24)
	tm := runTea(t, m, 80, 24)
	tm.Type("c")
	waitScreen(t, tm, "events/s")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEscape})
	waitScreen(t, tm, "interrupted")
	enter(t, tm, "g1", "at step 1")
	final := quit(t, tm)
	if final.frame().Index() != 1 || final.job != nil || final.status != "at step 1" {
		t.Fatalf("after interrupting and going to step 1: step %d job=%v status %q", final.frame().Index(), final.job, final.status)
	}
}

// The cause of the old flake, without the race: a long job asked for while
// a short redraw holds the session waits its turn instead of being
// refused, and esc reaches it even before it starts.
func TestLongJobQueuesBehindShort(t *testing.T) {
	m := newTestModel(t, meshScenario(12, 1<<50), 80, 24)
	// A redraw holds the session, as after an interrupt.
	cmd := m.launch(&job{kind: jobLand, vp: m.scr.ViewParams()})
	next, _ := m.key(keyPress("g"))
	m = next.(Model)
	for _, k := range keys("text:1", "enter") {
		next, _ = m.key(k.(tea.KeyPressMsg))
		m = next.(Model)
	}
	if m.isError || len(m.pending) != 1 || m.pending[0].kind != jobGotoStep {
		t.Fatalf("goto behind a redraw: pending %v, status %q (error %v)", m.pending, m.status, m.isError)
	}
	next, _ = m.key(keyPress("esc"))
	m = next.(Model)
	if len(m.pending) != 0 || m.status != "cancelled before it started" {
		t.Fatalf("esc on a queued goto: pending %v, status %q", m.pending, m.status)
	}
	next, _ = m.key(keyPress("c"))
	m = next.(Model)
	if len(m.pending) != 1 {
		t.Fatalf("continue behind a redraw not queued: status %q", m.status)
	}
	next, _ = m.Update(cmd())
	m = next.(Model)
	if m.job == nil || m.job.kind != jobContinue || len(m.pending) != 0 {
		t.Fatalf("after the redraw the queued continue should run: job %v pending %v", m.job, m.pending)
	}
}

// textModel shows one line, which the key "x" changes in a single cell.
type textModel struct{ line string }

func (m textModel) Init() tea.Cmd { return nil }
func (m textModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch k.String() {
		case "x":
			m.line = "breakpoint hit at step 25"
		case "q":
			return m, tea.Quit
		}
	}
	return m, nil
}
func (m textModel) View() tea.View { return tea.NewView(m.line) }

// The renderer rewrites only the cell that changed, so the new line is
// never in the stream whole until waitScreen asks for a repaint.
func TestWaitScreen_FindsTextChangedInOneCell(t *testing.T) {
	tm := runTea(t, textModel{line: "breakpoint hit at step 26"}, 40, 3)
	waitScreen(t, tm, "breakpoint hit at step 26")
	tm.Type("x")
	waitScreen(t, tm, "breakpoint hit at step 25")
	tm.Type("q")
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
}
