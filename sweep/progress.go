package sweep

import (
	"fmt"
	"io"
	"time"

	"charm.land/bubbles/v2/progress"

	"github.com/detsim/detsim/internal/term"
)

// Progress shows how far a sweep or check has come, on stderr: on a
// terminal a bar (bubbles' progress) redrawn in place at most ten times a
// second, otherwise a plain line at every tenth of the way. It never
// writes to the report itself, which stays the same whatever the
// terminal.
type Progress struct {
	w     io.Writer
	tty   bool
	label string
	bar   progress.Model
	drawn time.Time
	shown bool // a bar is on the terminal line
	tenth uint64
	start time.Time
}

// NewProgress returns a progress display on w labelled label. tty says
// whether w is a terminal (internal/term).
func NewProgress(w io.Writer, tty bool, label string) *Progress {
	return &Progress{
		w: w, tty: tty, label: label, start: time.Now(),
		bar: progress.New(progress.WithWidth(40), progress.WithDefaultBlend()),
	}
}

// Update shows done of total finished, failed of them failing.
func (p *Progress) Update(done, failed, total uint64) {
	if total == 0 {
		return
	}
	if !p.tty {
		if t := done * 10 / total; t > p.tenth {
			p.tenth = t
			fmt.Fprintf(p.w, "%s: %d/%d done, %d failing, %s\n", p.label, done, total, failed, p.rate(done))
		}
		return
	}
	if now := time.Now(); done < total && now.Sub(p.drawn) < 100*time.Millisecond {
		return
	} else {
		p.drawn = now
	}
	frac := float64(done) / float64(total)
	// The label is the property's name, escaped by p.w when p.w is a
	// term.Writer; the bar is detsim's own colours.
	term.ClearLine(p.w)
	fmt.Fprintf(p.w, "%s ", p.label)
	io.WriteString(term.Raw(p.w), p.bar.ViewAs(frac))
	fmt.Fprintf(p.w, " %d/%d, %d failing, %s", done, total, failed, p.rate(done))
	p.shown = true
}

// Clear takes the bar off the terminal line so that a report line can be
// printed there; the next Update draws it again at once.
func (p *Progress) Clear() {
	if p.shown {
		term.ClearLine(p.w)
		p.shown, p.drawn = false, time.Time{}
	}
}

// Close clears the bar from a terminal.
func (p *Progress) Close() { p.Clear() }

func (p *Progress) rate(done uint64) string {
	s := time.Since(p.start).Seconds()
	if s <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f/s", float64(done)/s)
}
