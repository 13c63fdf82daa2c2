package tui

import (
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
	case matches(k, km.Help, km.Interrupt, km.Quit):
		m.overlay = screen.OverlayNone
	case matches(k, km.Up):
		m.helpScroll = screen.Clamp(m.helpScroll-1, 0, limit)
	case matches(k, km.Down):
		m.helpScroll = screen.Clamp(m.helpScroll+1, 0, limit)
	case matches(k, km.PageUp):
		m.helpScroll = screen.Clamp(m.helpScroll-m.scr.Page(), 0, limit)
	case matches(k, km.PageDown):
		m.helpScroll = screen.Clamp(m.helpScroll+m.scr.Page(), 0, limit)
	}
	return m, nil
}

// breakpointsKey handles keys while the breakpoints list is open.
func (m Model) breakpointsKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	km := m.keys
	switch {
	case matches(k, km.Interrupt, km.Breakpoints):
		m.overlay = screen.OverlayNone
	case matches(k, km.Up):
		m.bpSel = screen.Clamp(m.bpSel-1, 0, len(m.bps)-1)
	case matches(k, km.Down):
		m.bpSel = screen.Clamp(m.bpSel+1, 0, len(m.bps)-1)
	case matches(k, km.BPToggle):
		if m.bpSel < len(m.bps) {
			m.bps = append([]debugger.Breakpoint(nil), m.bps...)
			m.bps[m.bpSel].Off = !m.bps[m.bpSel].Off
		}
	case matches(k, km.BPDelete):
		if m.bpSel < len(m.bps) {
			m.bps = append(append([]debugger.Breakpoint(nil), m.bps[:m.bpSel]...), m.bps[m.bpSel+1:]...)
			m.bpSel = screen.Clamp(m.bpSel, 0, len(m.bps)-1)
		}
	case matches(k, km.BPAdd):
		m.prompt = newPrompt(promptBreakpoint, "add breakpoint (fail, fail=NAME, verdict, type=T field=V …, host=H, time=12.5s, step=N): ", "")
	case matches(k, km.Help):
		m.overlay, m.helpScroll = screen.OverlayHelp, 0
	}
	return m, nil
}
