package tui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/detsim/detsim/tui/screen"
)

// View draws the screen in the alternate screen buffer.
func (m Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.WindowTitle = "detsim " + m.name
	return v
}

// render draws the screen from the frame on it and what the stepper is
// doing: exactly height lines of at most width cells each. It never
// touches the session.
func (m Model) render() string {
	st := screen.Status{Name: m.name, Seed: m.seed, Breakpoints: m.bps, BPSel: m.bpSel, Hit: m.hit,
		Line: m.status, IsError: m.isError, Overlay: m.overlay, HelpScroll: m.helpScroll, VSel: m.vSel, Filter: m.filter,
		Chain: m.chain, ChainSel: m.chainSel}
	if m.watch != nil {
		st.Watch = m.watch.String()
	}
	if m.job != nil && m.job.kind.long() {
		st.Running = m.job.kind.verb()
	}
	if m.prompt != nil {
		st.Prompt, st.PromptInput, st.PromptErr = m.prompt.label, m.prompt.input(), m.prompt.err
	}
	return m.scr.Render(st)
}
