package screen

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/detsim/detsim/bundle/verdict"
	"github.com/detsim/detsim/debugger"
	"github.com/detsim/detsim/internal/term"
)

// Overlay is what replaces the panes, if anything.
type Overlay int

const (
	OverlayNone Overlay = iota
	OverlayHelp
	OverlayBreakpoints
	OverlayVerdicts
	OverlayChain
)

// widest returns the widest line of a block.
func widest(block string) string {
	best := ""
	for _, l := range strings.Split(block, "\n") {
		if ansi.StringWidth(l) > ansi.StringWidth(best) {
			best = l
		}
	}
	return best
}

// breakpointsView draws the breakpoint list in w×h, st.BPSel selected,
// with its keys and, while one is being added, what a breakpoint may be
// and why the last entry was refused, wrapped so nothing of it is cut
// (issue 33: the suggestions were cut off the status line).
func (scr *Screen) breakpointsView(st Status, w, h int) []string {
	bps, sel := st.Breakpoints, st.BPSel
	c := &drawCtx{f: scr.fr, st: scr.st, focused: true}
	out := []string{titleLine(c, "breakpoints", w)}
	if len(bps) == 0 {
		out = append(out, " none: a adds one")
	}
	for i, b := range bps {
		box := "[x]"
		if b.Off {
			box = "[ ]"
		}
		marker := " "
		if i == sel {
			marker = "▶"
		}
		line := marker + box + " " + strconv.Itoa(i+1) + " " + fit(b.String(), 24) + " " + DescribeBreak(b)
		if i == sel {
			line = scr.st.cursor.Render(line)
		}
		out = append(out, line)
	}
	out = append(out, "")
	if st.Prompt != "" {
		for _, l := range wrapText(BreakpointSyntax, w-2, " ") {
			out = append(out, scr.st.dim.Render(l))
		}
		if st.PromptErr != "" {
			for _, l := range wrapText(st.PromptErr, w-2, " ") {
				out = append(out, scr.st.errText.Render(term.Escape(l)))
			}
		}
		return padLines(out, w, h)
	}
	out = append(out, " "+scr.st.shortHelp(NewBreakpointKeys().ShortHelp(), " · ", w-1, 1),
		scr.st.dim.Render(" c continues forward to the next enabled breakpoint, C backward to the previous one."))
	return padLines(out, w, h)
}

// BreakpointSyntax is what a breakpoint may be, shown while one is typed.
const BreakpointSyntax = "a breakpoint is fail, fail=NAME, verdict, host=H, time=12.5s, step=N, or record conditions type=T field=V … (= != < <= > >=); enter adds it, esc cancels"

// helpView draws the full key help in w×h, scrolled down by scroll
// lines (clamped): the title says which lines are shown when they do not
// all fit, and j/k, pgup/pgdn scroll, so every key is reachable on any
// screen (issue 22: at 80×24 the list stopped after "/ search").
func (scr *Screen) helpView(w, h, scroll int) []string {
	c := &drawCtx{f: scr.fr, st: scr.st, focused: true}
	body := scr.helpBody(w)
	avail := h - 1
	if avail <= 0 {
		return padLines([]string{titleLine(c, "keys", w)}, w, h)
	}
	title := "keys (? or esc closes)"
	off := 0
	if len(body) > avail {
		off = Clamp(scroll, 0, len(body)-avail)
		title = "keys " + itoa(off+1) + "-" + itoa(min(off+avail, len(body))) + " of " + itoa(len(body)) + " lines (j/k pgup/pgdn scroll; ? or esc closes)"
	}
	out := append([]string{titleLine(c, title, w)}, body[off:min(off+avail, len(body))]...)
	return padLines(out, w, h)
}

// HelpMaxScroll is how far the key help scrolls on this screen: its
// lines less those the overlay shows (0 when they all fit).
func (scr *Screen) HelpMaxScroll() int {
	return max(len(scr.helpBody(scr.width))-(scr.height-scr.header-scr.footer-1), 0)
}

// helpBody is every line of the key help at width w: as many key groups
// side by side as fit, the rest below; when even one group is wider than
// the screen, one key a line with its description wrapped under it.
func (scr *Screen) helpBody(w int) []string {
	out := []string{""}
	groups := scr.keys.FullHelp()
	for len(groups) > 0 {
		n := len(groups)
		for n > 1 && ansi.StringWidth(widest(scr.st.fullHelp(groups[:n]))) > w-1 {
			n--
		}
		if ansi.StringWidth(widest(scr.st.fullHelp(groups[:1]))) > w-1 {
			for _, k := range groups[0] {
				key := " " + scr.st.helpKey.Render(k.Help().Key)
				desc := wrapText(k.Help().Desc, w-4, "   ")
				out = append(out, key)
				for _, d := range desc {
					out = append(out, scr.st.helpDesc.Render(d))
				}
			}
			out = append(out, "")
			groups = groups[1:]
			continue
		}
		for _, l := range strings.Split(scr.st.fullHelp(groups[:n]), "\n") {
			out = append(out, " "+l)
		}
		out = append(out, "")
		groups = groups[n:]
	}
	for _, para := range []string{
		"A count typed first repeats n p c C: 10n, 3c.",
		"The matrix shows each observer's view of each subject: A alive, S suspect, D dead, then the incarnation. * marks what the last step changed (in the matrix, host, queue, links and log); ▶ is the selection or the log cursor.",
	} {
		out = append(out, wrapText(para, w-2, " ")...)
	}
	return out
}

