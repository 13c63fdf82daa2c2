package screen

import (
	"strings"

	"github.com/detsim/detsim/engine"
	"github.com/detsim/detsim/hosts/pane"
)

// hostPane is the selected host's full view, as its kind draws it
// (pane.Drawer: SWIM's incarnation, health, probe, members and
// accusers), or its summary and snapshot tree. Focused, j/k move a cursor
// (▶) over its lines: w on a line about a member goes to the record that
// brought it, W explains it.
type hostPane struct {
	size
	scroller
	cur int // the line under the cursor
}

// hostLine is one line of the host pane; the lines about a member (an
// accused one, in SWIM's pane) name it, so the cursor on any of them
// selects it, and the query of the record that brought it (`w`).
type hostLine struct {
	text                 string
	member, find, follow string
}

// move puts the cursor delta lines on among n, scrolling to keep it shown.
func (p *hostPane) move(delta, n int) {
	p.cur = Clamp(p.cur+delta, 0, n-1)
	body := max(p.body(), 1)
	if p.cur < p.off {
		p.off = p.cur
	}
	if p.cur >= p.off+body {
		p.off = p.cur - body + 1
	}
	p.off = Clamp(p.off, 0, max(n-body, 0))
}

func (p hostPane) View(c *drawCtx, sel int) []string {
	f := c.f
	if sel < 0 || sel >= len(f.peers) {
		return padLines([]string{titleLine(c, "host", p.w)}, p.w, p.h)
	}
	r := f.Row(sel)
	if r == nil {
		return padLines([]string{titleLine(c, f.peers[sel], p.w), " …"}, p.w, p.h)
	}
	v := r.view
	title := v.ID + " (" + v.Kind + ", " + v.State
	if v.TickHalted || v.RecvHalted {
		title += ", halted"
	}
	if v.Lives > 1 {
		title += ", life " + FmtInt(int64(v.Lives))
	}
	title += hostFault(v)
	title += ")"
	if r.stateChanged {
		title += " *"
	}
	body := p.lines(c, r)
	off := Clamp(p.off, 0, max(len(body)-p.body(), 0))
	out := []string{titleLine(c, title, p.w)}
	for i := min(off, len(body)); i < len(body) && len(out) < p.h; i++ {
		t := body[i].text
		if c.focused && i == p.cur {
			t = c.st.cursor.Render("▶" + strings.TrimPrefix(t, " "))
		}
		out = append(out, t)
	}
	return padLines(out, p.w, p.h)
}

// selected is the line about a member the cursor is on, or the first
// such line when it is on none.
func (p hostPane) selected(body []hostLine) (hostLine, bool) {
	if p.cur >= 0 && p.cur < len(body) && body[p.cur].member != "" {
		return body[p.cur], true
	}
	for _, l := range body {
		if l.member != "" {
			return l, true
		}
	}
	return hostLine{}, false
}

// hostFault says what a host fault (PeerPause, recv_cost_ns) holds up:
// ", paused until T" or ", busy until T", and what waits.
func hostFault(v engine.HostView) string {
	var out string
	switch {
	case v.Paused:
		out = ", paused until " + fmtShort(v.PausedUntil)
	case v.Busy:
		out = ", busy until " + fmtShort(v.BusyUntil)
	}
	if v.Waiting > 0 {
		out += ", " + FmtInt(int64(v.Waiting)) + " waiting"
	}
	if v.Deferred > 0 {
		out += ", " + FmtInt(int64(v.Deferred)) + " timers due"
	}
	return out
}

// lines is the pane's whole body, before scrolling: the kind's own pane
// (pane.Drawer) when it draws one and can read the snapshot,
// else its summary and the snapshot as a tree (pane_kind.go).
func (p hostPane) lines(c *drawCtx, r *HostRow) []hostLine {
	plainLines := func(ss []string) []hostLine {
		out := make([]hostLine, len(ss))
		for i, t := range ss {
			out[i] = hostLine{text: t}
		}
		return out
	}
	if r.view.Snapshot == nil {
		return plainLines([]string{" not started"})
	}
	drawer, ok := r.kind.(pane.Drawer)
	if !ok {
		return plainLines(kindLines(c, r.kind, r, p.w))
	}
	f := c.f
	in := pane.Input{Snapshot: r.view.Snapshot, NowNs: f.now, Peers: f.peers, Width: p.w}
	if r.changed != nil || r.kvChanged != nil {
		in.Before = r.before
	}
	if f.sel == r.idx {
		in.Inspect = f.inspect
	}
	pl := drawer.Pane(in)
	if pl == nil {
		return plainLines(kindLines(c, r.kind, r, p.w))
	}
	var out []hostLine
	for _, l := range pl {
		at := hostLine{member: l.Member, find: l.Find, follow: l.Follow}
		switch {
		case l.JSON != nil:
			if kvs, err := flattenJSON(l.JSON); err == nil {
				out = append(out, plainLines(kvLines(c, kvs, nil, p.w))...)
			}
		case l.Wrap && len(l.Cells) > 0:
			for _, w := range wrapText(l.Cells[0].Text, p.w-l.Indent-1, strings.Repeat(" ", l.Indent)) {
				at.text = c.st.paint(l.Cells[0].Tone, w)
				out = append(out, at)
			}
		default:
			var b strings.Builder
			for _, cl := range l.Cells {
				b.WriteString(c.st.paint(cl.Tone, cl.Text))
			}
			at.text = b.String()
			out = append(out, at)
		}
	}
	return out
}

// kvLines lays key/values out in as many columns as fit w.
func kvLines(c *drawCtx, kvs []kv, changed []bool, w int) []string {
	kw, vw := 1, 1
	for _, e := range kvs {
		kw = max(kw, len(e.k))
		vw = max(vw, len(e.v))
	}
	kw, vw = min(kw, 28), min(vw, 24)
	cell := 1 + kw + 1 + vw + 2
	cols := max(w/cell, 1)
	var out []string
	var b strings.Builder
	for i, e := range kvs {
		s := fit(e.k, kw) + " " + fit(e.v, vw)
		if changed != nil && changed[i] {
			s = c.st.changed.Render(fit(e.k, kw) + " " + fit(e.v+"*", vw))
		}
		b.WriteString(" " + s + "  ")
		if (i+1)%cols == 0 {
			out = append(out, b.String())
			b.Reset()
		}
	}
	if b.Len() > 0 {
		out = append(out, b.String())
	}
	return out
}
