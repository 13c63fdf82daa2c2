package tui

import (
	"strconv"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/detsim/detsim/debugger"
	"github.com/detsim/detsim/engine"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/scenarios"
)

// Options configure the stepper.
type Options struct {
	// Seed, when set, overrides the scenario's seed.
	Seed *uint64
	// Breakpoints are armed at start, after the default "fail".
	Breakpoints []debugger.Breakpoint
	// Width and Height are the screen size until the terminal reports
	// one (tests); 0 means 80×24.
	Width, Height int
	// Version is the simulator version the picture key's bundle records.
	Version string
	// PictureDir is where the picture key writes <name>-<seed>/ and
	// <name>-<seed>.html; "" is bundles/.
	PictureDir string
	// CheckpointMem, when set, is the byte budget of the session's
	// checkpoints (default engine.DefaultCheckpointBudget; 0: none).
	CheckpointMem *int64
}

// overlay is what replaces the panes, if anything.
type overlay int

const (
	overlayNone overlay = iota
	overlayHelp
	overlayBreakpoints
	overlayVerdicts
)

// Model is the stepper as a bubbletea model. Update never runs the
// engine: every engine operation is a command that takes the session and
// returns it in a jobMsg, so the session has one owner at a time. While a
// command holds it, sess is nil and the panes draw the last frame.
type Model struct {
	keys keyMap
	help help.Model
	st   *styles

	width, height int

	sess      *debugger.Session // nil while a job holds it
	fr        *frame
	job       *job // the job in progress, nil when idle
	pending   []*job
	interrupt bool
	refresh   bool // the view needs a frame the current one cannot give

	focus   paneID
	matrix  matrixPane
	host    hostPane
	queue   queuePane
	links   linksPane
	events  eventsPane
	record  recordPane
	showRec bool
	overlay overlay
	bands   []bandLayout
	header  int // header lines
	footer  int // footer lines

	bps    []debugger.Breakpoint
	bpSel  int
	schema *debugger.Schema // what breakpoints and searches may name

	prompt *prompt

	count  int             // a count typed before a key (10n), 0 none
	vSel   int             // the selected verdict in the verdicts list
	search *debugger.Query // the last search, for ] and [
	filter *debugger.Query // the log shows only records meeting it

	status  string
	isError bool
	hit     *debugger.Breakpoint // the breakpoint the current position was reached by
	seed    uint64
	name    string

	// The picture key: the run's scenario (re-seeding changes it) and
	// registry, run again headless into a bundle.
	scen        *scenarios.Scenario
	reg         *hosts.Registry
	version     string
	pictureRoot string
	picturing   bool
}

// maxPending bounds keys queued behind a running step.
const maxPending = 32

// NewModel builds the stepper for sc at step 0. It fails when the
// scenario cannot start (an unknown host kind, an assertion the
// evaluator cannot read).
func NewModel(sc *scenarios.Scenario, reg *hosts.Registry, opts Options) (Model, error) {
	s, err := debugger.NewSession(sc, reg, opts.Seed)
	if err != nil {
		return Model{}, err
	}
	schema := debugger.NewSchema(s.Scenario(), reg)
	for _, b := range opts.Breakpoints {
		if err := schema.Check(b); err != nil {
			return Model{}, err
		}
	}
	if opts.CheckpointMem != nil {
		s.SetCheckpointMem(*opts.CheckpointMem)
	}
	m := Model{
		keys: newKeyMap(), help: newHelp(), st: newStyles(),
		width: opts.Width, height: opts.Height,
		sess: s, focus: paneEvents, schema: schema,
		bps:  withDefaultBreakpoints(opts.Breakpoints),
		seed: s.Scenario().Seed, name: s.Scenario().Name,
		scen: s.Scenario(), reg: reg, version: opts.Version, pictureRoot: opts.PictureDir,
	}
	m.host.kinds = reg
	if m.width <= 0 || m.height <= 0 {
		m.width, m.height = 80, 24
	}
	m.layout()
	fr, err := land(s, 0, m.viewParams())
	if err != nil {
		return Model{}, err
	}
	m.fr = fr
	m.layout()
	m.status = "at step 0 — n steps, c continues to the next breakpoint, ? for help"
	return m, nil
}

// withDefaultBreakpoints puts "fail" first, on, unless the caller listed it.
func withDefaultBreakpoints(bps []debugger.Breakpoint) []debugger.Breakpoint {
	out := []debugger.Breakpoint{{Kind: debugger.BreakFail}}
	for _, b := range bps {
		if b.Kind == debugger.BreakFail {
			out[0] = b
			continue
		}
		out = append(out, b)
	}
	return out
}

