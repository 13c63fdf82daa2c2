package screen

import (
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/detsim/detsim/causal"
	"github.com/detsim/detsim/debugger"
	"github.com/detsim/detsim/engine"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/term"
)

// Screen is the stepper's screen: the frame on show, the layout for the
// terminal's size, each pane's rectangle, cursor and scroll offset, and
// which pane has focus. The stepper (package tui) keeps one and moves it
// with the keys; RenderText keeps one for a single drawing. Render draws
// it from the frame alone: nothing here touches the session.
type Screen struct {
	st    *styles
	kinds *hosts.Registry // the host kinds whose declarations draw the hosts (ViewParams.Kinds)
	keys  KeyMap

	width, height int
	// The run's peers and links, fixed for the run: the layout and the
	// frame's window before the first frame.
	npeers, nlinks int

	fr *Frame

	focus   PaneID
	matrix  matrixPane
	host    hostPane
	queue   queuePane
	links   linksPane
	events  eventsPane
	record  recordPane
	showRec bool
	bands   []bandLayout
	header  int // header lines
	footer  int // footer lines
}

// Status is what the screen shows of the stepper rather than of the run:
// the run's name and seed, the breakpoints, what the stepper is doing, the
// status line or the prompt being typed, and the overlay, if any, over
// the panes.
type Status struct {
	Name string
	Seed uint64

	Breakpoints []debugger.Breakpoint
	BPSel       int                  // the selected breakpoint in the breakpoints list
	Hit         *debugger.Breakpoint // the breakpoint the position was reached by

	// Running is the verb of the long job in progress ("continuing"),
	// "" when none.
	Running string
	Line    string // the status line
	IsError bool   // the status line is an error
	// Prompt is the label of the prompt being typed and PromptInput what
	// has been typed (its cursor included), drawn instead of the status
	// line; Prompt is "" when none. A label too long for the line is cut
	// before the input is, so what is typed stays on screen.
	Prompt, PromptInput string
	// PromptErr is why the prompt's last entry was refused, drawn under
	// it (and in full in the breakpoints list) while it is corrected.
	PromptErr string

	Overlay    Overlay
	HelpScroll int             // lines the key help is scrolled down by
	VSel       int             // the selected verdict in the verdicts list
	Filter     *debugger.Query // the log shows only records meeting it
	Chain      *causal.Chain   // the chain W explains (OverlayChain)
	ChainSel   int             // its selected link
	Watch      string          // the watch } and { follow, "" none
}

// Open lays out a screen of width×height cells for the run s holds and
// lands s on step at (re-executing the step before it, so the frame
// marks what step at changed), with the log pane focused. kinds names
// each host kind's summary for the host pane (nil: none).
func Open(s *debugger.Session, kinds *hosts.Registry, width, height int, at int64) (Screen, error) {
	scr := Screen{st: newStyles(), keys: NewKeyMap(), width: width, height: height, focus: PaneEvents,
		npeers: len(s.Scenario().Peers), nlinks: s.Timeline().Engine().NumLinks()}
	scr.kinds = kinds
	scr.layout()
	fr, err := Land(s, at, scr.ViewParams())
	if err != nil {
		return Screen{}, err
	}
	scr.fr = fr
	scr.layout()
	return scr, nil
}

// Frame is the frame on show.
func (scr *Screen) Frame() *Frame { return scr.fr }

// Show puts fr on screen, keeping the cursors on what it holds.
func (scr *Screen) Show(fr *Frame) {
	scr.fr = fr
	scr.clampCursor()
}

// Resize lays the screen out again for width×height cells.
func (scr *Screen) Resize(width, height int) {
	scr.width, scr.height = width, height
	scr.layout()
}

// bandHalf is how many rows either side of the selected host a frame
// snapshots at least, so moving the selection rarely needs the engine.
// Snapshots cost: a hundred SWIM hosts cannot all be parsed per step.
const bandHalf = 16

// ViewParams says what the next frame must hold for the screen as it is.
func (scr *Screen) ViewParams() ViewParams {
	n := scr.npeers
	half := max(bandHalf, scr.matrix.visibleRows(true)/2+4)
	vp := ViewParams{BandLo: max(scr.matrix.sel-half, 0), Sel: scr.matrix.sel, Kinds: scr.kinds}
	vp.BandHi = min(vp.BandLo+2*half, n)
	vp.BandLo = max(min(vp.BandLo, vp.BandHi-2*half), 0)
	if scr.events.cursor > 0 {
		vp.LogFrom = max(scr.events.cursor-LogWindow/2, 1)
	}
	vp.LinkLo, vp.LinkHi = scr.links.window(scr.linkTotal())
	vp.Reuse = scr.fr
	return vp
}

