package tui

import (
	"bytes"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/detsim/detsim/causal"
	"github.com/detsim/detsim/debugger"
	"github.com/detsim/detsim/engine"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/scenarios"
	"github.com/detsim/detsim/tui/screen"
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
	// CheckpointBudget, when set, is the byte budget of the session's
	// checkpoints (default engine.DefaultCheckpointBudget; 0: none).
	CheckpointBudget *int64
	// Watch, when set, is the value } and { follow (checked against the
	// scenario with debugger.Schema.CheckWatch).
	Watch *debugger.Watch
}

// Model is the stepper as a bubbletea model. Update never runs the
// engine: every engine operation is a command that takes the session and
// returns it in a jobMsg, so the session has one owner at a time. While a
// command holds it, sess is nil and the panes draw the last frame. What
// is on screen (the frame, the layout, the panes' cursors and scroll) is
// scr; Model keeps what the keys decide beyond it.
type Model struct {
	keys screen.KeyMap
	scr  screen.Screen

	sess      *debugger.Session // nil while a job holds it
	job       *job              // the job in progress, nil when idle
	pending   []*job
	interrupt bool
	refresh   bool // the view needs a frame the current one cannot give

	overlay    screen.Overlay
	helpScroll int // how far the key help is scrolled

	bps    []debugger.Breakpoint
	bpSel  int
	schema *debugger.Schema // what breakpoints and searches may name

	prompt *prompt

	count  int             // a count typed before a key (10n), 0 none
	vSel   int             // the selected verdict in the verdicts list
	search *debugger.Query // the last search, for ] and [
	filter *debugger.Query // the log shows only records meeting it
	watch  *debugger.Watch // the watched value, for } and {

	chain    *causal.Chain // the chain W explained, shown in OverlayChain
	chainSel int

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
	if opts.CheckpointBudget != nil {
		s.SetCheckpointBudget(*opts.CheckpointBudget)
	}
	w, h := opts.Width, opts.Height
	if w <= 0 || h <= 0 {
		w, h = 80, 24
	}
	scr, err := screen.Open(s, reg, w, h, 0)
	if err != nil {
		return Model{}, err
	}
	m := Model{
		keys: screen.NewKeyMap(), scr: scr,
		sess: s, schema: schema,
		bps:  withDefaultBreakpoints(opts.Breakpoints),
		seed: s.Scenario().Seed, name: s.Scenario().Name,
		scen: s.Scenario(), reg: reg, version: opts.Version, pictureRoot: opts.PictureDir,
		watch: opts.Watch,
	}
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
		m.scr.Resize(msg.Width, msg.Height)
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
		m.scr.Show(msg.fr)
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
	if msg.cursor > 0 && m.frame() != nil {
		m.scr.PutCursor(msg.cursor)
	}
	if msg.chain != nil {
		m.chain, m.chainSel, m.overlay = msg.chain, 0, screen.OverlayChain
	}
	if msg.fr != nil && msg.next == nil {
		if note := checkpointNote(msg.fr.Checkpoints()); note != "" {
			m.status += " · " + note
		}
	}
	if msg.next != nil {
		if m.interrupt {
			m.interrupt = false
			m.job = nil
			m.hit = nil
			return m.start(&job{kind: jobLand}, "interrupted at step "+screen.FmtInt(m.frame().Index()))
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
	if msg.hit != nil && msg.fr != nil {
		// As a debugger switches to the thread that stopped, the panes
		// go to the host whose step the breakpoint stopped at: with a
		// thousand hosts it is rarely among those on screen (issue 33).
		// The frame built for the old selection does not cover the new
		// one; maybeRefresh below asks for one that does.
		if h := msg.fr.Last().Host; h != "" {
			m.scr.SelectHost(h)
		}
	}
	m.job = nil
	m.interrupt = false
	if len(m.pending) > 0 {
		next := m.pending[0]
		m.pending = m.pending[1:]
		next.vp = m.scr.ViewParams()
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
	j.vp = m.scr.ViewParams()
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
	if !m.refresh && m.scr.FrameCovers() {
		return nil
	}
	if m.sess == nil {
		m.refresh = true
		return nil
	}
	j := &job{kind: jobLand, vp: m.scr.ViewParams()}
	return m.launch(j)
}

// frame is the frame on screen.
func (m *Model) frame() *screen.Frame { return m.scr.Frame() }

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
	case screen.OverlayHelp:
		return m.helpKey(k)
	case screen.OverlayBreakpoints:
		return m.breakpointsKey(k)
	case screen.OverlayVerdicts:
		return m.verdictsKey(k)
	case screen.OverlayChain:
		return m.chainKey(k)
	}
	if t := k.Text; len(t) == 1 && t[0] >= '0' && t[0] <= '9' && (t[0] != '0' || m.count > 0) {
		if m.count < 1_000_000 {
			m.count = m.count*10 + int(t[0]-'0')
		}
		m.status, m.isError = "count "+screen.FmtInt(int64(m.count))+": n p c C repeat", false
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
		case m.scr.CloseRecord():
		}
		return m, nil
	case key.Matches(k, km.Help):
		m.overlay, m.helpScroll = screen.OverlayHelp, 0
		return m, nil
	case key.Matches(k, km.Breakpoints):
		m.overlay = screen.OverlayBreakpoints
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
	case key.Matches(k, km.Host):
		m.prompt = newPrompt(promptHost, "select host (its name, or the start of one): ", "")
		return m, nil
	case key.Matches(k, km.Verdicts):
		m.overlay = screen.OverlayVerdicts
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
		m.scr.FollowLog()
		m.status, m.isError = "the log follows the current step", false
		return m, m.maybeRefresh()
	case key.Matches(k, km.Record):
		m.scr.ToggleRecord()
		return m, nil
	case key.Matches(k, km.Seed):
		m.prompt = newPrompt(promptSeed, "re-seed with: ", strconv.FormatUint(m.seed+1, 10))
		return m, nil
	case key.Matches(k, km.Focus):
		m.scr.CycleFocus(1)
		return m, nil
	case key.Matches(k, km.FocusBack):
		m.scr.CycleFocus(-1)
		return m, nil
	case key.Matches(k, km.Up):
		return m.scroll(-1)
	case key.Matches(k, km.Down):
		return m.scroll(1)
	case key.Matches(k, km.PageUp):
		return m.scroll(-m.scr.Page())
	case key.Matches(k, km.PageDown):
		return m.scroll(m.scr.Page())
	case key.Matches(k, km.Open):
		if m.scr.Focus() == screen.PaneHost {
			return m.why()
		}
		return m.openStep()
	case key.Matches(k, km.Message):
		return m.followMessage()
	case key.Matches(k, km.Why):
		return m.why()
	case key.Matches(k, km.Chain):
		return m.explain()
	// The watch prompt opens as the filter's does above, alike in shape:
	// each with its own value and hint.
	case key.Matches(k, km.Watch):
		v := ""
		if m.watch != nil {
			v = m.watch.String()
		}
		m.prompt = newPrompt(promptWatch, "watch (host=H member=M field=F; empty clears): ", v)
		return m, nil
	case key.Matches(k, km.NextChange), key.Matches(k, km.PrevChange):
		if m.watch == nil {
			m.setError("no watch yet: = watches a value (host=H member=M field=F)")
			return m, nil
		}
		return m.startWatch(key.Matches(k, km.NextChange))
	case key.Matches(k, km.Picture):
		return m.picture()
	}
	return m, nil
}