// Init starts nothing: NewModel already built the first frame.
func (m Model) Init() tea.Cmd { return nil }

// Update applies a message: a key, a resize, or a job handing the
// session back.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.layout()
		return m, m.maybeRefresh()
	case jobMsg:
		return m.applyJob(msg)
	case pictureMsg:
		return m.applyPicture(msg)
	case tea.PasteMsg:
		if m.prompt != nil {
			m.prompt.insert(msg.Content)
		}
		return m, nil
	case tea.KeyPressMsg:
		return m.key(msg)
	}
	return m, nil
}

// applyJob takes the session back and shows what the job produced.
func (m Model) applyJob(msg jobMsg) (tea.Model, tea.Cmd) {
	m.sess = msg.sess
	if msg.fr != nil {
		m.fr = msg.fr
		m.clampCursor()
	}
	if msg.err != nil {
		m.setError(msg.err.Error())
		m.job = nil
		m.pending = nil
		return m, nil
	}
	if msg.status != "" {
		m.status, m.isError = msg.status, false
	}
	if msg.cursor > 0 && m.fr != nil {
		m.events.cursor, m.events.top = msg.cursor, 0
		if msg.cursor >= m.fr.records {
			m.events.cursor = 0
		}
		m.focus = paneEvents
	}
	if msg.fr != nil && msg.next == nil {
		if note := checkpointNote(msg.fr.cp); note != "" {
			m.status += " · " + note
		}
	}
	if msg.next != nil {
		if m.interrupt {
			m.interrupt = false
			m.job = nil
			m.hit = nil
			return m.start(&job{kind: jobLand}, "interrupted at step "+fmtInt(m.fr.index))
		}
		m.job = msg.next
		m.sess = nil
		return m, run(msg.sess, msg.next)
	}
	if m.job != nil && m.job.kind == jobReseed {
		m.seed, m.name = m.sess.Scenario().Seed, m.sess.Scenario().Name
		m.scen = m.sess.Scenario()
	}
	finished := m.job
	if finished == nil || finished.kind != jobLand {
		m.hit = msg.hit
	}
	m.job = nil
	m.interrupt = false
	if len(m.pending) > 0 {
		next := m.pending[0]
		m.pending = m.pending[1:]
		next.vp = m.viewParams()
		return m, m.launch(next)
	}
	if finished != nil && finished.kind == jobLand && !m.refresh {
		// The frame was built for the current view: asking again could
		// only loop.
		return m, nil
	}
	return m, m.maybeRefresh()
}

// start launches j now if the session is free, queues it behind a
// running short job (a step, a redraw: any job, long ones included, waits
// its turn, so a continue typed while the screen redraws is not lost), or
// refuses while a long job runs.
func (m Model) start(j *job, status string) (tea.Model, tea.Cmd) {
	if status != "" {
		m.status, m.isError = status, false
	}
	if m.sess == nil {
		if m.job != nil && !m.job.kind.long() && len(m.pending) < maxPending {
			m.pending = append(m.pending, j)
			return m, nil
		}
		verb := "working"
		if m.job != nil {
			verb = m.job.kind.verb()
		}
		m.status, m.isError = "busy "+verb+": press esc to stop it first", true
		return m, nil
	}
	j.vp = m.viewParams()
	return m, m.launch(j)
}

// cancelPendingLong drops a long job still waiting behind a short one,
// and everything queued after it: esc reaches a continue even before it
// starts.
func (m *Model) cancelPendingLong() bool {
	for i, j := range m.pending {
		if j.kind.long() {
			m.pending = m.pending[:i:i]
			return true
		}
	}
	return false
}

// launch hands the session to j's command. Callers check sess != nil.
func (m *Model) launch(j *job) tea.Cmd {
	m.job = j
	m.refresh = false
	s := m.sess
	m.sess = nil
	if j.kind != jobLand {
		m.hit = nil
	}
	return run(s, j)
}

// maybeRefresh starts a redraw job when the view has moved beyond what
// the frame holds (and remembers to once the session is back).
func (m *Model) maybeRefresh() tea.Cmd {
	if !m.refresh && m.frameCovers() {
		return nil
	}
	if m.sess == nil {
		m.refresh = true
		return nil
	}
	j := &job{kind: jobLand, vp: m.viewParams()}
	return m.launch(j)
}

