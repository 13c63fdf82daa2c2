package screen

import (
	"bytes"
	"slices"

	"github.com/detsim/detsim/bundle/verdict"
	"github.com/detsim/detsim/debugger"
	"github.com/detsim/detsim/engine"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/network"
)

// Frame is everything the panes draw, extracted from the session by the
// goroutine that owns it. Once built it is never written again, so the
// screen draws it while a command works on the session; its methods only
// read it.
type Frame struct {
	name, path string
	seed       uint64
	duration   int64

	index, now, records int64
	stepFrom            int64 // the first record of the current step (records+1: none)
	done, early         bool
	last                engine.StepInfo
	queueLen            int
	digest              string

	verdicts         []verdict.Partial
	pass, fail, open int
	inconclusive     int

	peers []string      // in display (natural) order: indices below are positions in it
	order *displayOrder // display position ↔ engine index
	kinds *hosts.Registry
	views string // the rows' kind declares views: the matrix's title ("membership"); "" draws the host list
	// bandLo is the peer index of rows[0]; rows cover [bandLo, bandLo+len(rows)).
	bandLo int
	rows   []*HostRow

	queue    []engine.QueueEntry
	queueNew []bool

	// links holds the views of links [linkLo, linkLo+len(links)) of the
	// linkTotal edges: only the window the links pane shows, so a
	// thousand-peer mesh's million edges are never all built.
	links                 []network.LinkView
	linkChanged           []bool
	linkLo, linkTotal     int
	linkCold, linkMutated int

	// log holds records logFrom … logFrom+len(log)-1; missing ones (not
	// cached) have a nil Bytes.
	logFrom int64
	log     []LogLine

	// diffed says the highlights compare with the step before this one.
	diffed bool

	// inspect is the selected host's introspection beyond its snapshot
	// (hosts.Inspector: SWIM's accusers and broadcast queue entries), nil
	// when its kind has none.
	inspect []byte
	sel     int                  // the host addInspect asked (ViewParams.Sel)
	cp      engine.CheckpointUse // the timeline's checkpoint cache
}

// LogLine is record N of the run as a frame holds it: the step that
// emitted it, its virtual time and its bytes (nil when the record cache
// no longer held it). It belongs to the frame: read it, never write it.
type LogLine struct {
	N, Step, At int64
	Bytes       []byte
}

// Index is the frame's step.
func (f *Frame) Index() int64 { return f.index }

// Now is the virtual time after the frame's step.
func (f *Frame) Now() int64 { return f.now }

// Records is how many records the run had written by the frame's step.
func (f *Frame) Records() int64 { return f.records }

// Done reports whether the run had ended at the frame's step.
func (f *Frame) Done() bool { return f.done }

// Last is what the frame's step dispatched.
func (f *Frame) Last() engine.StepInfo { return f.last }

// Peers are the run's hosts in display (natural) order: every host index
// of the screen is a position in it.
func (f *Frame) Peers() []string { return f.peers }

// Views names the views the hosts hold of one another ("membership"),
// as their kind declares them (hosts.Lanes): the screen draws them
// as a matrix. "" when no host shown has any.
func (f *Frame) Views() string { return f.views }

// Verdicts are the assertions' verdicts so far (at the end of the run,
// the ones batch writes).
func (f *Frame) Verdicts() []verdict.Partial { return f.verdicts }

// Fail is how many assertions had failed by the frame's step.
func (f *Frame) Fail() int { return f.fail }

// LogFrom is the first record of the window the frame holds.
func (f *Frame) LogFrom() int64 { return f.logFrom }

// LinkTotal is how many links the run has.
func (f *Frame) LinkTotal() int { return f.linkTotal }

// LinkWindow is the links [lo, hi) the frame holds the views of.
func (f *Frame) LinkWindow() (lo, hi int) { return f.linkLo, f.linkLo + len(f.links) }

// Checkpoints is the timeline's checkpoint cache at the frame.
func (f *Frame) Checkpoints() engine.CheckpointUse { return f.cp }

