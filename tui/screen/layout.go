package screen

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

// paneSlot is where each pane is drawn.
var paneSlot = [PaneCount]slot{PaneMatrix: slotMatrix, PaneHost: slotHost, PaneQueue: slotQueue,
	PaneLinks: slotLinks, PaneEvents: slotEvents, PaneRecord: slotRecord}

type cellLayout struct {
	slot slot
	w    int
}

// wideWidth is where the three-column layout of the DESIGN sketch
// starts; below it panes stack and the matrix and the event log win.
const wideWidth = 120

// layout sizes every pane for the current screen. It is recomputed on a
// resize and when the record pane opens or closes.
func (scr *Screen) layout() {
	W, H := max(scr.width, 0), max(scr.height, 0)
	scr.header, scr.footer = 2, 2
	if H < 12 {
		scr.header, scr.footer = 1, 1
	}
	if H < 2 {
		scr.header, scr.footer = min(H, 1), 0
	}
	main := H - scr.header - scr.footer
	scr.bands = nil
	if main <= 0 || W <= 0 {
		return
	}
	need := scr.npeers + 2
	nlinks := scr.linkTotal()

	// A record opened on a short screen takes the room of the matrix:
	// the log and the record, both readable, beat three cramped panes.
	if W < 40 || main < 8 || scr.showRec && main < 16 {
		scr.eventsBands(W, main, false)
		scr.size()
		return
	}
	topH := Clamp(max(need, main/3), 6, max(main*2/5, 6))
	rest := main - topH
	if W >= wideWidth {
		w1 := min(W*45/100, scr.matrixWidth(24))
		w3 := max(W*25/100, (W-w1-2)/2)
		scr.bands = append(scr.bands, bandLayout{h: topH, cells: []cellLayout{{slotMatrix, w1}, {slotHost, W - w1 - w3 - 2}, {slotQueue, w3}}})
		linksH := 0
		if rest >= 12 {
			cols := max(W/linkCell, 1)
			linksH = Clamp((nlinks+cols-1)/cols+1, 3, max(rest/4, 3))
			scr.bands = append(scr.bands, bandLayout{h: linksH, cells: []cellLayout{{slotLinks, W}}})
		}
		scr.eventsBands(W, rest-linksH, true)
	} else {
		if W >= 60 {
			w1 := min(W*55/100, scr.matrixWidth(30))
			scr.bands = append(scr.bands, bandLayout{h: topH, cells: []cellLayout{{slotMatrix, w1}, {slotHost, W - w1 - 1}}})
		} else {
			scr.bands = append(scr.bands, bandLayout{h: topH, cells: []cellLayout{{slotMatrix, W}}})
		}
		midH := 0
		if rest >= 10 {
			midH = 4
			wq := W * 45 / 100
			scr.bands = append(scr.bands, bandLayout{h: midH, cells: []cellLayout{{slotQueue, wq}, {slotLinks, W - wq - 1}}})
		}
		scr.eventsBands(W, rest-midH, false)
	}
	scr.size()
}

// matrixWidth is as wide as the membership matrix needs to show every
// column (at least `least` columns), so a few hosts leave the room to the host and
// queue panes; the host list of other kinds (key/values) takes all it is
// given.
func (scr *Screen) matrixWidth(least int) int {
	if scr.fr == nil || scr.fr.views == "" {
		return 1 << 30
	}
	lw := labelWidth(scr.fr.peers)
	cw := max(min(lw, 8), 4) + 2
	return max(least, 1+lw+1+len(scr.fr.peers)*cw+1)
}

// eventsBands places the event log, and the record pane beside it (wide)
// or below it (narrow) when open.
func (scr *Screen) eventsBands(W, h int, wide bool) {
	if h <= 0 {
		return
	}
	switch {
	case !scr.showRec:
		scr.bands = append(scr.bands, bandLayout{h: h, cells: []cellLayout{{slotEvents, W}}})
	case wide:
		wl := W * 55 / 100
		scr.bands = append(scr.bands, bandLayout{h: h, cells: []cellLayout{{slotEvents, wl}, {slotRecord, W - wl - 1}}})
	case h >= 6:
		top := max(h/2, 3)
		scr.bands = append(scr.bands,
			bandLayout{h: top, cells: []cellLayout{{slotEvents, W}}},
			bandLayout{h: h - top, cells: []cellLayout{{slotRecord, W}}})
	default:
		scr.bands = append(scr.bands, bandLayout{h: h, cells: []cellLayout{{slotRecord, W}}})
	}
}

// paneSize is the rectangle of the pane drawn in slot s.
func (scr *Screen) paneSize(s slot) *size {
	switch s {
	case slotMatrix:
		return &scr.matrix.size
	case slotHost:
		return &scr.host.size
	case slotQueue:
		return &scr.queue.size
	case slotLinks:
		return &scr.links.size
	case slotEvents:
		return &scr.events.size
	}
	return &scr.record.size
}

// size hands each pane its rectangle; panes not on screen get zero.
func (scr *Screen) size() {
	for p := range PaneCount {
		scr.paneSize(paneSlot[p]).SetSize(0, 0)
	}
	for _, b := range scr.bands {
		for _, c := range b.cells {
			scr.paneSize(c.slot).SetSize(c.w, b.h)
		}
	}
	if shown := scr.shownPanes(); len(shown) > 0 {
		ok := false
		for _, p := range shown {
			ok = ok || p == scr.focus
		}
		if !ok {
			scr.focus = shown[len(shown)-1]
		}
	}
}

// shownPanes lists the focusable panes on screen, in tab order.
func (scr *Screen) shownPanes() []PaneID {
	var out []PaneID
	for p := range PaneCount {
		if sz := scr.paneSize(paneSlot[p]); sz.w > 0 && sz.h > 0 {
			out = append(out, p)
		}
	}
	return out
}
