package screen

import (
	"strconv"

	"github.com/detsim/detsim/causal"
)

// The chain overlay (W): a state transition explained back to its
// origin across hosts, one record per link, each a jump target. Depth-1
// links are details under the link above them (the ping and ack of a
// probe, a refutation and why it did not win).

// chainView draws c in w×h with link sel selected and kept in view.
func (scr *Screen) chainView(c *causal.Chain, sel, w, h int) []string {
	ctx := &drawCtx{f: scr.fr, st: scr.st, focused: true}
	if c == nil || len(c.Links) == 0 {
		return padLines([]string{titleLine(ctx, "why", w), " no chain"}, w, h)
	}
	state := "complete: it ends at its origin"
	if !c.Complete {
		state = "stops short: " + c.Note
	}
	title := "why: " + itoa(len(c.Links)) + " records, " + state
	var body []string
	selTop, selBot := 0, 0
	for i, l := range c.Links {
		marker, indent := " ", ""
		if l.Depth > 0 {
			indent = "    "
		}
		if i == sel {
			marker = "▶"
			selTop = len(body)
		}
		org := ""
		if l.Origin {
			org = " ◆ origin"
		}
		head := marker + indent + "L" + strconv.FormatInt(l.Line, 10) + " " + FmtTime(l.At) + " " + l.Host + "  " + l.Text + org
		if i == sel {
			head = scr.st.cursor.Render(fit(head, w))
		}
		body = append(body, head)
		if l.Why != "" {
			for _, wl := range wrapText(l.Why, w-8-len(indent), "      "+indent) {
				body = append(body, scr.st.dim.Render(wl))
			}
		}
		if i == sel {
			selBot = len(body)
		}
	}
	if !c.Complete {
		body = append(body, scr.st.failed.Render(" "+c.Note))
	}
	return scr.listView(ctx, title, body, selTop, selBot, " j/k select · enter go to the record (its step, the log cursor on it) · W or esc close", w, h)
}