// frameCovers reports whether the frame holds every row and record the
// panes want to draw.
func (m *Model) frameCovers() bool {
	f := m.fr
	if f == nil {
		return false
	}
	n := len(f.peers)
	m.matrix.follow(n, f.swim)
	lo, hi := m.matrix.rowOff, min(m.matrix.rowOff+m.matrix.visibleRows(f.swim), n)
	if m.matrix.sel < lo {
		lo = m.matrix.sel
	}
	if m.matrix.sel >= hi {
		hi = m.matrix.sel + 1
	}
	if n > 0 && (f.row(lo) == nil || f.row(hi-1) == nil) {
		return false
	}
	if f.sel != m.matrix.sel {
		return false // the host pane's introspection is another host's
	}
	if lo, hi := m.links.shown(f.linkTotal); lo < hi && (f.linkLo > lo || hi > f.linkLo+len(f.links)) {
		return false
	}
	if f.records > 0 {
		wlo, whi := m.events.window(f)
		if f.logAt(wlo) == nil || f.logAt(whi) == nil {
			return false
		}
	}
	return true
}

// bandHalf is how many rows either side of the selected host a frame
// snapshots at least, so moving the selection rarely needs the engine.
// Snapshots cost: a hundred SWIM hosts cannot all be parsed per step.
const bandHalf = 16

// viewParams says what the next frame must hold.
func (m *Model) viewParams() viewParams {
	n := len(m.sess.Scenario().Peers)
	half := max(bandHalf, m.matrix.visibleRows(true)/2+4)
	vp := viewParams{bandLo: max(m.matrix.sel-half, 0), sel: m.matrix.sel}
	vp.bandHi = min(vp.bandLo+2*half, n)
	vp.bandLo = max(min(vp.bandLo, vp.bandHi-2*half), 0)
	if m.events.cursor > 0 {
		vp.logFrom = max(m.events.cursor-logWindow/2, 1)
	}
	vp.linkLo, vp.linkHi = m.links.window(m.linkTotal())
	vp.reuse = m.fr
	return vp
}

// linkTotal is how many links the run has (fixed for the run), from the
// frame or, before the first one, from the engine.
func (m *Model) linkTotal() int {
	switch {
	case m.fr != nil:
		return m.fr.linkTotal
	case m.sess != nil:
		return m.sess.Timeline().Engine().NumLinks()
	}
	return 0
}

// clampCursor keeps the log cursor on a record that exists.
func (m *Model) clampCursor() {
	if m.events.cursor > m.fr.records {
		m.events.cursor, m.events.top = 0, 0
	}
	m.matrix.sel = clampInt(m.matrix.sel, 0, len(m.fr.peers)-1)
}

func (m *Model) setError(s string) { m.status, m.isError = s, true }

