package screen

import (
	"strconv"
	"strings"
)

// matrixPane is the views matrix (SWIM's membership): one row per
// observer, one column per subject, each cell the observer's view of the
// subject (its state's letter and version, as the kind declares its
// views). With a hundred hosts it draws only the rows and columns that
// fit around the selected host. For kinds without views it is the host
// list.
type matrixPane struct {
	size
	sel    int // selected host (peer index)
	rowOff int // first row drawn
}

// maxLabel bounds the observer column.
const maxLabel = 10

// move changes the selected host.
func (p *matrixPane) move(delta, npeers int) {
	p.sel = Clamp(p.sel+delta, 0, npeers-1)
}

// visibleRows is how many host rows fit.
func (p matrixPane) visibleRows(swim bool) int {
	if swim {
		return max(p.h-2, 0)
	}
	return p.body()
}

// follow scrolls so the selected row is drawn.
func (p *matrixPane) follow(npeers int, swim bool) {
	vis := max(p.visibleRows(swim), 1)
	if p.sel < p.rowOff {
		p.rowOff = p.sel
	}
	if p.sel >= p.rowOff+vis {
		p.rowOff = p.sel - vis + 1
	}
	p.rowOff = Clamp(p.rowOff, 0, max(npeers-vis, 0))
}

func labelWidth(peers []string) int {
	w := 1
	for _, id := range peers {
		w = max(w, len(id))
	}
	return min(w, maxLabel)
}

func (p matrixPane) View(c *drawCtx) []string {
	f := c.f
	n := len(f.peers)
	title := f.views + " (observer → subject)"
	if p.w < 60 {
		title = f.views
	}
	if f.views == "" {
		title = "hosts"
	}
	lines := []string{}
	vis := p.visibleRows(f.views != "")
	p.follow(n, f.views != "")
	lo, hi := p.rowOff, min(p.rowOff+vis, n)
	if n > vis && vis > 0 {
		title += "  rows " + FmtInt(int64(lo+1)) + "-" + FmtInt(int64(hi)) + "/" + FmtInt(int64(n))
	}
	lw := labelWidth(f.peers)
	if f.views == "" {
		lines = append(lines, titleLine(c, title, p.w))
		for i := lo; i < hi; i++ {
			lines = append(lines, p.listRow(c, i, lw))
		}
		return padLines(lines, p.w, p.h)
	}

	cw := max(min(lw, 8), 4) + 2 // "S 12*" plus a gap
	ncols := max((p.w-lw-2)/cw, 1)
	colOff := 0
	if n > ncols {
		colOff = Clamp(p.sel-ncols/2, 0, n-ncols)
		title += "  cols " + FmtInt(int64(colOff+1)) + "-" + FmtInt(int64(min(colOff+ncols, n))) + "/" + FmtInt(int64(n))
	}
	lines = append(lines, titleLine(c, title, p.w))

	var hdr strings.Builder
	hdr.WriteString(strings.Repeat(" ", lw+2))
	for j := colOff; j < min(colOff+ncols, n); j++ {
		id := fit(clip(f.peers[j], cw-1), cw)
		if j == p.sel {
			id = c.st.bold.Render(id)
		}
		hdr.WriteString(id)
	}
	lines = append(lines, hdr.String())

	for i := lo; i < hi; i++ {
		var b strings.Builder
		marker := " "
		if i == p.sel {
			marker = "▶"
		}
		r := f.Row(i)
		label := fit(clip(f.peers[i], lw), lw)
		if r != nil && r.view.State != "running" {
			label = c.st.dim.Render(fit(clip(f.peers[i], lw-1)+"×", lw))
		} else if i == p.sel {
			label = c.st.bold.Render(label)
		}
		b.WriteString(marker + label + " ")
		for j := colOff; j < min(colOff+ncols, n); j++ {
			b.WriteString(matrixCell(c, r, i, j, cw))
		}
		lines = append(lines, b.String())
	}
	return padLines(lines, p.w, p.h)
}

// matrixCell draws observer i's view of subject j in cw cells.
func matrixCell(c *drawCtx, r *HostRow, i, j, cw int) string {
	if r == nil {
		return fit("…", cw)
	}
	if r.cells == nil { // never started, or of a kind without views
		return strings.Repeat(" ", cw)
	}
	if i == j {
		return fit(c.st.self.Render("·"), cw)
	}
	v := r.cells[j]
	if v.state == 0 {
		return fit(c.st.unknown.Render("-"), cw)
	}
	txt := string(v.state) + " " + strconv.FormatUint(v.inc, 10)
	changed := r.changed != nil && r.changed[j]
	if changed {
		txt += "*"
	}
	txt = clip(txt, cw-1)
	st := c.st.toneStyle(v.tone)
	if changed {
		st = st.Inherit(c.st.changed)
	}
	if r.view.State != "running" {
		st = c.st.dim
	}
	return fit(st.Render(txt), cw)
}

// listRow is one line of the host list for kinds without views.
func (p matrixPane) listRow(c *drawCtx, i, lw int) string {
	f := c.f
	marker := " "
	if i == p.sel {
		marker = "▶"
	}
	r := f.Row(i)
	label := fit(clip(f.peers[i], lw), lw)
	if i == p.sel {
		label = c.st.bold.Render(label)
	}
	if r == nil {
		return marker + label + " …"
	}
	state := r.view.State
	if r.view.TickHalted || r.view.RecvHalted {
		state += ",halted"
	}
	if r.stateChanged {
		state = c.st.changed.Render(state + "*")
	} else if r.view.State != "running" {
		state = c.st.dim.Render(state)
	}
	var b strings.Builder
	b.WriteString(marker + label + " " + fit(r.view.Kind, 5) + " " + fit(state, 8))
	for k, e := range r.kv {
		if e.k == "id" {
			continue
		}
		s := " " + e.k + "=" + e.v
		if r.kvChanged != nil && r.kvChanged[k] {
			s = " " + c.st.changed.Render(e.k+"="+e.v+"*")
		}
		b.WriteString(s)
	}
	return b.String()
}

// titleLine draws a pane's title rule.
func titleLine(c *drawCtx, title string, w int) string {
	r := rule(title, w, c.focused)
	if c.focused {
		return c.st.focus.Render(r)
	}
	return c.st.title.Render(r)
}