// The verdicts list (v): every assertion with its outcome as the
// streaming evaluator knows it at the current step (the final verdicts
// once the run has ended), its one-line reason and its evidence.

func outcomeWord(p verdict.Partial) string {
	if !p.Resolved {
		return "open"
	}
	return string(p.Outcome)
}

// verdictsView draws the list in w×h, verdict sel selected and kept in
// view.
func (scr *Screen) verdictsView(sel, w, h int) []string {
	f := scr.fr
	c := &drawCtx{f: f, st: scr.st, focused: true}
	state := "at step " + FmtInt(f.index)
	if f.done {
		state = "final, the run has ended"
	}
	title := "verdicts (" + itoa(f.pass) + " pass · " + itoa(f.fail) + " fail · " + itoa(f.open) + " open, " + state + ")"
	var body []string
	selTop, selBot := 0, 0
	for i, p := range f.verdicts {
		marker := " "
		if i == sel {
			marker = "▶"
			selTop = len(body)
		}
		word := fit(outcomeWord(p), 12)
		switch {
		case !p.Resolved:
			word = scr.st.dim.Render(word)
		case p.Outcome == verdict.Fail:
			word = scr.st.failed.Render(word)
		}
		line := marker + " " + word + " " + term.Escape(p.Name) + "  " + scr.st.dim.Render(p.Kind)
		if i == sel {
			line = scr.st.cursor.Render(Plain(line))
		}
		body = append(body, line)
		reason := term.Escape(p.Reason)
		if !p.Resolved {
			reason = "not decided by the records so far"
		}
		body = append(body, wrapText(reason, w-6, "     ")...)
		var ev []string
		for _, e := range p.Evidence {
			ev = append(ev, e.Ref+" @ "+fmtShort(e.VirtualTimeNs))
		}
		if len(ev) == 0 && p.Line > 0 {
			ev = append(ev, "events.ndjson#L"+strconv.Itoa(p.Line))
		}
		if len(ev) > 0 {
			body = append(body, wrapText("evidence "+strings.Join(ev, ", "), w-6, "     ")...)
		}
		if i == sel {
			selBot = len(body)
		}
	}
	if len(f.verdicts) == 0 {
		body = append(body, " the scenario declares no assertions")
	}
	return scr.listView(c, title, body, selTop, selBot, " j/k select · enter go to its evidence · v or esc close", w, h)
}

// listView lays out an overlay list in w×h: its title, the body scrolled
// so the selected entry (body lines selTop to selBot) is in view, and a
// footer of keys.
func (scr *Screen) listView(c *drawCtx, title string, body []string, selTop, selBot int, keys string, w, h int) []string {
	avail := max(h-2, 1)
	off := 0
	if selBot > avail {
		off = min(selTop, selBot-avail)
	}
	out := []string{titleLine(c, title, w)}
	out = append(out, body[min(off, len(body)):]...)
	out = padLines(out, w, h-1)
	return append(out, scr.st.dim.Render(fit(keys, w)))
}

// wrapText breaks s into lines of at most w cells after indent.
func wrapText(s string, w int, indent string) []string {
	w = max(w, 8)
	var out []string
	line := ""
	for _, word := range strings.Fields(s) {
		for len([]rune(word)) > w {
			if line != "" {
				out = append(out, indent+line)
				line = ""
			}
			r := []rune(word)
			out = append(out, indent+string(r[:w]))
			word = string(r[w:])
		}
		switch {
		case line == "":
			line = word
		case len([]rune(line))+1+len([]rune(word)) > w:
			out = append(out, indent+line)
			line = word
		default:
			line += " " + word
		}
	}
	if line != "" {
		out = append(out, indent+line)
	}
	return out
}

// DescribeBreak says in words what a breakpoint stops at.
func DescribeBreak(b debugger.Breakpoint) string {
	switch b.Kind {
	case debugger.BreakFail:
		if b.Arg != "" {
			return "assertion " + b.Arg + " fails"
		}
		return "an assertion fails"
	case debugger.BreakVerdict:
		return "an assertion is decided"
	case debugger.BreakRecord:
		return "a record with " + b.Query.String()
	case debugger.BreakHost:
		return "a step for host " + b.Arg
	case debugger.BreakTime:
		return "virtual time ≥ " + FmtTime(b.N)
	case debugger.BreakStep:
		return "step " + FmtInt(b.N)
	}
	return "?"
}