// key handles a key press: the prompt and overlays first, then the
// stepper's bindings.
func (m Model) key(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	if m.prompt != nil {
		return m.promptKey(k)
	}
	km := m.keys
	if key.Matches(k, km.Quit) {
		return m, tea.Quit
	}
	switch m.overlay {
	case overlayHelp:
		if key.Matches(k, km.Help, km.Interrupt, km.Quit) {
			m.overlay = overlayNone
		}
		return m, nil
	case overlayBreakpoints:
		return m.breakpointsKey(k)
	case overlayVerdicts:
		return m.verdictsKey(k)
	}
	if t := k.Text; len(t) == 1 && t[0] >= '0' && t[0] <= '9' && (t[0] != '0' || m.count > 0) {
		if m.count < 1_000_000 {
			m.count = m.count*10 + int(t[0]-'0')
		}
		m.status, m.isError = "count "+fmtInt(int64(m.count))+": n p c C repeat", false
		return m, nil
	}
	count := max(m.count, 1)
	m.count = 0
	switch {
	case key.Matches(k, km.Interrupt):
		switch {
		case m.job != nil && m.job.kind.long():
			m.interrupt = true
			m.pending = nil
			m.status = "stopping…"
		case m.cancelPendingLong():
			m.status, m.isError = "cancelled before it started", false
		case m.showRec:
			m.showRec = false
			m.layout()
		}
		return m, nil
	case key.Matches(k, km.Help):
		m.overlay = overlayHelp
		return m, nil
	case key.Matches(k, km.Breakpoints):
		m.overlay = overlayBreakpoints
		return m, nil
	case key.Matches(k, km.Step):
		return m.start(&job{kind: jobStep, count: count}, "")
	case key.Matches(k, km.Back):
		return m.start(&job{kind: jobBack, count: count}, "")
	case key.Matches(k, km.Continue):
		return m.start(&job{kind: jobContinue, count: count, bps: append([]debugger.Breakpoint(nil), m.bps...)}, "continuing…")
	case key.Matches(k, km.Reverse):
		return m.start(&job{kind: jobReverse, count: count, bps: append([]debugger.Breakpoint(nil), m.bps...)}, "reverse-continuing…")
	case key.Matches(k, km.Goto):
		m.prompt = newPrompt(promptGoto, "go to step N, time (12.5s) or record (L8427): ", "")
		return m, nil
	case key.Matches(k, km.Verdicts):
		m.overlay = overlayVerdicts
		return m, nil
	case key.Matches(k, km.Search):
		label := "search (text, or type=T host=H field=V …): "
		if m.search != nil {
			label = "search (enter alone: " + m.search.String() + "): "
		}
		m.prompt = newPrompt(promptSearch, label, "")
		return m, nil
	case key.Matches(k, km.NextMatch), key.Matches(k, km.PrevMatch):
		if m.search == nil {
			m.setError("no search yet: / searches")
			return m, nil
		}
		return m.startSearch(*m.search, key.Matches(k, km.NextMatch))
	case key.Matches(k, km.Filter):
		v := ""
		if m.filter != nil {
			v = m.filter.String()
		}
		m.prompt = newPrompt(promptFilter, "filter the log (host=H type=T subject=S …; empty clears): ", v)
		return m, nil
	case key.Matches(k, km.Follow):
		m.events.cursor, m.events.top = 0, 0
		m.status, m.isError = "the log follows the current step", false
		return m, m.maybeRefresh()
	case key.Matches(k, km.Record):
		m.showRec = !m.showRec
		m.record.off = 0
		m.layout()
		return m, nil
	case key.Matches(k, km.Seed):
		m.prompt = newPrompt(promptSeed, "re-seed with: ", uitoa(m.seed+1))
		return m, nil
	case key.Matches(k, km.Focus):
		m.focus = m.nextFocus(1)
		return m, nil
	case key.Matches(k, km.FocusBack):
		m.focus = m.nextFocus(-1)
		return m, nil
	case key.Matches(k, km.Up):
		return m.scroll(-1)
	case key.Matches(k, km.Down):
		return m.scroll(1)
	case key.Matches(k, km.PageUp):
		return m.scroll(-m.pageOf())
	case key.Matches(k, km.PageDown):
		return m.scroll(m.pageOf())
	case key.Matches(k, km.Open):
		if m.focus == paneHost {
			return m.why()
		}
		return m.openStep()
	case key.Matches(k, km.Message):
		return m.followMessage()
	case key.Matches(k, km.Why):
		return m.why()
	case key.Matches(k, km.Picture):
		return m.picture()
	}
	return m, nil
}

// hostLines is the host pane's body for the selected host.
func (m *Model) hostLines() []hostLine {
	r := m.fr.row(m.matrix.sel)
	if r == nil {
		return nil
	}
	return m.host.lines(&drawCtx{f: m.fr, st: m.st}, r)
}

// followMessage goes from the record under the cursor, one end of a
// message, to its other end: from a message_sent forward to the record
// that ended it (its message_received, drop_on_send, drop_on_delivery or
// decode_error), from any of those back to its message_sent. Both are
// whole-run searches for the message id (id=orch#17), so they reach
// records not yet on screen.
func (m Model) followMessage() (tea.Model, tea.Cmd) {
	n := m.events.at(m.fr)
	l := m.fr.logAt(n)
	if n < 1 || l == nil || l.b == nil {
		m.setError("no record under the cursor")
		return m, nil
	}
	ev, err := parseEvent(l.b)
	if err != nil {
		m.setError("record " + fmtInt(n) + " cannot be read: " + err.Error())
		return m, nil
	}
	id := ev.field("id")
	if id == "" {
		m.setError("record " + fmtInt(n) + " (" + ev.typ + ") names no message: m follows message_sent, message_received, drop_on_send, drop_on_delivery, decode_error")
		return m, nil
	}
	forward := ev.typ == "message_sent"
	text := "id=" + id
	if !forward {
		text = "type=message_sent " + text
	}
	q, err := debugger.ParseQuery(text)
	if err != nil {
		m.setError("message " + id + ": " + err.Error())
		return m, nil
	}
	m.search = &q
	j := &job{kind: jobSearch, query: q, forward: forward, target: n, follow: id}
	if forward {
		return m.start(j, "following "+id+" from its send to its delivery, drop or cut…")
	}
	return m.start(j, "following "+id+" back to its send…")
}

