package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/detsim/detsim/debugger"
)

// View draws the screen in the alternate screen buffer.
func (m Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.WindowTitle = "detsim " + m.name
	return v
}

// render draws exactly height lines of at most width cells each, from
// the frame alone: it never touches the session.
func (m Model) render() string {
	W, H := m.width, m.height
	if W <= 0 || H <= 0 || m.fr == nil {
		return ""
	}
	lines := make([]string, 0, H)
	lines = append(lines, m.headerView(W)...)
	main := H - m.header - m.footer
	switch {
	case main <= 0:
	case m.overlay == overlayHelp:
		lines = append(lines, m.helpView(W, main)...)
	case m.overlay == overlayBreakpoints:
		lines = append(lines, m.breakpointsView(W, main)...)
	case m.overlay == overlayVerdicts:
		lines = append(lines, m.verdictsView(W, main)...)
	default:
		for _, b := range m.bands {
			lines = append(lines, m.bandView(b)...)
		}
	}
	lines = append(lines, m.footerView(W)...)
	// The layout already fits; this is the guarantee that no terminal,
	// however small, gets a line longer than it is wide.
	out := make([]string, H)
	for i := range out {
		if i < len(lines) {
			out[i] = fit(lines[i], W)
		} else {
			out[i] = strings.Repeat(" ", W)
		}
	}
	return strings.Join(out, "\n")
}

// bandView draws one strip of panes side by side.
func (m Model) bandView(b bandLayout) []string {
	cols := make([][]string, len(b.cells))
	for i, c := range b.cells {
		cols[i] = m.slotView(c.slot)
		cols[i] = padLines(cols[i], c.w, b.h)
	}
	sep := m.st.dim.Render("│")
	out := make([]string, b.h)
	for r := range out {
		var sb strings.Builder
		for i := range cols {
			if i > 0 {
				sb.WriteString(sep)
			}
			sb.WriteString(cols[i][r])
		}
		out[r] = sb.String()
	}
	return out
}

func (m Model) slotView(s slot) []string {
	ctx := func(p paneID) *drawCtx { return &drawCtx{f: m.fr, st: m.st, focused: m.focus == p} }
	switch s {
	case slotMatrix:
		return m.matrix.View(ctx(paneMatrix))
	case slotHost:
		return m.host.View(ctx(paneHost), m.matrix.sel)
	case slotQueue:
		return m.queue.View(ctx(paneQueue))
	case slotLinks:
		return m.links.View(ctx(paneLinks))
	case slotEvents:
		return m.events.View(ctx(paneEvents), m.filter)
	case slotRecord:
		return m.record.View(ctx(paneRecord), m.events.at(m.fr))
	}
	return nil
}

// runState says in a few words what the stepper is doing.
func (m Model) runState() string {
	f := m.fr
	switch {
	case m.job != nil && m.job.kind.long():
		return m.st.running.Render("▶ " + m.job.kind.verb() + "…")
	case m.hit != nil:
		s := "paused at breakpoint " + m.hit.String()
		if m.hit.Kind == debugger.BreakFail && f.firstFail != "" {
			s += ": " + f.firstFail + " Fail"
		}
		return m.st.failed.Render("▌" + s)
	case f.done && f.early:
		return m.st.paused.Render("▌ended early at " + fmtTime(f.now) + ": every assertion resolved")
	case f.done:
		return m.st.paused.Render("▌ended at " + fmtTime(f.now))
	}
	return m.st.paused.Render("▌paused")
}

func (m Model) headerView(W int) []string {
	f := m.fr
	l1 := " " + m.st.bold.Render("detsim") + "  " + m.name + "  seed " + uitoa(m.seed) +
		"  t=" + fmtTime(f.now) + "  step " + fmtInt(f.index) + "  " + m.st.dim.Render(describeStep(f.last))
	verdicts := "verdicts " + itoa(f.pass) + " pass · " + itoa(f.fail) + " fail · " + itoa(f.open) + " open"
	if f.inconclusive > 0 {
		verdicts += " · " + itoa(f.inconclusive) + " inconclusive"
	}
	if f.fail > 0 {
		verdicts = m.st.failed.Render(verdicts)
	}
	var on []string
	for _, b := range m.bps {
		if !b.Off {
			on = append(on, b.String())
		}
	}
	bps := "breakpoints " + strings.Join(on, ", ")
	if len(on) == 0 {
		bps = "no breakpoints"
	}
	l2 := " " + m.runState() + "   " + verdicts + "   " + m.st.dim.Render(bps)
	if m.header < 2 {
		return []string{l1 + "  " + m.runState()}[:m.header]
	}
	return []string{l1, l2}
}

func (m Model) footerView(W int) []string {
	status := m.status
	switch {
	case m.prompt != nil:
		status = m.prompt.view()
	case m.isError:
		status = m.st.errText.Render(status)
	}
	status = " " + status
	hm := m.help
	hm.SetWidth(W - 1)
	hm.ShortSeparator = " · "
	if W < 100 {
		hm.ShortSeparator = "  "
	}
	keys := " " + hm.ShortHelpView(m.keys.ShortHelp())
	switch m.footer {
	case 0:
		return nil
	case 1:
		if m.prompt != nil || m.isError || (m.job != nil && m.job.kind.long()) {
			return []string{status}
		}
		return []string{keys}
	}
	return []string{status, keys}
}

func itoa(n int) string { return fmtInt(int64(n)) }

// plain strips styling: the text form of a screen.
func plain(s string) string { return ansi.Strip(s) }
