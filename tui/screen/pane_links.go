package screen

import (
	"strconv"
	"strings"

	"github.com/detsim/detsim/network"
)

// linksPane shows every directed edge: connection cache state, last send,
// deliveries in flight and the mutations in force, several edges per line
// when the pane is wide. Edges the last step changed are marked *. It is
// windowed like the host rows: the frame holds the views of the edges
// around the scroll position only (window), and the counts of all.
type linksPane struct {
	size
	scroller
}

// linkCell is the width one edge takes in the links pane.
const linkCell = 52

func (p linksPane) columns() int { return max(p.w/linkCell, 1) }

// shown returns the links [lo, hi) the pane draws for total edges.
func (p linksPane) shown(total int) (lo, hi int) {
	cols := p.columns()
	rows := (total + cols - 1) / cols
	off := Clamp(p.off, 0, max(rows-p.body(), 0))
	return min(off*cols, total), min((off+p.body())*cols, total)
}

// window is the links a frame should hold: what is shown and a page
// either side, so scrolling a little needs no new frame.
func (p linksPane) window(total int) (lo, hi int) {
	lo, hi = p.shown(total)
	if lo == hi {
		return 0, 0
	}
	page := p.body() * p.columns()
	return max(lo-page, 0), min(hi+page, total)
}

func (p linksPane) View(c *drawCtx) []string {
	f := c.f
	title := "links (" + FmtInt(int64(f.linkTotal)) + " edges, " + FmtInt(int64(f.linkCold)) + " cold, " + FmtInt(int64(f.linkMutated)) + " mutated)"
	out := []string{titleLine(c, title, p.w)}
	cols := p.columns()
	cw := p.w / cols
	lo, hi := p.shown(f.linkTotal)
	for r := lo / cols; r*cols < hi && len(out) < p.h; r++ {
		var b strings.Builder
		for k := 0; k < cols; k++ {
			i := r*cols + k
			if i >= hi {
				break
			}
			sep := ""
			if k < cols-1 {
				sep = "│"
			}
			line := " …"
			if l, changed, ok := f.link(i); ok {
				line = linkLine(c, l, changed)
			}
			b.WriteString(fit(line, cw-len(sep)) + sep)
		}
		out = append(out, b.String())
	}
	return padLines(out, p.w, p.h)
}

func linkLine(c *drawCtx, l *network.LinkView, changed bool) string {
	var st = c.st.warm
	switch l.State {
	case network.Cold:
		st = c.st.cold
	case network.Warming:
		st = c.st.warming
	}
	mark := " "
	if changed {
		mark = "*"
	}
	s := mark + l.From + "→" + l.To + " " + st.Render(fit(l.State.String(), 7))
	if l.LastSendNs > 0 {
		s += " last " + fmtShort(l.LastSendNs)
	}
	if l.InFlight > 0 {
		s += " in-flight " + FmtInt(int64(l.InFlight))
	}
	for _, a := range l.Active {
		s += " " + c.st.mutation.Render(readableUntil(a))
	}
	if changed {
		return c.st.bold.Render(s)
	}
	return s
}

// readableUntil rewrites the network's "… until 65000000000" as a time.
func readableUntil(a string) string {
	i := strings.LastIndex(a, " until ")
	if i < 0 {
		return a
	}
	ns, err := strconv.ParseInt(a[i+len(" until "):], 10, 64)
	if err != nil {
		return a
	}
	return a[:i] + " until " + fmtShort(ns)
}
