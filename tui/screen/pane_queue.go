package screen

import (
	"strconv"

	"github.com/charmbracelet/x/ansi"

	"github.com/detsim/detsim/engine"
)

// queuePane lists the next queue entries in pop order: time, sequence
// number, kind and host; for a delivery its sender, message ("ping #12"),
// size and id, for a timer its purpose. Entries the last step scheduled
// are marked *.
type queuePane struct {
	size
	scroller
}

func (p queuePane) View(c *drawCtx) []string {
	f := c.f
	title := "queue (next " + FmtInt(int64(min(len(f.queue), p.body()))) + " of " + FmtInt(int64(f.queueLen)) + ")"
	out := []string{titleLine(c, title, p.w)}
	off := Clamp(p.off, 0, max(len(f.queue)-p.body(), 0))
	end := min(len(f.queue), off+max(p.h-1, 0))
	// Too narrow for every line whole: the sequence numbers go first,
	// from every line, so the column stays one column.
	withSeq := true
	for i := off; i < end; i++ {
		if 1+ansi.StringWidth(timeCol(f, f.queue[i].At)+" "+queueLine(&f.queue[i], true)) > p.w {
			withSeq = false
			break
		}
	}
	for i := off; i < end; i++ {
		line := timeCol(f, f.queue[i].At) + " " + queueLine(&f.queue[i], withSeq)
		if f.queueNew[i] {
			line = c.st.bold.Render("*" + line)
		} else {
			line = " " + line
		}
		out = append(out, line)
	}
	return padLines(out, p.w, p.h)
}

// queueLine is one entry: sequence number (withSeq), kind and host; a
// delivery's sender with its message id ("← orch#17": the id names the
// sender), the message and its size; a timer's purpose.
func queueLine(q *engine.QueueEntry, withSeq bool) string {
	s := fit(q.Kind, max(len(q.Kind), 7)) + " " + q.Host
	if withSeq {
		s = "#" + strconv.FormatUint(q.Seq, 10) + " " + s
	}
	switch q.Kind {
	case "Deliver", "Process":
		if q.ID != "" {
			s += " ← " + q.ID
		} else {
			s += " ← " + q.From
		}
		if q.What != "" {
			s += " " + q.What
		}
		s += " " + FmtBytes(int64(q.Size))
		if q.Cut {
			s += " (cut)"
		}
	case "Timer":
		if q.What != "" {
			s += " " + q.What
		}
	}
	return s
}
