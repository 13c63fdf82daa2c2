package tui

import (
	"strconv"

	"github.com/detsim/detsim/engine"
)

// queuePane lists the next queue entries in pop order: time, sequence
// number, kind and host. Entries the last step scheduled are marked *.
type queuePane struct {
	size
	scroller
}

func (p queuePane) View(c *drawCtx) []string {
	f := c.f
	title := "queue (next " + strconv.Itoa(min(len(f.queue), p.body())) + " of " + fmtInt(int64(f.queueLen)) + ")"
	out := []string{titleLine(c, title, p.w)}
	off := clampInt(p.off, 0, max(len(f.queue)-p.body(), 0))
	for i := off; i < len(f.queue) && len(out) < p.h; i++ {
		line := timeCol(f, f.queue[i].At) + " " + queueLine(&f.queue[i])
		if f.queueNew[i] {
			line = c.st.bold.Render("*" + line)
		} else {
			line = " " + line
		}
		out = append(out, line)
	}
	return padLines(out, p.w, p.h)
}

func queueLine(q *engine.QueueEntry) string {
	s := "#" + strconv.FormatUint(q.Seq, 10) + " " + fit(q.Kind, 10) + " " + q.Host
	switch q.Kind {
	case "Deliver":
		s += " ← " + q.From + " " + fmtBytes(int64(q.Size))
		if q.Cut {
			s += " (cut)"
		}
	}
	return s
}
