package tui

import (
	"strconv"
	"strings"

	"github.com/detsim/detsim/engine"
	"github.com/detsim/detsim/hosts"
)

// hostPane is the selected host's full view: for SWIM its incarnation,
// local health, broadcast queue, probe and every member with suspicion
// deadlines; for any other kind its snapshot as key/values.
type hostPane struct {
	size
	scroller
	kinds *hosts.Registry // for each kind's Summary (pane_kind.go)
}

func (p hostPane) View(c *drawCtx, sel int) []string {
	f := c.f
	if sel < 0 || sel >= len(f.peers) {
		return padLines([]string{titleLine(c, "host", p.w)}, p.w, p.h)
	}
	r := f.row(sel)
	if r == nil {
		return padLines([]string{titleLine(c, f.peers[sel], p.w), " …"}, p.w, p.h)
	}
	v := r.view
	title := v.ID + " (" + v.Kind + ", " + v.State
	if v.TickHalted || v.RecvHalted {
		title += ", halted"
	}
	if v.Lives > 1 {
		title += ", life " + strconv.Itoa(v.Lives)
	}
	title += hostFault(v)
	title += ")"
	if r.stateChanged {
		title += " *"
	}
	body := p.lines(c, r)
	off := clampInt(p.off, 0, max(len(body)-p.body(), 0))
	out := append([]string{titleLine(c, title, p.w)}, body[min(off, len(body)):]...)
	return padLines(out, p.w, p.h)
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
		out += ", " + strconv.Itoa(v.Waiting) + " waiting"
	}
	if v.Deferred > 0 {
		out += ", " + strconv.Itoa(v.Deferred) + " timers due"
	}
	return out
}

// lines is the pane's whole body, before scrolling.
func (p hostPane) lines(c *drawCtx, r *hostRow) []string {
	if r.view.Snapshot == nil {
		return []string{" not started"}
	}
	if r.swim == nil {
		return kindLines(c, p.kinds, r, p.w)
	}
	s := r.swim
	f := c.f
	out := []string{
		" inc " + strconv.FormatUint(s.Incarnation, 10) +
			"  health " + strconv.FormatInt(s.Health, 10) + "/" + strconv.FormatInt(s.HealthMax, 10) +
			gossipMode(s.Gossip) + joined(s.Joined),
		" bq " + strconv.FormatInt(s.BroadcastQueue.Depth, 10) + " (" + fmtBytes(s.BroadcastQueue.Bytes) + oversized(s.BroadcastQueue.Oversized) + ")" +
			"  probe r" + strconv.FormatUint(s.Probe.Round, 10) + " " + strconv.FormatInt(s.Probe.Position, 10) + "/" + strconv.FormatInt(s.Probe.RoundLength, 10) +
			probeTarget(s) + "  next " + fmtShort(s.Probe.NextProbeNs),
	}
	idw := labelWidth(f.peers)
	for _, m := range s.Members {
		st := stateLetter(m.State)
		line := " " + fit(clip(m.ID, idw), idw) + " " + c.st.stateStyle(st).Render(fit(m.State, 7)) + " inc " + strconv.FormatUint(m.Incarnation, 10)
		if m.SuspicionDeadlineNs != nil {
			left := *m.SuspicionDeadlineNs - f.now
			if left > 0 {
				line += "  dead in " + fmtDur(left)
			} else {
				line += "  deadline passed"
			}
			line += "  conf " + strconv.FormatInt(m.Confirmations, 10)
			if len(m.Accusers) > 0 {
				line += " [" + strings.Join(m.Accusers, ",") + "]"
			}
		}
		if i, ok := indexOf(f.peers, m.ID); ok && r.changed != nil && r.changed[i] {
			line = c.st.changed.Render(line + " *")
		}
		out = append(out, line)
	}
	if len(s.Counters) > 0 {
		if kvs, err := flattenJSON(s.Counters); err == nil {
			out = append(out, c.st.dim.Render(" counters"))
			out = append(out, kvLines(c, kvs, nil, p.w)...)
		}
	}
	return out
}

func oversized(n int64) string {
	if n == 0 {
		return ""
	}
	return ", " + strconv.FormatInt(n, 10) + " oversized"
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

func indexOf(ids []string, id string) (int, bool) {
	// ids are sorted: binary search.
	lo, hi := 0, len(ids)
	for lo < hi {
		m := (lo + hi) / 2
		if ids[m] < id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(ids) && ids[lo] == id
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