// linkTotal is how many links the run has (fixed for the run).
func (scr *Screen) linkTotal() int {
	if scr.fr != nil {
		return scr.fr.linkTotal
	}
	return scr.nlinks
}

// FrameCovers reports whether the frame holds every row and record the
// panes want to draw; when not, the stepper builds a new frame with
// ViewParams.
func (scr *Screen) FrameCovers() bool {
	f := scr.fr
	if f == nil {
		return false
	}
	n := len(f.peers)
	scr.matrix.follow(n, f.views != "")
	lo, hi := scr.matrix.rowOff, min(scr.matrix.rowOff+scr.matrix.visibleRows(f.views != ""), n)
	if scr.matrix.sel < lo {
		lo = scr.matrix.sel
	}
	if scr.matrix.sel >= hi {
		hi = scr.matrix.sel + 1
	}
	if n > 0 && (f.Row(lo) == nil || f.Row(hi-1) == nil) {
		return false
	}
	if f.sel != scr.matrix.sel {
		return false // the host pane's introspection is another host's
	}
	if lo, hi := scr.links.shown(f.linkTotal); lo < hi && (f.linkLo > lo || hi > f.linkLo+len(f.links)) {
		return false
	}
	if f.records > 0 {
		wlo, whi := scr.events.window(f)
		if f.LogAt(wlo) == nil || f.LogAt(whi) == nil {
			return false
		}
	}
	return true
}

// clampCursor keeps the log cursor on a record that exists.
func (scr *Screen) clampCursor() {
	if scr.events.cursor > scr.fr.records {
		scr.events.cursor, scr.events.top = 0, 0
	}
	scr.matrix.sel = Clamp(scr.matrix.sel, 0, len(scr.fr.peers)-1)
}

// Focus is the pane with focus.
func (scr *Screen) Focus() PaneID { return scr.focus }

// CycleFocus moves the focus dir panes on (-1: back) among those on
// screen.
func (scr *Screen) CycleFocus(dir int) {
	shown := scr.shownPanes()
	if len(shown) == 0 {
		return
	}
	i := 0
	for k, p := range shown {
		if p == scr.focus {
			i = k
		}
	}
	scr.focus = shown[(i+dir+len(shown))%len(shown)]
}

// ToggleRecord opens or closes the record pane.
func (scr *Screen) ToggleRecord() {
	scr.showRec = !scr.showRec
	scr.record.off = 0
	scr.layout()
}

// CloseRecord closes the record pane and reports whether it was open.
func (scr *Screen) CloseRecord() bool {
	if !scr.showRec {
		return false
	}
	scr.showRec = false
	scr.layout()
	return true
}

// LogCursor is the record under the log cursor (the newest when the log
// follows the run).
func (scr *Screen) LogCursor() int64 { return scr.events.at(scr.fr) }

// Following reports whether the log follows the run: its cursor is on
// the newest record, wherever the run goes.
func (scr *Screen) Following() bool { return scr.events.cursor == 0 }

// FollowLog puts the log cursor back on the newest record, following the
// run.
func (scr *Screen) FollowLog() { scr.events.cursor, scr.events.top = 0, 0 }

// PutCursor puts the log cursor on record n (past the end: following)
// and focuses the log.
func (scr *Screen) PutCursor(n int64) {
	scr.events.cursor, scr.events.top = n, 0
	if n >= scr.fr.records {
		scr.events.cursor = 0
	}
	scr.focus = PaneEvents
}

// HostCursor is the line of the host pane under its cursor.
func (scr *Screen) HostCursor() int { return scr.host.cur }

// Page is how many lines a page up or down moves the focused pane.
func (scr *Screen) Page() int {
	switch scr.focus {
	case PaneMatrix:
		return max(scr.matrix.visibleRows(scr.fr.views != ""), 1)
	case PaneEvents:
		return max(scr.events.body(), 1)
	}
	return 5
}

// Scroll moves the focused pane's cursor or view by delta lines; in the
// log, by delta records meeting filter (nil: every record). It reports
// whether the log's filter ran out of matches among the records the frame
// holds before moving delta, so the caller can search the run beyond.
func (scr *Screen) Scroll(delta int, filter *debugger.Query) (beyond bool) {
	f := scr.fr
	switch scr.focus {
	case PaneMatrix:
		scr.matrix.move(delta, len(f.peers))
		scr.matrix.follow(len(f.peers), f.views != "")
		scr.host.off = 0
	case PaneHost:
		scr.host.move(delta, len(scr.hostLines()))
	case PaneQueue:
		scr.queue.scroll(delta, len(f.queue), scr.queue.body())
	case PaneLinks:
		rows := (f.linkTotal + scr.links.columns() - 1) / scr.links.columns()
		scr.links.scroll(delta, rows, scr.links.body())
	case PaneEvents:
		if scr.showRec && delta != 0 {
			scr.record.off = 0
		}
		beyond = scr.events.move(int64(delta), f, filter)
	case PaneRecord:
		scr.record.scroll(delta, scr.record.lines(f, scr.events.at(f)), scr.record.body())
	}
	return beyond
}

