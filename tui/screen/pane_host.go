package screen

import (
	"slices"
	"strconv"
	"strings"

	"github.com/detsim/detsim/engine"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/natsort"
)

// hostPane is the selected host's full view: for SWIM its incarnation,
// local health, broadcast queue, probe and every member with suspicion
// deadlines and, for a suspect or dead one, its accuser in full; then
// the broadcast queue's entries; for any other kind its snapshot as
// key/values. Focused, j/k move a cursor (▶) over its lines: w on a
// suspect or dead member goes to the record where the accusation arrived.
type hostPane struct {
	size
	scroller
	cur   int             // the line under the cursor
	kinds *hosts.Registry // for each kind's Summary (pane_kind.go)
}

// hostLine is one line of the host pane; an accused member's lines name
// it, so the cursor on any of them selects it.
type hostLine struct {
	text   string
	member string // a suspect or dead member
	state  string
	inc    uint64
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

// selected is the accused member the cursor is on, or the first accused
// member when it is on none.
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

// lines is the pane's whole body, before scrolling.
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
	if r.swim == nil {
		return plainLines(kindLines(c, p.kinds, r, p.w))
	}
	s := r.swim
	f := c.f
	var why *whyView
	if f.why != nil && f.why.idx == r.idx {
		why = f.why
	}
	out := plainLines([]string{
		" inc " + FmtUint(s.Incarnation) +
			"  health " + FmtInt(s.Health) + "/" + FmtInt(s.HealthMax) +
			gossipMode(s.Gossip) + joined(s.Joined),
		" bq " + FmtInt(s.BroadcastQueue.Depth) + " (" + FmtBytes(s.BroadcastQueue.Bytes) + oversized(s.BroadcastQueue.Oversized) + ")" +
			"  probe r" + FmtUint(s.Probe.Round) + " " + FmtInt(s.Probe.Position) + "/" + FmtInt(s.Probe.RoundLength) +
			probeTarget(s) + "  next " + fmtShort(s.Probe.NextProbeNs),
	})
	idw := labelWidth(f.peers)
	for _, m := range naturalMembers(s.Members) {
		st := stateLetter(m.State)
		line := " " + fit(clip(m.ID, idw), idw) + " " + c.st.stateStyle(st).Render(fit(m.State, 7)) + " inc " + FmtUint(m.Incarnation)
		if m.SuspicionDeadlineNs != nil {
			left := *m.SuspicionDeadlineNs - f.now
			if left > 0 {
				line += "  dead in " + fmtDur(left)
			} else {
				line += "  deadline passed"
			}
			line += "  conf " + FmtInt(m.Confirmations)
		}
		if i, ok := f.order.position(m.ID); ok && r.changed != nil && r.changed[i] {
			line = c.st.changed.Render(line + " *")
		}
		hl := hostLine{text: line}
		if m.State == "suspect" || m.State == "dead" {
			hl.member, hl.state, hl.inc = m.ID, m.State, m.Incarnation
		}
		out = append(out, hl)
		if hl.member == "" {
			continue
		}
		// The accuser in full, wrapped, never cut: the key fact of a flap.
		by, ok := why.accuser(m.ID)
		var why string
		switch {
		case ok && by != "":
			why = "accused by " + by
		case ok:
			why = "accuser unknown"
		}
		var conf []string
		for _, a := range m.Accusers {
			if a != by {
				conf = append(conf, a)
			}
		}
		if len(conf) > 0 {
			if why != "" {
				why += "; "
			}
			why += "confirmed by " + strings.Join(conf, ", ")
		}
		if why != "" {
			for _, w := range wrapText(why, p.w-5, "    ") {
				out = append(out, hostLine{text: c.st.dim.Render(w), member: hl.member, state: hl.state, inc: hl.inc})
			}
		}
	}
	if why != nil {
		q := &why.Queue
		out = append(out, hostLine{text: c.st.dim.Render(" broadcast queue (" + FmtInt(int64(q.Total)) + ", " + FmtBytes(s.BroadcastQueue.Bytes) + "), next out first")})
		for _, e := range q.Entries {
			line := "  " + fit(clip(e.Member, idw), idw) + " " + c.st.stateStyle(stateLetter(e.State)).Render(fit(e.State, 7)) + " inc " + FmtUint(e.Incarnation)
			if e.Accuser != "" {
				line += " by " + e.Accuser
			}
			line += "  tx " + FmtInt(int64(e.Transmits)) + "  " + FmtBytes(int64(e.Bytes))
			out = append(out, hostLine{text: line})
		}
		if more := q.Total - len(q.Entries); more > 0 {
			out = append(out, hostLine{text: "  … " + FmtInt(int64(more)) + " more (the first " + FmtInt(int64(len(q.Entries))) + " listed)"})
		}
	}
	if len(s.Counters) > 0 {
		if kvs, err := flattenJSON(s.Counters); err == nil {
			out = append(out, hostLine{text: c.st.dim.Render(" counters")})
			out = append(out, plainLines(kvLines(c, kvs, nil, p.w))...)
		}
	}
	return out
}

// naturalMembers is members in the order the screen lists hosts, the
// way people count them (node2 before node10, internal/natsort), as the
// matrix does; the snapshot lists them in byte order. The row's slice is
// shared between frames, so it is sorted in a copy.
func naturalMembers(members []swimMember) []swimMember {
	return slices.SortedStableFunc(slices.Values(members), func(a, b swimMember) int { return natsort.Compare(a.ID, b.ID) })
}

func oversized(n int64) string {
	if n == 0 {
		return ""
	}
	return ", " + FmtInt(n) + " oversized"
}

func gossipMode(g string) string {
	if g == "" {
		return ""
	}
	return "  " + g
}

func joined(j bool) string {
	if j {
		return "  joined"
	}
	return "  joining"
}

func probeTarget(s *swimSnap) string {
	if s.Probe.Target == "" {
		return ""
	}
	return " → " + s.Probe.Target + " #" + strconv.FormatUint(s.Probe.Seq, 10)
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