// link returns link i's view and changed mark if the frame holds it.
func (f *Frame) link(i int) (*network.LinkView, bool, bool) {
	if i < f.linkLo || i >= f.linkLo+len(f.links) {
		return nil, false, false
	}
	return &f.links[i-f.linkLo], f.linkChanged[i-f.linkLo], true
}

// Row returns the row of the host at display position i if the frame
// holds it.
func (f *Frame) Row(i int) *HostRow {
	if i < f.bandLo || i >= f.bandLo+len(f.rows) {
		return nil
	}
	return f.rows[i-f.bandLo]
}

// ViewParams says which parts of the run a frame must hold: the matrix
// rows around the selected host and the log window.
type ViewParams struct {
	BandLo, BandHi int   // peer rows [BandLo, BandHi) to snapshot
	LinkLo, LinkHi int   // links [LinkLo, LinkHi) to build views of
	LogFrom        int64 // first log line wanted; 0 follows the tail
	Sel            int   // the selected host, whose introspection the frame holds
	// Kinds are the host kinds whose declarations draw the hosts (views,
	// panes, record gists); nil draws every host as its snapshot.
	Kinds *hosts.Registry
	// Reuse is the frame on screen, if any: a row whose snapshot has not
	// changed since is taken from it instead of parsed again (a SWIM
	// host's snapshot lists every member; parsing fifty rows of a
	// thousand members each is most of a step's cost). Frames are never
	// written once built, so reading it beside the view is safe.
	Reuse *Frame
}

// LogWindow is how many records a frame carries: the log pane scrolls
// within them without asking the engine.
const LogWindow = 512

// queueDepth is how many upcoming queue entries a frame carries.
const queueDepth = 64

// capture is the state just before a step, kept to highlight what the
// step changed.
type capture struct {
	index  int64
	rows   []engine.HostView
	lo     int
	links  []network.LinkView
	linkLo int
	queue  []engine.QueueEntry
}

func takeCapture(s *debugger.Session, vp ViewParams) *capture {
	e := s.Timeline().Engine()
	c := &capture{index: e.Index(), lo: vp.BandLo, links: e.LinkRange(vp.LinkLo, vp.LinkHi), linkLo: vp.LinkLo, queue: e.Queue(queueDepth)}
	order := naturalOrder(e.Peers())
	for i := vp.BandLo; i < vp.BandHi && i < len(e.Peers()); i++ {
		c.rows = append(c.rows, e.HostAt(order.engine(i)))
	}
	return c
}

// build extracts a frame at the current position, highlighting changes
// against before when it was taken one step earlier.
func build(s *debugger.Session, vp ViewParams, before *capture) *Frame {
	e := s.Timeline().Engine()
	sc := s.Scenario()
	f := &Frame{
		name: sc.Name, path: sc.Path, seed: sc.Seed, duration: sc.DurationNs,
		index: e.Index(), now: e.Now(), records: e.Records(),
		done: e.Done(), early: e.EarlyTerminated(), last: e.LastStep(),
		queueLen: e.QueueLen(), digest: e.Digest(), order: naturalOrder(e.Peers()), kinds: vp.Kinds,
	}
	f.peers = f.order.ids
	// The current step's records: the last ones the cache holds with its
	// step number (LastStep does not keep a count).
	f.stepFrom = f.records + 1
	for n := f.records; n >= 1; n-- {
		r, ok := s.Record(n)
		if !ok || r.Step != f.index {
			break
		}
		f.stepFrom = n
	}
	f.addVerdicts(s.Evaluator())
	if before != nil && before.index != f.index-1 {
		before = nil
	}
	f.diffed = before != nil
	f.addRows(s, vp, before)
	f.addQueue(e.Queue(queueDepth), before)
	f.addLinks(e, vp, before)
	f.addLog(s, vp)
	f.sel = vp.Sel
	f.addInspect(s, vp.Sel)
	f.cp = s.Timeline().CheckpointUse()
	return f
}