// SelectedHost is the host the matrix selects, false when there is none.
func (scr *Screen) SelectedHost() (string, bool) {
	if scr.fr == nil || scr.matrix.sel < 0 || scr.matrix.sel >= len(scr.fr.peers) {
		return "", false
	}
	return scr.fr.peers[scr.matrix.sel], true
}

// SelectHost selects host id in the matrix, scrolling it into view;
// false when the run has no such host. The frame
// may not hold the host's row yet: FrameCovers then asks for one that
// does.
func (scr *Screen) SelectHost(id string) bool {
	i := slices.Index(scr.fr.peers, id)
	if i < 0 {
		return false
	}
	scr.matrix.sel = i
	scr.matrix.follow(len(scr.fr.peers), scr.fr.views != "")
	scr.host.off = 0
	return true
}

// Target is what a line of the host pane is about (pane.Line): a
// member, the query for the record that brought what the line shows,
// and what that is, in words.
type Target struct {
	Member, Find, Follow string
}

// Target is what the host pane's line under the cursor is about, or the
// first line about a member when the cursor is on none; false when no
// line is (SWIM's pane: the host holds no member suspect or dead).
func (scr *Screen) Target() (Target, bool) {
	l, ok := scr.host.selected(scr.hostLines())
	return Target{Member: l.member, Find: l.find, Follow: l.follow}, ok
}

// hostLines is the host pane's body for the selected host.
func (scr *Screen) hostLines() []hostLine {
	r := scr.fr.Row(scr.matrix.sel)
	if r == nil {
		return nil
	}
	return scr.host.lines(&drawCtx{f: scr.fr, st: scr.st}, r)
}

// Render draws exactly height lines of at most width cells each, from
// the frame and st alone: it never touches the session.
func (scr *Screen) Render(st Status) string {
	W, H := scr.width, scr.height
	if W <= 0 || H <= 0 || scr.fr == nil {
		return ""
	}
	lines := make([]string, 0, H)
	lines = append(lines, scr.headerView(st)...)
	main := H - scr.header - scr.footer
	switch {
	case main <= 0:
	case st.Overlay == OverlayHelp:
		lines = append(lines, scr.helpView(W, main, st.HelpScroll)...)
	case st.Overlay == OverlayBreakpoints:
		lines = append(lines, scr.breakpointsView(st, W, main)...)
	case st.Overlay == OverlayVerdicts:
		lines = append(lines, scr.verdictsView(st.VSel, W, main)...)
	case st.Overlay == OverlayChain:
		lines = append(lines, scr.chainView(st.Chain, st.ChainSel, W, main)...)
	default:
		for _, b := range scr.bands {
			lines = append(lines, scr.bandView(b, st.Filter)...)
		}
	}
	lines = append(lines, scr.footerView(W, st)...)
	// The layout already fits; this is the guarantee that no terminal,
	// however small, gets a line longer than it is wide.
	out := make([]string, H)
	for i := range out {
		if i < len(lines) {
			out[i] = fit(lines[i], W)
		} else {
			out[i] = strings.Repeat(" ", W)
		}
	}
	return strings.Join(out, "\n")
}

// bandView draws one strip of panes side by side.
func (scr *Screen) bandView(b bandLayout, filter *debugger.Query) []string {
	cols := make([][]string, len(b.cells))
	for i, c := range b.cells {
		cols[i] = scr.slotView(c.slot, filter)
		cols[i] = padLines(cols[i], c.w, b.h)
	}
	sep := scr.st.dim.Render("│")
	out := make([]string, b.h)
	for r := range out {
		var sb strings.Builder
		for i := range cols {
			if i > 0 {
				sb.WriteString(sep)
			}
			sb.WriteString(cols[i][r])
		}
		out[r] = sb.String()
	}
	return out
}

func (scr *Screen) slotView(s slot, filter *debugger.Query) []string {
	ctx := func(p PaneID) *drawCtx { return &drawCtx{f: scr.fr, st: scr.st, focused: scr.focus == p} }
	switch s {
	case slotMatrix:
		return scr.matrix.View(ctx(PaneMatrix))
	case slotHost:
		return scr.host.View(ctx(PaneHost), scr.matrix.sel)
	case slotQueue:
		return scr.queue.View(ctx(PaneQueue))
	case slotLinks:
		return scr.links.View(ctx(PaneLinks))
	case slotEvents:
		return scr.events.View(ctx(PaneEvents), filter)
	case slotRecord:
		return scr.record.View(ctx(PaneRecord), scr.events.at(scr.fr))
	}
	return nil
}

