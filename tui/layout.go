package tui

// slot is a place on screen a pane is drawn into.
type slot int

const (
	slotMatrix slot = iota
	slotHost
	slotQueue
	slotLinks
	slotEvents
	slotRecord
)

// bandLayout is one horizontal strip of the screen: panes side by side,
// separated by one column.
type bandLayout struct {
	h     int
	cells []cellLayout
}

type cellLayout struct {
	slot slot
	w    int
}

// wideWidth is where the three-column layout of the DESIGN sketch
// starts; below it panes stack and the matrix and the event log win.
const wideWidth = 120

// layout sizes every pane for the current screen. It is recomputed on a
// resize and when the record pane opens or closes.
func (m *Model) layout() {
	W, H := max(m.width, 0), max(m.height, 0)
	m.header, m.footer = 2, 2
	if H < 12 {
		m.header, m.footer = 1, 1
	}
	if H < 2 {
		m.header, m.footer = min(H, 1), 0
	}
	main := H - m.header - m.footer
	m.bands = nil
	if main <= 0 || W <= 0 {
		return
	}
	npeers := 0
	if m.sess != nil {
		npeers = len(m.sess.Scenario().Peers)
	} else if m.fr != nil {
		npeers = len(m.fr.peers)
	}
	need := npeers + 2
	nlinks := m.linkTotal()

	// A record opened on a short screen takes the room of the matrix:
	// the log and the record, both readable, beat three cramped panes.
	if W < 40 || main < 8 || m.showRec && main < 16 {
		m.eventsBands(W, main, false)
		m.size()
		return
	}
	topH := clampInt(max(need, main/3), 6, max(main*2/5, 6))
	rest := main - topH
	if W >= wideWidth {
		w1 := min(W*45/100, m.matrixWidth(24))
		w3 := max(W*25/100, (W-w1-2)/2)
		m.bands = append(m.bands, bandLayout{h: topH, cells: []cellLayout{{slotMatrix, w1}, {slotHost, W - w1 - w3 - 2}, {slotQueue, w3}}})
		linksH := 0
		if rest >= 12 {
			cols := max(W/linkCell, 1)
			linksH = clampInt((nlinks+cols-1)/cols+1, 3, max(rest/4, 3))
			m.bands = append(m.bands, bandLayout{h: linksH, cells: []cellLayout{{slotLinks, W}}})
		}
		m.eventsBands(W, rest-linksH, true)
	} else {
		if W >= 60 {
			w1 := min(W*55/100, m.matrixWidth(30))
			m.bands = append(m.bands, bandLayout{h: topH, cells: []cellLayout{{slotMatrix, w1}, {slotHost, W - w1 - 1}}})
		} else {
			m.bands = append(m.bands, bandLayout{h: topH, cells: []cellLayout{{slotMatrix, W}}})
		}
		midH := 0
		if rest >= 10 {
			midH = 4
			wq := W * 45 / 100
			m.bands = append(m.bands, bandLayout{h: midH, cells: []cellLayout{{slotQueue, wq}, {slotLinks, W - wq - 1}}})
		}
		m.eventsBands(W, rest-midH, false)
	}
	m.size()
}

// matrixWidth is as wide as the membership matrix needs to show every
// column (at least `least` columns), so a few hosts leave the room to the host and
// queue panes; the host list of other kinds (key/values) takes all it is
// given.
func (m *Model) matrixWidth(least int) int {
	if m.fr == nil || !m.fr.swim {
		return 1 << 30
	}
	lw := labelWidth(m.fr.peers)
	cw := max(min(lw, 8), 4) + 2
	return max(least, 1+lw+1+len(m.fr.peers)*cw+1)
}

// eventsBands places the event log, and the record pane beside it (wide)
// or below it (narrow) when open.
func (m *Model) eventsBands(W, h int, wide bool) {
	if h <= 0 {
		return
	}
	switch {
	case !m.showRec:
		m.bands = append(m.bands, bandLayout{h: h, cells: []cellLayout{{slotEvents, W}}})
	case wide:
		wl := W * 55 / 100
		m.bands = append(m.bands, bandLayout{h: h, cells: []cellLayout{{slotEvents, wl}, {slotRecord, W - wl - 1}}})
	case h >= 6:
		top := max(h/2, 3)
		m.bands = append(m.bands,
			bandLayout{h: top, cells: []cellLayout{{slotEvents, W}}},
			bandLayout{h: h - top, cells: []cellLayout{{slotRecord, W}}})
	default:
		m.bands = append(m.bands, bandLayout{h: h, cells: []cellLayout{{slotRecord, W}}})
	}
}

// size hands each pane its rectangle; panes not on screen get zero.
func (m *Model) size() {
	m.matrix.SetSize(0, 0)
	m.host.SetSize(0, 0)
	m.queue.SetSize(0, 0)
	m.links.SetSize(0, 0)
	m.events.SetSize(0, 0)
	m.record.SetSize(0, 0)
	for _, b := range m.bands {
		for _, c := range b.cells {
			switch c.slot {
			case slotMatrix:
				m.matrix.SetSize(c.w, b.h)
			case slotHost:
				m.host.SetSize(c.w, b.h)
			case slotQueue:
				m.queue.SetSize(c.w, b.h)
			case slotLinks:
				m.links.SetSize(c.w, b.h)
			case slotEvents:
				m.events.SetSize(c.w, b.h)
			case slotRecord:
				m.record.SetSize(c.w, b.h)
			}
		}
	}
	if shown := m.shownPanes(); len(shown) > 0 {
		ok := false
		for _, p := range shown {
			ok = ok || p == m.focus
		}
		if !ok {
			m.focus = shown[len(shown)-1]
		}
	}
}

// shownPanes lists the focusable panes on screen, in tab order.
func (m *Model) shownPanes() []paneID {
	var out []paneID
	for _, p := range []struct {
		id paneID
		s  size
	}{{paneMatrix, m.matrix.size}, {paneHost, m.host.size}, {paneQueue, m.queue.size}, {paneLinks, m.links.size}, {paneEvents, m.events.size}, {paneRecord, m.record.size}} {
		if p.s.w > 0 && p.s.h > 0 {
			out = append(out, p.id)
		}
	}
	return out
}