// why goes to the record where the accusation the host cursor is on (or
// the first the host holds) arrived: the latest state_transition by which
// the selected host came to hold that member in that state at that
// incarnation. A gossiped accusation's message_received is just above it
// in the same step (m follows that message to its send).
func (m Model) why() (tea.Model, tea.Cmd) {
	if m.fr == nil || m.matrix.sel < 0 || m.matrix.sel >= len(m.fr.peers) {
		m.setError("no host selected")
		return m, nil
	}
	host := m.fr.peers[m.matrix.sel]
	l, ok := m.host.selected(m.hostLines())
	if !ok {
		m.setError(host + " holds no member suspect or dead: nothing to explain")
		return m, nil
	}
	q, err := debugger.ParseQuery("type=state_transition host=" + host + " subject=" + l.member + " to=" + l.state + " incarnation=" + strconv.FormatUint(l.inc, 10))
	if err != nil {
		m.setError(err.Error())
		return m, nil
	}
	m.search = &q
	j := &job{kind: jobSearch, query: q, forward: false, target: m.fr.records + 1,
		follow: host + "'s view of " + l.member + " became " + l.state + " (inc " + fmtUint(l.inc) + ")"}
	return m.start(j, "looking for where "+host+" learned "+l.member+" "+l.state+"…")
}

// openStep goes to the step that emitted the record under the cursor,
// keeping the cursor on it.
func (m Model) openStep() (tea.Model, tea.Cmd) {
	n := m.events.at(m.fr)
	l := m.fr.logAt(n)
	if n < 1 || l == nil || l.b == nil {
		m.setError("no record under the cursor")
		return m, nil
	}
	return m.start(&job{kind: jobToRecord, target: n}, "going to step "+fmtInt(l.step)+", which emitted record "+fmtInt(n)+"…")
}

// startSearch looks for the next (or previous) record meeting q from the
// one under the cursor.
func (m Model) startSearch(q debugger.Query, forward bool) (tea.Model, tea.Cmd) {
	m.search = &q
	dir := "next"
	if !forward {
		dir = "previous"
	}
	return m.start(&job{kind: jobSearch, query: q, forward: forward, target: m.events.at(m.fr)}, "searching for the "+dir+" "+q.String()+"…")
}

// nextFocus cycles through the panes on screen.
func (m *Model) nextFocus(dir int) paneID {
	shown := m.shownPanes()
	if len(shown) == 0 {
		return m.focus
	}
	i := 0
	for k, p := range shown {
		if p == m.focus {
			i = k
		}
	}
	return shown[(i+dir+len(shown))%len(shown)]
}

func (m *Model) pageOf() int {
	switch m.focus {
	case paneMatrix:
		return max(m.matrix.visibleRows(m.fr.swim), 1)
	case paneEvents:
		return max(m.events.body(), 1)
	}
	return 5
}

// scroll moves the focused pane's cursor or view by delta lines.
func (m Model) scroll(delta int) (tea.Model, tea.Cmd) {
	f := m.fr
	switch m.focus {
	case paneMatrix:
		m.matrix.move(delta, len(f.peers))
		m.matrix.follow(len(f.peers), f.swim)
		m.host.off = 0
	case paneHost:
		m.host.move(delta, len(m.hostLines()))
	case paneQueue:
		m.queue.scroll(delta, len(f.queue), m.queue.body())
	case paneLinks:
		rows := (f.linkTotal + m.links.columns() - 1) / m.links.columns()
		m.links.scroll(delta, rows, m.links.body())
	case paneEvents:
		if m.showRec && delta != 0 {
			m.record.off = 0
		}
		m.events.move(int64(delta), f, m.filter)
	case paneRecord:
		m.record.scroll(delta, m.record.lines(f, m.events.at(f)), m.record.body())
	}
	return m, m.maybeRefresh()
}

func uitoa(u uint64) string {
	const digits = "0123456789"
	if u == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for u > 0 {
		i--
		b[i] = digits[u%10]
		u /= 10
	}
	return string(b[i:])
}

// checkpointNote says, when a checkpoint did not fit the whole budget,
// that the session runs without and why; "" otherwise.
func checkpointNote(u engine.CheckpointUse) string {
	if u.Refused == 0 {
		return ""
	}
	return "checkpoints off: one takes " + fmtBytes(u.Refused) + ", more than the " + fmtBytes(u.Budget) +
		" budget (--checkpoint-mem); going back re-executes from the seed"
}
