package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/detsim/detsim/debugger"
	"github.com/detsim/detsim/tui/screen"
)

// explain (W) shows the whole causal chain of a state: the transition
// under the log cursor, or, with the host pane focused, the latest
// transition by which the selected host came to hold the accused member
// under its cursor. The chain comes from the records the session has run
// (debugger.Session.Why), so it reaches back across hosts without running
// anything.
func (m Model) explain() (tea.Model, tea.Cmd) {
	j := &job{kind: jobChain}
	if m.scr.Focus() == screen.PaneHost {
		host, ok := m.scr.SelectedHost()
		a, ok2 := m.scr.Target()
		if !ok || !ok2 {
			m.setError("W explains a transition: put the log cursor on one, or the host cursor on a line about a member (in SWIM's pane: a suspect or dead one)")
			return m, nil
		}
		j.follow, j.subject, j.at = host, a.Member, m.frame().Now()
	} else {
		n := m.scr.LogCursor()
		if n < 1 {
			m.setError("no record under the cursor: W explains the state_transition under the log cursor")
			return m, nil
		}
		j.target = n
	}
	return m.start(j, "explaining…")
}

// chainKey handles keys while the chain is shown.
func (m Model) chainKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	km := m.keys
	n := 0
	if m.chain != nil {
		n = len(m.chain.Links)
	}
	switch {
	case key.Matches(k, km.Interrupt, km.Chain):
		m.overlay = screen.OverlayNone
	case key.Matches(k, km.Up):
		m.chainSel = screen.Clamp(m.chainSel-1, 0, n-1)
	case key.Matches(k, km.Down):
		m.chainSel = screen.Clamp(m.chainSel+1, 0, n-1)
	case key.Matches(k, km.Open):
		if m.chainSel < n {
			l := m.chain.Links[m.chainSel]
			m.overlay = screen.OverlayNone
			return m.start(&job{kind: jobGotoRecord, target: l.Line}, "going to record "+screen.FmtInt(l.Line)+": "+l.Text+"…")
		}
	case key.Matches(k, km.Help):
		m.overlay, m.helpScroll = screen.OverlayHelp, 0
	}
	return m, nil
}

// startWatch goes to the next (or previous) change of the watched value
// from the record under the cursor.
func (m Model) startWatch(forward bool) (tea.Model, tea.Cmd) {
	dir := "next"
	if !forward {
		dir = "previous"
	}
	return m.start(&job{kind: jobWatch, watch: *m.watch, forward: forward, target: m.scr.LogCursor()}, "looking for the "+dir+" change of "+m.watch.String()+"…")
}

// watchJob runs one chunk of a watch jump.
//
// watchJob runs in the steps searchJob does (jobs.go), alike in shape: over
// a watch's changes rather than a query's matches, with messages of its own.
func watchJob(s *debugger.Session, j *job, pause debugger.Pause) jobMsg {
	c, done, err := s.WatchChange(j.watch, j.target, j.forward, &j.watchState, pause)
	if err != nil {
		return jobMsg{sess: s, err: err}
	}
	if !done {
		return progress(s, j)
	}
	idx := s.Timeline().Engine().Index()
	if c.Line == 0 {
		dir := "after"
		if !j.forward {
			dir = "before"
		}
		return finish(s, j, idx, "no change of "+j.watch.String()+" "+dir+" record "+screen.FmtInt(j.target)+": the cursor stays")
	}
	old := c.Old
	if old == "" {
		old = "(unset)"
	}
	j.vp.LogFrom = max(c.Line-screen.LogWindow/2, 1)
	msg := finish(s, j, idx, j.watch.String()+": "+old+" → "+c.New+" at record "+screen.FmtInt(c.Line)+", step "+screen.FmtInt(c.Step)+" ( } next change, { previous )")
	msg.cursor = c.Line
	return msg
}

// chainJob computes the chain a W asked for.
func chainJob(s *debugger.Session, j *job) jobMsg {
	line := j.target
	if line == 0 {
		if line = s.WhyTarget(j.follow, j.subject, j.at); line == 0 {
			return jobMsg{sess: s, status: "no transition of " + j.follow + " about " + j.subject + " among the records run so far"}
		}
	}
	c, err := s.Why(line)
	if err != nil {
		return jobMsg{sess: s, err: err}
	}
	return jobMsg{sess: s, chain: &c, status: "why: " + screen.FmtInt(int64(len(c.Links))) + " records from record " + screen.FmtInt(line) + " back to its origin (j/k, enter goes to one)"}
}