// Build extracts the frame at the current position with nothing marked
// as changed (a long job's progress: the step before was not captured).
func Build(s *debugger.Session, vp ViewParams) *Frame { return build(s, vp, nil) }

// failedHere names the assertions whose Fail a record of the current
// step decided, in declaration order: what a "fail" breakpoint stopped
// for, which need not be the run's first failure.
func (f *Frame) failedHere() []string {
	var out []string
	for _, p := range f.verdicts {
		if p.Resolved && p.Outcome == verdict.Fail && int64(p.Line) >= f.stepFrom && int64(p.Line) <= f.records {
			out = append(out, p.Name)
		}
	}
	return out
}

// addVerdicts counts the verdicts so far (while the run goes on, from the
// streaming evaluator; once it has ended, the ones batch would write).
func (f *Frame) addVerdicts(ev *verdict.Evaluator) {
	if ev == nil {
		return
	}
	f.verdicts = ev.Status()
	if f.done {
		// The run is over: show the verdicts batch would write.
		for i, v := range ev.Finish(f.now) {
			f.verdicts[i] = verdict.Partial{Name: v.Name, Kind: v.Kind, Resolved: true, Outcome: v.Outcome, Reason: v.Reason, Line: f.verdicts[i].Line, Evidence: v.Evidence}
		}
	}
	for _, p := range f.verdicts {
		switch {
		case !p.Resolved:
			f.open++
		case p.Outcome == verdict.Fail:
			f.fail++
		case p.Outcome == verdict.Inconclusive:
			f.inconclusive++
		default:
			f.pass++
		}
	}
}

// addRows snapshots the host rows vp asks for, each diffed against the
// same host in before.
func (f *Frame) addRows(s *debugger.Session, vp ViewParams, before *capture) {
	e := s.Timeline().Engine()
	f.bandLo = max(0, min(vp.BandLo, len(f.peers)))
	for i := f.bandLo; i < vp.BandHi && i < len(f.peers); i++ {
		r := reuseRow(vp.Reuse, i, e.HostAt(f.order.engine(i)), f.order.position, len(f.peers), vp.Kinds)
		if r.cells != nil && f.views == "" {
			f.views = hosts.ViewsOf(r.kind).Title
		}
		if before != nil && i-before.lo >= 0 && i-before.lo < len(before.rows) {
			b := before.rows[i-before.lo]
			var br *HostRow
			if slices.Equal(b.Snapshot, r.view.Snapshot) {
				br = &HostRow{view: b}
			} else {
				br = reuseRow(vp.Reuse, i, b, f.order.position, len(f.peers), vp.Kinds)
			}
			diffRow(r, br)
		}
		f.rows = append(f.rows, r)
	}
}

// reuseRow is parseRow(i, v, …), taken from prev's row i when that row
// was parsed from the same snapshot bytes: the parsed parts are shared
// (read-only), the engine view and the change marks are v's own.
func reuseRow(prev *Frame, i int, v engine.HostView, peerIdx func(id string) (int, bool), npeers int, kinds *hosts.Registry) *HostRow {
	if prev != nil && len(prev.peers) == npeers {
		if p := prev.Row(i); p != nil && p.view.Snapshot != nil && bytes.Equal(p.view.Snapshot, v.Snapshot) {
			return &HostRow{idx: i, view: v, kind: p.kind, self: p.self, kv: p.kv, cells: p.cells}
		}
	}
	return parseRow(i, v, peerIdx, npeers, kinds)
}

// addQueue keeps the next queue entries, marking those the last step
// scheduled.
func (f *Frame) addQueue(queue []engine.QueueEntry, before *capture) {
	f.queue = queue
	f.queueNew = make([]bool, len(f.queue))
	if before != nil {
		seen := make(map[uint64]bool, len(before.queue))
		for _, q := range before.queue {
			seen[q.Seq] = true
		}
		for i, q := range f.queue {
			f.queueNew[i] = !seen[q.Seq]
		}
	}
}

