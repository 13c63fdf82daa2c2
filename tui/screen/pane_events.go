package screen

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
func (p eventsPane) at(f *Frame) int64 {
	if p.cursor <= 0 || p.cursor > f.records {
		return f.records
	}
	return p.cursor
}

// move shifts the cursor by delta records within what the cache can hold
// (with a filter, by delta matching records among those the frame holds).
// It reports whether a filter ran out of matches among them before
// moving delta: the caller then looks beyond the window.
func (p *eventsPane) move(delta int64, f *Frame, filter *debugger.Query) (short bool) {
	if f.records == 0 {
		return filter != nil && delta != 0
	}
	cur := p.at(f)
	if filter != nil && delta != 0 {
		step := int64(1)
		if delta < 0 {
			step = -1
		}
		for k := delta; k != 0; k -= step {
			n := cur + step
			for ; n >= f.logFrom && n <= f.records; n += step {
				if l := f.LogAt(n); l != nil && l.Bytes != nil && filter.Match(l.Bytes, l.Step, l.At) {
					break
				}
			}
			if n < f.logFrom || n > f.records {
				short = true
				break
			}
			cur = n
		}
		delta = 0
	}
	cur += delta
	lo := max(f.records-debugger.RecordCache+1, 1)
	cur = min(max(cur, lo), f.records)
	if cur == f.records {
		p.cursor, p.top = 0, 0
		return short
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
	return short
}

// window is the first and last record drawn.
func (p eventsPane) window(f *Frame) (lo, hi int64) {
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

func (p eventsPane) View(c *drawCtx, filter *debugger.Query) []string {
	f := c.f
	title := "events (no records yet)"
	if f.records > 0 {
		title = "events (record " + FmtInt(p.at(f)) + " of " + FmtInt(f.records)
		if p.cursor > 0 {
			title += ", scrolled: G follows"
		}
		title += ")"
	}
	lw := labelWidth(f.peers)
	cur := p.at(f)
	if filter != nil {
		return p.filteredView(c, filter, title, lw, cur)
	}
	out := []string{titleLine(c, title, p.w)}
	lo, hi := p.window(f)
	for n := lo; n <= hi && f.records > 0; n++ {
		out = append(out, eventLine(c, f, n, n == cur, lw))
	}
	return padLines(out, p.w, p.h)
}

// filteredView draws only the records of the frame's window that meet
// filter, the cursor's among them, ending at the cursor. The title
// counts the records that meet it: the cursor's is drawn whether or not
// it does, and counted only when it does (issue 33).
func (p eventsPane) filteredView(c *drawCtx, filter *debugger.Query, title string, lw int, cur int64) []string {
	f := c.f
	var match []int64
	meet := 0
	for i := range f.log {
		l := &f.log[i]
		if l.Bytes == nil {
			continue
		}
		ok := filter.Match(l.Bytes, l.Step, l.At)
		if ok {
			meet++
		}
		if ok || l.N == cur {
			match = append(match, l.N)
		}
	}
	title += " filter " + filter.String() + ": " + FmtInt(int64(meet)) + " of " + FmtInt(int64(len(f.log))) + " held"
	out := []string{titleLine(c, title, p.w)}
	body := max(p.body(), 1)
	end := len(match)
	for i, n := range match {
		if n == cur {
			end = i + 1
		}
	}
	for _, n := range match[max(end-body, 0):end] {
		out = append(out, eventLine(c, f, n, n == cur, lw))
	}
	if len(match) == 0 {
		out = append(out, " (no record in the window meets the filter; F changes it)")
	}
	return padLines(out, p.w, p.h)
}

// timeCol right-aligns a time to the width of the run's longest time.
func timeCol(f *Frame, at int64) string {
	t := fmtShort(at)
	w := len(fmtShort(max(f.duration, f.now)))
	if len(t) < w {
		t = strings.Repeat(" ", w-len(t)) + t
	}
	return t
}

// LogAt returns record n from the frame's window, nil outside it.
func (f *Frame) LogAt(n int64) *LogLine {
	i := n - f.logFrom
	if i < 0 || i >= int64(len(f.log)) {
		return nil
	}
	return &f.log[i]
}

func eventLine(c *drawCtx, f *Frame, n int64, isCursor bool, lw int) string {
	marker := " "
	if isCursor {
		marker = "▶"
	}
	l := f.LogAt(n)
	if l == nil || l.Bytes == nil {
		return marker + "  … record " + FmtInt(n) + " not in the cache"
	}
	ev, err := ParseEvent(l.Bytes)
	if err != nil {
		return marker + "  " + string(l.Bytes)
	}
	fresh := " "
	if l.Step == f.index && f.index > 0 {
		fresh = "*"
	}
	host := ev.Host
	if host == "" {
		host = "-"
	}
	s := marker + fresh + " " + timeCol(f, ev.At) + " " + fit(clip(host, lw), lw) + " " + fit(ev.Type, 18) + " " + ev.summary(f.kinds)
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
	l := f.LogAt(n)
	if n < 1 || l == nil || l.Bytes == nil {
		return padLines([]string{titleLine(c, "record", p.w), " (no record under the cursor)"}, p.w, p.h)
	}
	title := "record " + FmtInt(n) + " · events.ndjson#L" + strconv.FormatInt(n, 10)
	if l.Step >= 0 {
		title += " · step " + FmtInt(l.Step)
	}
	body := p.wrapped(l.Bytes)
	off := Clamp(p.off, 0, max(len(body)-p.body(), 0))
	if len(body) > p.body() {
		title += " · " + FmtInt(int64(off+1)) + "-" + FmtInt(int64(min(off+p.body(), len(body)))) + "/" + FmtInt(int64(len(body))) + " (tab here, j/k)"
	}
	out := []string{titleLine(c, title, p.w)}
	out = append(out, body[off:]...)
	return padLines(out, p.w, p.h)
}

// wrapped is the record pretty-printed and wrapped to the pane's width,
// so a long value (an accuser list, a via list) is shown whole at any
// terminal size: nothing is cut, the pane scrolls.
func (p recordPane) wrapped(b []byte) []string {
	w := max(p.w-1, 1)
	var out []string
	for _, s := range strings.Split(prettyJSON(b), "\n") {
		r := []rune(s)
		for len(r) > w {
			out = append(out, " "+string(r[:w]))
			r = r[w:]
		}
		out = append(out, " "+string(r))
	}
	return out
}

// lines is how many lines record n takes in the pane.
func (p recordPane) lines(f *Frame, n int64) int {
	l := f.LogAt(n)
	if l == nil || l.Bytes == nil {
		return 0
	}
	return len(p.wrapped(l.Bytes))
}
