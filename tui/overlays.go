package tui

import (
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/detsim/detsim/debugger"
)

// widest returns the widest line of a block.
func widest(block string) string {
	best := ""
	for _, l := range strings.Split(block, "\n") {
		if ansi.StringWidth(l) > ansi.StringWidth(best) {
			best = l
		}
	}
	return best
}

// breakpointsKey handles keys while the breakpoints list is open.
func (m Model) breakpointsKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	km := m.keys
	switch {
	case key.Matches(k, km.Interrupt, km.Breakpoints):
		m.overlay = overlayNone
	case key.Matches(k, km.Up):
		m.bpSel = clampInt(m.bpSel-1, 0, len(m.bps)-1)
	case key.Matches(k, km.Down):
		m.bpSel = clampInt(m.bpSel+1, 0, len(m.bps)-1)
	case key.Matches(k, km.BPToggle):
		if m.bpSel < len(m.bps) {
			m.bps = append([]debugger.Breakpoint(nil), m.bps...)
			m.bps[m.bpSel].Off = !m.bps[m.bpSel].Off
		}
	case key.Matches(k, km.BPDelete):
		if m.bpSel < len(m.bps) {
			m.bps = append(append([]debugger.Breakpoint(nil), m.bps[:m.bpSel]...), m.bps[m.bpSel+1:]...)
			m.bpSel = clampInt(m.bpSel, 0, len(m.bps)-1)
		}
	case key.Matches(k, km.BPAdd):
		m.prompt = newPrompt(promptBreakpoint, "add breakpoint (fail, fail=NAME, verdict, type=T field=V …, host=H, time=12.5s, step=N): ", "")
	case key.Matches(k, km.Help):
		m.overlay = overlayHelp
	}
	return m, nil
}

// breakpointsView draws the breakpoint list in w×h.
func (m Model) breakpointsView(w, h int) []string {
	c := &drawCtx{f: m.fr, st: m.st, focused: true}
	out := []string{titleLine(c, "breakpoints", w)}
	if len(m.bps) == 0 {
		out = append(out, " none: a adds one")
	}
	for i, b := range m.bps {
		box := "[x]"
		if b.Off {
			box = "[ ]"
		}
		marker := " "
		if i == m.bpSel {
			marker = "▶"
		}
		line := marker + box + " " + strconv.Itoa(i+1) + " " + fit(b.String(), 24) + " " + describeBreak(b)
		if i == m.bpSel {
			line = m.st.cursor.Render(line)
		}
		out = append(out, line)
	}
	out = append(out, "", m.st.dim.Render(" a add · space toggle · d delete · j/k move · esc close"),
		m.st.dim.Render(" c continues forward to the next enabled breakpoint, C backward to the previous one."))
	return padLines(out, w, h)
}

// helpView draws the full key help in w×h.
func (m Model) helpView(w, h int) []string {
	c := &drawCtx{f: m.fr, st: m.st, focused: true}
	hm := m.help
	hm.SetWidth(0)
	out := []string{titleLine(c, "keys (? or esc closes)", w), ""}
	// As many key groups side by side as fit, the rest below.
	groups := m.keys.FullHelp()
	for len(groups) > 0 {
		n := len(groups)
		for n > 1 && ansi.StringWidth(widest(hm.FullHelpView(groups[:n]))) > w-1 {
			n--
		}
		for _, l := range strings.Split(hm.FullHelpView(groups[:n]), "\n") {
			out = append(out, " "+l)
		}
		out = append(out, "")
		groups = groups[n:]
	}
	out = append(out,
		" The matrix shows each observer's view of each subject: A alive, S suspect,",
		" D dead, then the incarnation. * marks what the last step changed (in the",
		" matrix, host, queue, links and log); ▶ is the selection or the log cursor.",
	)
	return padLines(out, w, h)
}

// describeBreak says in words what a breakpoint stops at.
func describeBreak(b debugger.Breakpoint) string {
	switch b.Kind {
	case debugger.BreakFail:
		if b.Arg != "" {
			return "assertion " + b.Arg + " fails"
		}
		return "an assertion fails"
	case debugger.BreakVerdict:
		return "an assertion is decided"
	case debugger.BreakRecord:
		return "a record with " + b.Query.String()
	case debugger.BreakHost:
		return "a step for host " + b.Arg
	case debugger.BreakTime:
		return "virtual time ≥ " + fmtTime(b.N)
	case debugger.BreakStep:
		return "step " + fmtInt(b.N)
	}
	return "?"
}
