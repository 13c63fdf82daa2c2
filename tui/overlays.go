package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/detsim/detsim/debugger"
	"github.com/detsim/detsim/tui/screen"
)

// helpKey handles keys while the key help is open: it scrolls, so every
// key can be read on any screen, and ? esc q close it.
func (m Model) helpKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	km := m.keys
	limit := m.scr.HelpMaxScroll()
	switch {
	case key.Matches(k, km.Help, km.Interrupt, km.Quit):
		m.overlay = screen.OverlayNone
	case key.Matches(k, km.Up):
		m.helpScroll = screen.Clamp(m.helpScroll-1, 0, limit)
	case key.Matches(k, km.Down):
		m.helpScroll = screen.Clamp(m.helpScroll+1, 0, limit)
	case key.Matches(k, km.PageUp):
		m.helpScroll = screen.Clamp(m.helpScroll-m.scr.Page(), 0, limit)
	case key.Matches(k, km.PageDown):
		m.helpScroll = screen.Clamp(m.helpScroll+m.scr.Page(), 0, limit)
	}
	return m, nil
}

// breakpointsKey handles keys while the breakpoints list is open.
func (m Model) breakpointsKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	km, bk := m.keys, screen.NewBreakpointKeys()
	switch {
	case key.Matches(k, bk.Close):
		m.overlay = screen.OverlayNone
	case key.Matches(k, bk.Up):
		m.bpSel = screen.Clamp(m.bpSel-1, 0, len(m.bps)-1)
	case key.Matches(k, bk.Down):
		m.bpSel = screen.Clamp(m.bpSel+1, 0, len(m.bps)-1)
	case key.Matches(k, bk.Toggle):
		if m.bpSel < len(m.bps) {
			m.bps = append([]debugger.Breakpoint(nil), m.bps...)
			m.bps[m.bpSel].Off = !m.bps[m.bpSel].Off
		}
	case key.Matches(k, bk.Delete):
		if m.bpSel < len(m.bps) {
			m.bps = append(append([]debugger.Breakpoint(nil), m.bps[:m.bpSel]...), m.bps[m.bpSel+1:]...)
			m.bpSel = screen.Clamp(m.bpSel, 0, len(m.bps)-1)
		}
	case key.Matches(k, bk.Add):
		// The list shows what a breakpoint may be (screen.BreakpointSyntax):
		// the label stays short, so what is typed has the line.
		m.prompt = newPrompt(promptBreakpoint, "add breakpoint: ", "")
	case key.Matches(k, km.Help):
		m.overlay, m.helpScroll = screen.OverlayHelp, 0
	}
	return m, nil
}
