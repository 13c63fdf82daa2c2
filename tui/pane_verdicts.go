package tui

import (
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/detsim/detsim/bundle/verdict"
	"github.com/detsim/detsim/tui/screen"
)

// The verdicts list (v, drawn by package screen): j/k select a verdict,
// enter goes to the step that emitted the selected verdict's evidence
// record.

// verdictsKey is a list overlay's key handling, alike in shape to helpKey's
// and chainKey's: each moves its own selection over its own list and opens
// what its list holds.
func (m Model) verdictsKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	km := m.keys
	vs := m.frame().Verdicts()
	n := len(vs)
	switch {
	case key.Matches(k, km.Interrupt, km.Verdicts):
		m.overlay = screen.OverlayNone
	case key.Matches(k, km.Up):
		m.vSel = screen.Clamp(m.vSel-1, 0, n-1)
	case key.Matches(k, km.Down):
		m.vSel = screen.Clamp(m.vSel+1, 0, n-1)
	case key.Matches(k, km.Open):
		if m.vSel >= n {
			return m, nil
		}
		line := evidenceLine(vs[m.vSel])
		if line < 1 {
			m.setError(vs[m.vSel].Name + ": no evidence record yet")
			return m, nil
		}
		m.overlay = screen.OverlayNone
		return m.start(&job{kind: jobGotoRecord, target: line}, "going to the evidence, record "+screen.FmtInt(line)+"…")
	case key.Matches(k, km.Help):
		m.overlay, m.helpScroll = screen.OverlayHelp, 0
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
