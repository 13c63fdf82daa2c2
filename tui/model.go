package tui

import (
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

	bps   []debugger.Breakpoint
	bpSel int

	prompt *prompt

	status  string
	isError bool
	hit     *debugger.Breakpoint // the breakpoint the current position was reached by
	seed    uint64
	name    string
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
	if opts.CheckpointMem != nil {
		s.SetCheckpointMem(*opts.CheckpointMem)
	}
	m := Model{
		keys: newKeyMap(), help: newHelp(), st: newStyles(),
		width: opts.Width, height: opts.Height,
		sess: s, focus: paneEvents,
		bps:  withDefaultBreakpoints(opts.Breakpoints),
		seed: s.Scenario().Seed, name: s.Scenario().Name,
	}
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
// running step, or refuses while a long job runs.
func (m Model) start(j *job, status string) (tea.Model, tea.Cmd) {
	if status != "" {
		m.status, m.isError = status, false
	}
	if m.sess == nil {
		if m.job != nil && !m.job.kind.long() && !j.kind.long() && len(m.pending) < maxPending {
			m.pending = append(m.pending, j)
			return m, nil
		}
		m.status, m.isError = "busy "+m.job.kind.verb()+": press esc to stop it first", true
		return m, nil
	}
	j.vp = m.viewParams()
	return m, m.launch(j)
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
	vp := viewParams{bandLo: max(m.matrix.sel-half, 0)}
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
	}
	switch {
	case key.Matches(k, km.Interrupt):
		switch {
		case m.job != nil && m.job.kind.long():
			m.interrupt = true
			m.status = "stopping…"
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
		return m.start(&job{kind: jobStep}, "")
	case key.Matches(k, km.Back):
		return m.start(&job{kind: jobBack}, "")
	case key.Matches(k, km.Continue):
		return m.start(&job{kind: jobContinue, bps: append([]debugger.Breakpoint(nil), m.bps...)}, "continuing…")
	case key.Matches(k, km.Reverse):
		return m.start(&job{kind: jobReverse, bps: append([]debugger.Breakpoint(nil), m.bps...)}, "reverse-continuing…")
	case key.Matches(k, km.Goto):
		m.prompt = newPrompt(promptGoto, "go to step N or time (12.5s): ", "")
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
		m.showRec = !m.showRec
		m.record.off = 0
		m.layout()
		return m, nil
	}
	return m, nil
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
		m.host.scroll(delta, 1<<20, 0)
	case paneQueue:
		m.queue.scroll(delta, len(f.queue), m.queue.body())
	case paneLinks:
		rows := (f.linkTotal + m.links.columns() - 1) / m.links.columns()
		m.links.scroll(delta, rows, m.links.body())
	case paneEvents:
		if m.showRec && delta != 0 {
			m.record.off = 0
		}
		m.events.move(int64(delta), f)
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
