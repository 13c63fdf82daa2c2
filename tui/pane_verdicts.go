package tui

import (
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/detsim/detsim/bundle/verdict"
)

// The verdicts list (v): every assertion with its outcome as the
// streaming evaluator knows it at the current step (the final verdicts
// once the run has ended), its one-line reason and its evidence; enter
// goes to the step that emitted the selected verdict's evidence record.

func (m Model) verdictsKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	km := m.keys
	n := len(m.fr.verdicts)
	switch {
	case key.Matches(k, km.Interrupt, km.Verdicts):
		m.overlay = overlayNone
	case key.Matches(k, km.Up):
		m.vSel = clampInt(m.vSel-1, 0, n-1)
	case key.Matches(k, km.Down):
		m.vSel = clampInt(m.vSel+1, 0, n-1)
	case key.Matches(k, km.Open):
		if m.vSel >= n {
			return m, nil
		}
		line := evidenceLine(m.fr.verdicts[m.vSel])
		if line < 1 {
			m.setError(m.fr.verdicts[m.vSel].Name + ": no evidence record yet")
			return m, nil
		}
		m.overlay = overlayNone
		return m.start(&job{kind: jobGotoRecord, target: line}, "going to the evidence, record "+fmtInt(line)+"…")
	case key.Matches(k, km.Help):
		m.overlay = overlayHelp
	}
	return m, nil
}

// evidenceLine is the events.ndjson line a verdict's evidence starts at:
// its first record reference, else the record that decided it.
func evidenceLine(p verdict.Partial) int64 {
	for _, e := range p.Evidence {
		if r, ok := strings.CutPrefix(e.Ref, "events.ndjson#L"); ok {
			if n, err := strconv.ParseInt(r, 10, 64); err == nil {
				return n
			}
		}
	}
	return int64(p.Line)
}

func outcomeWord(p verdict.Partial) string {
	if !p.Resolved {
		return "open"
	}
	return string(p.Outcome)
}

// verdictsView draws the list in w×h, the selected verdict kept in view.
func (m Model) verdictsView(w, h int) []string {
	f := m.fr
	c := &drawCtx{f: f, st: m.st, focused: true}
	state := "at step " + fmtInt(f.index)
	if f.done {
		state = "final, the run has ended"
	}
	title := "verdicts (" + itoa(f.pass) + " pass · " + itoa(f.fail) + " fail · " + itoa(f.open) + " open, " + state + ")"
	var body []string
	selTop, selBot := 0, 0
	for i, p := range f.verdicts {
		marker := " "
		if i == m.vSel {
			marker = "▶"
			selTop = len(body)
		}
		word := fit(outcomeWord(p), 12)
		switch {
		case !p.Resolved:
			word = m.st.dim.Render(word)
		case p.Outcome == verdict.Fail:
			word = m.st.failed.Render(word)
		}
		line := marker + " " + word + " " + p.Name + "  " + m.st.dim.Render(p.Kind)
		if i == m.vSel {
			line = m.st.cursor.Render(plain(line))
		}
		body = append(body, line)
		reason := p.Reason
		if !p.Resolved {
			reason = "not decided by the records so far"
		}
		body = append(body, wrapText(reason, w-6, "     ")...)
		var ev []string
		for _, e := range p.Evidence {
			ev = append(ev, e.Ref+" @ "+fmtShort(e.VirtualTimeNs))
		}
		if len(ev) == 0 && p.Line > 0 {
			ev = append(ev, "events.ndjson#L"+strconv.Itoa(p.Line))
		}
		if len(ev) > 0 {
			body = append(body, wrapText("evidence "+strings.Join(ev, ", "), w-6, "     ")...)
		}
		if i == m.vSel {
			selBot = len(body)
		}
	}
	if len(f.verdicts) == 0 {
		body = append(body, " the scenario declares no assertions")
	}
	avail := max(h-2, 1)
	off := 0
	if selBot > avail {
		off = min(selTop, selBot-avail)
	}
	out := []string{titleLine(c, title, w)}
	out = append(out, body[min(off, len(body)):]...)
	out = padLines(out, w, h-1)
	return append(out, m.st.dim.Render(fit(" j/k select · enter go to its evidence · v or esc close", w)))
}

// wrapText breaks s into lines of at most w cells after indent.
func wrapText(s string, w int, indent string) []string {
	w = max(w, 8)
	var out []string
	line := ""
	for _, word := range strings.Fields(s) {
		for len([]rune(word)) > w {
			if line != "" {
				out = append(out, indent+line)
				line = ""
			}
			r := []rune(word)
			out = append(out, indent+string(r[:w]))
			word = string(r[w:])
		}
		switch {
		case line == "":
			line = word
		case len([]rune(line))+1+len([]rune(word)) > w:
			out = append(out, indent+line)
			line = word
		default:
			line += " " + word
		}
	}
	if line != "" {
		out = append(out, indent+line)
	}
	return out
}