// followMessage goes from the record under the cursor, one end of a
// message, to its other end: from a message_sent forward to the record
// that ended it (its message_received, drop_on_send, drop_on_delivery or
// decode_error), from any of those back to its message_sent. Both are
// whole-run searches for the message id (id=orch#17), so they reach
// records not yet on screen.
func (m Model) followMessage() (tea.Model, tea.Cmd) {
	n := m.scr.LogCursor()
	l := m.frame().LogAt(n)
	if n < 1 || l == nil || l.Bytes == nil {
		m.setError("no record under the cursor")
		return m, nil
	}
	ev, err := screen.ParseEvent(l.Bytes)
	if err != nil {
		m.setError("record " + screen.FmtInt(n) + " cannot be read: " + err.Error())
		return m, nil
	}
	id := ev.Field("id")
	if id == "" {
		m.setError("record " + screen.FmtInt(n) + " (" + ev.Type + ") names no message: m follows a record with an id (a send, its receive, drop_on_send, drop_on_delivery, decode_error)")
		return m, nil
	}
	send := sendType(m.reg, ev)
	forward := ev.Type == send
	text := "id=" + id
	if !forward && send != "" {
		text = "type=" + send + " " + text
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

// sendType is the record type that sends a message with an id, as the
// kinds declare their events (hosts.Records): a "<kind>_sent"
// prototype carrying an id (SWIM's message_sent). It is looked up in the
// record's own kind, else (the engine's drops of a message) in the one
// kind that has such a type; "" when none does.
func sendType(reg *hosts.Registry, ev screen.Event) string {
	var found []string
	for _, k := range reg.Kinds() {
		for _, e := range hosts.EventsOf(k) {
			t := e.Type()
			if !strings.HasSuffix(t, "_sent") || !bytes.Contains(e.AppendJSON(nil), []byte(`"id":`)) || slices.Contains(found, t) {
				continue
			}
			if k.Tag() == ev.Tag {
				return t
			}
			found = append(found, t)
		}
	}
	if len(found) == 1 {
		return found[0]
	}
	return ""
}

// why goes to the record that brought what the host pane's line under
// the cursor shows (or the first line about a member): SWIM's pane names
// the latest state_transition by which the selected host came to hold
// an accused member in that state at that incarnation. A gossiped
// accusation's message_received is just above it in the same step (m
// follows that message to its send).
func (m Model) why() (tea.Model, tea.Cmd) {
	host, ok := m.scr.SelectedHost()
	if !ok {
		m.setError("no host selected")
		return m, nil
	}
	a, ok := m.scr.Target()
	if !ok || a.Find == "" {
		m.setError("no line of " + host + "'s pane names a record to go back to (in SWIM's: a suspect or dead member)")
		return m, nil
	}
	q, err := debugger.ParseQuery(a.Find)
	if err != nil {
		m.setError(err.Error())
		return m, nil
	}
	m.search = &q
	j := &job{kind: jobSearch, query: q, forward: false, target: m.frame().Records() + 1, follow: a.Follow, brought: true}
	return m.start(j, "looking for where "+a.Follow+"…")
}

// openStep goes to the step that emitted the record under the cursor,
// keeping the cursor on it.
func (m Model) openStep() (tea.Model, tea.Cmd) {
	n := m.scr.LogCursor()
	l := m.frame().LogAt(n)
	if n < 1 || l == nil || l.Bytes == nil {
		m.setError("no record under the cursor")
		return m, nil
	}
	return m.start(&job{kind: jobToRecord, target: n}, "going to step "+screen.FmtInt(l.Step)+", which emitted record "+screen.FmtInt(n)+"…")
}

// startSearch looks for the next (or previous) record meeting q from the
// one under the cursor.
func (m Model) startSearch(q debugger.Query, forward bool) (tea.Model, tea.Cmd) {
	m.search = &q
	dir := "next"
	if !forward {
		dir = "previous"
	}
	return m.start(&job{kind: jobSearch, query: q, forward: forward, target: m.scr.LogCursor()}, "searching for the "+dir+" "+q.String()+"…")
}

// scroll moves the focused pane's cursor or view by delta lines. With a
// log filter, moving past the last match the frame holds searches the
// whole run for the next one that way, so the filter never stops at the
// edge of the record window.
func (m Model) scroll(delta int) (tea.Model, tea.Cmd) {
	if m.scr.Scroll(delta, m.filter) && m.filter != nil {
		return m.startSearch(*m.filter, delta > 0)
	}
	return m, m.maybeRefresh()
}

// checkpointNote says, when a checkpoint did not fit the whole budget,
// that the session runs without and why; "" otherwise.
func checkpointNote(u engine.CheckpointUse) string {
	if u.Refused == 0 {
		return ""
	}
	return "checkpoints off: one takes " + screen.FmtBytes(u.Refused) + ", more than the " + screen.FmtBytes(u.Budget) +
		" budget (--checkpoint-budget); going back re-executes from the seed"
}