// Pane draws pane p alone as it stands on screen, from the frame on
// show, the log filtered by filter (nil: every record); nothing when p
// is not on screen.
func (scr *Screen) Pane(p PaneID, filter *debugger.Query) []string {
	return scr.slotView(paneSlot[p], filter)
}

// runState says in a few words what the stepper is doing.
func (scr *Screen) runState(st Status) string {
	f := scr.fr
	switch {
	case st.Running != "":
		return scr.st.running.Render("▶ " + st.Running + "…")
	case st.Hit != nil:
		s := "paused at breakpoint " + st.Hit.String()
		if st.Hit.Kind == debugger.BreakFail {
			// The assertion the breakpoint stopped for: the one it names,
			// or those this step failed; never the run's first failure,
			// which may be long past.
			names := f.failedHere()
			if st.Hit.Arg != "" {
				names = []string{st.Hit.Arg}
			}
			if len(names) > 0 {
				s += ": " + strings.Join(names, ", ") + " Fail"
			}
		}
		return scr.st.failed.Render("▌" + s)
	case f.done && f.early:
		return scr.st.paused.Render("▌ended early at " + FmtTime(f.now) + ": every assertion resolved")
	case f.done:
		return scr.st.paused.Render("▌ended at " + FmtTime(f.now))
	}
	return scr.st.paused.Render("▌paused")
}

func (scr *Screen) headerView(st Status) []string {
	f := scr.fr
	l1 := " " + scr.st.bold.Render("detsim") + "  " + term.Escape(st.Name) + "  seed " + strconv.FormatUint(st.Seed, 10) +
		"  t=" + FmtTime(f.now) + "  step " + FmtInt(f.index) + "  " + scr.st.dim.Render(DescribeStep(f.last))
	verdicts := "verdicts " + itoa(f.pass) + " pass · " + itoa(f.fail) + " fail · " + itoa(f.open) + " open"
	if f.inconclusive > 0 {
		verdicts += " · " + itoa(f.inconclusive) + " inconclusive"
	}
	if f.fail > 0 {
		verdicts = scr.st.failed.Render(verdicts)
	}
	var on []string
	for _, b := range st.Breakpoints {
		if !b.Off {
			on = append(on, b.String())
		}
	}
	bps := "breakpoints " + strings.Join(on, ", ")
	if len(on) == 0 {
		bps = "no breakpoints"
	}
	if st.Watch != "" {
		bps += " · watch " + st.Watch
	}
	l2 := " " + scr.runState(st) + "   " + verdicts + "   " + scr.st.dim.Render(bps)
	if scr.header < 2 {
		return []string{l1 + "  " + scr.runState(st)}[:scr.header]
	}
	return []string{l1, l2}
}

func (scr *Screen) footerView(W int, st Status) []string {
	status := term.Escape(st.Line) // may quote a path or an error about a bundle
	switch {
	case st.Prompt != "":
		status = promptLine(term.Escape(st.Prompt), term.Escape(st.PromptInput), W-1)
	case st.IsError:
		status = scr.st.errText.Render(status)
	}
	status = " " + status
	sep := " · "
	if W < 100 {
		sep = "  "
	}
	keys := " " + scr.st.shortHelp(scr.keys.ShortHelp(), sep, W-1, 2)
	if st.Prompt != "" && st.PromptErr != "" {
		// The keys do not apply while a prompt is typed; why its entry
		// was refused does.
		keys = " " + scr.st.errText.Render(term.Escape(st.PromptErr))
	}
	switch scr.footer {
	case 0:
		return nil
	case 1:
		if st.Prompt != "" || st.IsError || st.Running != "" {
			return []string{status}
		}
		return []string{keys}
	}
	return []string{status, keys}
}

// promptLine is a prompt's label and input in w cells: the label is cut
// (…) to leave the input room, and an input wider than the line shows
// its end, where the typing is (issue 33: the breakpoint prompt's label
// filled the line at 80 columns and hid what was typed).
func promptLine(label, input string, w int) string {
	iw := ansi.StringWidth(input)
	switch {
	case ansi.StringWidth(label)+iw <= w:
		return label + input
	case iw+8 <= w:
		return ansi.Truncate(label, w-iw, "… ") + input
	}
	return "…" + ansi.TruncateLeft(input, iw-max(w-1, 0), "")
}

// DescribeStep says what a step dispatched: "Deliver b", "Mutation".
func DescribeStep(info engine.StepInfo) string {
	if info.Kind == "" {
		return "start"
	}
	if info.Host == "" {
		return info.Kind
	}
	return info.Kind + " " + info.Host
}

// Plain strips styling: the text form of a screen.
func Plain(s string) string { return ansi.Strip(s) }
