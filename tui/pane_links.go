package tui

import (
	"strconv"
	"strings"

	"github.com/detsim/detsim/network"
)

// linksPane shows every directed edge: connection cache state, last send,
// deliveries in flight and the mutations in force, several edges per line
// when the pane is wide. Edges the last step changed are marked *.
type linksPane struct {
	size
	scroller
}

// linkCell is the width one edge takes in the links pane.
const linkCell = 52

func (p linksPane) columns() int { return max(p.w/linkCell, 1) }

func (p linksPane) View(c *drawCtx) []string {
	f := c.f
	cold, mutated := 0, 0
	for i := range f.links {
		if f.links[i].State == network.Cold {
			cold++
		}
		if len(f.links[i].Active) > 0 {
			mutated++
		}
	}
	title := "links (" + fmtInt(int64(len(f.links))) + " edges, " + fmtInt(int64(cold)) + " cold, " + fmtInt(int64(mutated)) + " mutated)"
	out := []string{titleLine(c, title, p.w)}
	cols := p.columns()
	cw := p.w / cols
	rows := (len(f.links) + cols - 1) / cols
	off := clampInt(p.off, 0, max(rows-p.body(), 0))
	for r := off; r < rows && len(out) < p.h; r++ {
		var b strings.Builder
		for k := 0; k < cols; k++ {
			i := r*cols + k
			if i >= len(f.links) {
				break
			}
			sep := ""
			if k < cols-1 {
				sep = "│"
			}
			b.WriteString(fit(linkLine(c, &f.links[i], f.linkChanged[i]), cw-len(sep)) + sep)
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
		s += " in-flight " + fmtInt(int64(l.InFlight))
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