// addLinks keeps the window of links vp asks for and the counts of all
// of them, marking those the last step changed.
func (f *Frame) addLinks(e *engine.Engine, vp ViewParams, before *capture) {
	f.linkTotal = e.NumLinks()
	f.linkCold, f.linkMutated = e.LinkCounts()
	f.linkLo = Clamp(vp.LinkLo, 0, f.linkTotal)
	f.links = e.LinkRange(f.linkLo, vp.LinkHi)
	f.linkChanged = make([]bool, len(f.links))
	if before != nil && before.linkLo == f.linkLo && len(before.links) == len(f.links) {
		for i := range f.links {
			a, b := &f.links[i], &before.links[i]
			f.linkChanged[i] = a.State != b.State || a.LastSendNs != b.LastSendNs ||
				a.InFlight != b.InFlight || !slices.Equal(a.Active, b.Active)
		}
	}
}

// addLog copies the window of cached records vp asks for; a record the
// cache lost has a nil Bytes.
func (f *Frame) addLog(s *debugger.Session, vp ViewParams) {
	lo, hi := logRange(vp, f.records)
	f.logFrom = lo
	for n := lo; n <= hi; n++ {
		l := LogLine{N: n}
		if r, ok := s.Record(n); ok {
			l.Step, l.At, l.Bytes = r.Step, r.At, slices.Clone(r.Bytes)
		}
		f.log = append(f.log, l)
	}
}

// logRange is the window of records a frame carries: LogWindow records
// from vp.LogFrom, or ending at the latest record when following the
// tail, and never further back than the cache reaches.
func logRange(vp ViewParams, records int64) (lo, hi int64) {
	if records < 1 {
		return 1, 0
	}
	lo = vp.LogFrom
	if lo <= 0 || lo > records {
		lo = records - LogWindow + 1
	}
	lo = max(lo, records-debugger.RecordCache+1, 1)
	hi = min(records, lo+LogWindow-1)
	return lo, hi
}

// Land puts the session at step i (clamped to the run) and builds its
// frame, highlighting what step i changed: it goes to i-1, captures, and
// steps. When the log window needs records the cache lost, it re-executes
// once more from the latest checkpoint before them.
func Land(s *debugger.Session, i int64, vp ViewParams) (*Frame, error) {
	tl := s.Timeline()
	refilled := false
	for {
		if i <= 0 {
			if _, err := tl.Goto(0); err != nil {
				return nil, err
			}
			return build(s, vp, nil), nil
		}
		reached, err := tl.Goto(i - 1)
		if err != nil {
			return nil, err
		}
		if reached < i-1 || tl.Engine().Done() {
			// The run ends before i: land on its last step instead.
			i = reached
			continue
		}
		before := takeCapture(s, vp)
		tl.Step()
		if !refilled {
			if lo, hi := logRange(vp, tl.Engine().Records()); s.MissingRecord(lo, hi) != 0 {
				refilled = true
				if err := s.RewindBefore(s.MissingRecord(lo, hi)); err != nil {
					return nil, err
				}
				continue
			}
		}
		return build(s, vp, before), nil
	}
}

// StepOnce dispatches one step from the current position and builds the
// frame with its changes highlighted; false when the run has ended.
func StepOnce(s *debugger.Session, vp ViewParams) (*Frame, bool, error) {
	tl := s.Timeline()
	if tl.Engine().Done() {
		return nil, false, nil
	}
	f, err := StepWith(s, vp, func() { tl.Step() })
	return f, true, err
}

// StepWith captures, runs step (which dispatches exactly one step: a
// plain one, or one with breakpoints checked) and builds the frame with
// what it changed highlighted, refilling the log when the cache lost
// records it needs.
func StepWith(s *debugger.Session, vp ViewParams, step func()) (*Frame, error) {
	before := takeCapture(s, vp)
	step()
	lo, hi := logRange(vp, s.Timeline().Engine().Records())
	if s.MissingRecord(lo, hi) != 0 {
		return Land(s, s.Timeline().Engine().Index(), vp)
	}
	return build(s, vp, before), nil
}
