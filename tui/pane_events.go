package tui

import (
	"strconv"
	"strings"

	"github.com/detsim/detsim/debugger"
)

// eventsPane is the event log: one record per line ending at the current
// step, a cursor (▶) and * on the records the last step emitted. With the
// cursor on the newest record it follows the run; moved up, it stays on
// its record.
type eventsPane struct {
	size
	cursor int64 // record under the cursor; 0 follows the newest
	top    int64 // first record drawn when not following
}

// at is the record under the cursor in frame f.
func (p eventsPane) at(f *frame) int64 {
	if p.cursor <= 0 || p.cursor > f.records {
		return f.records
	}
	return p.cursor
}

// move shifts the cursor by delta records within what the cache can hold.
func (p *eventsPane) move(delta int64, f *frame) {
	if f.records == 0 {
		return
	}
	cur := p.at(f) + delta
	lo := max(f.records-debugger.RecordCache+1, 1)
	cur = min(max(cur, lo), f.records)
	if cur == f.records {
		p.cursor, p.top = 0, 0
		return
	}
	p.cursor = cur
	body := int64(max(p.body(), 1))
	if p.top == 0 {
		p.top = max(f.records-body+1, 1)
	}
	if cur < p.top {
		p.top = cur
	}
	if cur >= p.top+body {
		p.top = cur - body + 1
	}
}

// window is the first and last record drawn.
func (p eventsPane) window(f *frame) (lo, hi int64) {
	body := int64(max(p.body(), 1))
	cur := p.at(f)
	top := p.top
	if p.cursor <= 0 || top <= 0 {
		top = f.records - body + 1
	}
	if cur < top {
		top = cur
	}
	if cur >= top+body {
		top = cur - body + 1
	}
	top = max(top, 1)
	return top, min(top+body-1, f.records)
}

func (p eventsPane) View(c *drawCtx) []string {
	f := c.f
	title := "events (no records yet)"
	if f.records > 0 {
		title = "events (record " + fmtInt(p.at(f)) + " of " + fmtInt(f.records) + ")"
	}
	out := []string{titleLine(c, title, p.w)}
	lo, hi := p.window(f)
	lw := labelWidth(f.peers)
	cur := p.at(f)
	for n := lo; n <= hi && f.records > 0; n++ {
		out = append(out, eventLine(c, f, n, n == cur, lw))
	}
	return padLines(out, p.w, p.h)
}

// timeCol right-aligns a time to the width of the run's longest time.
func timeCol(f *frame, at int64) string {
	t := fmtShort(at)
	w := len(fmtShort(max(f.duration, f.now)))
	if len(t) < w {
		t = strings.Repeat(" ", w-len(t)) + t
	}
	return t
}

// logAt returns record n from the frame's window.
func (f *frame) logAt(n int64) *logLine {
	i := n - f.logFrom
	if i < 0 || i >= int64(len(f.log)) {
		return nil
	}
	return &f.log[i]
}

func eventLine(c *drawCtx, f *frame, n int64, isCursor bool, lw int) string {
	marker := " "
	if isCursor {
		marker = "▶"
	}
	l := f.logAt(n)
	if l == nil || l.b == nil {
		return marker + "  … record " + fmtInt(n) + " not in the cache"
	}
	ev, err := parseEvent(l.b)
	if err != nil {
		return marker + "  " + string(l.b)
	}
	fresh := " "
	if l.step == f.index && f.index > 0 {
		fresh = "*"
	}
	host := ev.host
	if host == "" {
		host = "-"
	}
	s := marker + fresh + " " + timeCol(f, ev.at) + " " + fit(clip(host, lw), lw) + " " + fit(ev.typ, 18) + " " + ev.summary()
	switch {
	case isCursor:
		return c.st.cursor.Render(s)
	case fresh == "*":
		return c.st.bold.Render(s)
	}
	return s
}

// recordPane shows the record under the cursor in full.
type recordPane struct {
	size
	scroller
}

func (p recordPane) View(c *drawCtx, n int64) []string {
	f := c.f
	l := f.logAt(n)
	if n < 1 || l == nil || l.b == nil {
		return padLines([]string{titleLine(c, "record", p.w), " (no record under the cursor)"}, p.w, p.h)
	}
	title := "record " + fmtInt(n) + " · events.ndjson#L" + strconv.FormatInt(n, 10)
	if l.step >= 0 {
		title += " · step " + fmtInt(l.step)
	}
	body := strings.Split(prettyJSON(l.b), "\n")
	off := clampInt(p.off, 0, max(len(body)-p.body(), 0))
	out := []string{titleLine(c, title, p.w)}
	for _, s := range body[off:] {
		out = append(out, " "+s)
	}
	return padLines(out, p.w, p.h)
}
