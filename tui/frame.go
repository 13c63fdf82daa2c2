package tui

import (
	"slices"

	"github.com/detsim/detsim/bundle/verdict"
	"github.com/detsim/detsim/engine"
	"github.com/detsim/detsim/network"
)

// frame is everything the panes draw, extracted from the session by the
// goroutine that owns it. Once built it is never written again, so View
// reads it while a command works on the session.
type frame struct {
	name, path string
	seed       uint64
	duration   int64

	index, now, records int64
	done, early         bool
	last                engine.StepInfo
	queueLen            int
	digest              string

	verdicts         []verdict.Partial
	pass, fail, open int
	inconclusive     int
	firstFail        string // the first assertion to fail, "" if none yet

	peers []string
	swim  bool // the rows have SWIM's shape: draw the membership matrix
	// bandLo is the peer index of rows[0]; rows cover [bandLo, bandLo+len(rows)).
	bandLo int
	rows   []*hostRow

	queue    []engine.QueueEntry
	queueNew []bool

	links       []network.LinkView
	linkChanged []bool

	// log holds records logFrom … logFrom+len(log)-1; missing ones (not
	// cached) have a nil b.
	logFrom int64
	log     []logLine

	// diffed says the highlights compare with the step before this one.
	diffed bool
}

type logLine struct {
	n, step, at int64
	b           []byte
}

// row returns peer i's row if the frame holds it.
func (f *frame) row(i int) *hostRow {
	if i < f.bandLo || i >= f.bandLo+len(f.rows) {
		return nil
	}
	return f.rows[i-f.bandLo]
}

// viewParams says which parts of the run a frame must hold: the matrix
// rows around the selected host and the log window.
type viewParams struct {
	bandLo, bandHi int   // peer rows [bandLo, bandHi) to snapshot
	logFrom        int64 // first log line wanted; 0 follows the tail
}

// logWindow is how many records a frame carries: the log pane scrolls
// within them without asking the engine.
const logWindow = 512

// queueDepth is how many upcoming queue entries a frame carries.
const queueDepth = 64

// capture is the state just before a step, kept to highlight what the
// step changed.
type capture struct {
	index int64
	rows  []engine.HostView
	lo    int
	links []network.LinkView
	queue []engine.QueueEntry
}

func (s *Session) capture(vp viewParams) *capture {
	e := s.tl.Engine()
	c := &capture{index: e.Index(), lo: vp.bandLo, links: e.Links(), queue: e.Queue(queueDepth)}
	for i := vp.bandLo; i < vp.bandHi && i < len(e.Peers()); i++ {
		c.rows = append(c.rows, e.HostAt(i))
	}
	return c
}

// build extracts a frame at the current position, highlighting changes
// against before when it was taken one step earlier.
func (s *Session) build(vp viewParams, before *capture) *frame {
	e := s.tl.Engine()
	sc := s.sc
	f := &frame{
		name: sc.Name, path: sc.Path, seed: sc.Seed, duration: sc.DurationNs,
		index: e.Index(), now: e.Now(), records: e.Records(),
		done: e.Done(), early: e.EarlyTerminated(), last: e.LastStep(),
		queueLen: e.QueueLen(), digest: e.Digest(), peers: e.Peers(),
	}
	if ev := s.evaluator(); ev != nil {
		f.verdicts = ev.Status()
		f.firstFail, _, _ = ev.FirstFailure()
		if f.done {
			// The run is over: show the verdicts batch would write.
			for i, v := range ev.Finish(f.now) {
				f.verdicts[i] = verdict.Partial{Name: v.Name, Kind: v.Kind, Resolved: true, Outcome: v.Outcome, Reason: v.Reason, Line: f.verdicts[i].Line}
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
	if before != nil && before.index != f.index-1 {
		before = nil
	}
	f.diffed = before != nil

	f.bandLo = max(0, min(vp.bandLo, len(f.peers)))
	for i := f.bandLo; i < vp.bandHi && i < len(f.peers); i++ {
		r := parseRow(i, e.HostAt(i), s.peerIdx, len(f.peers))
		if r.swim != nil {
			f.swim = true
		}
		if before != nil && i-before.lo >= 0 && i-before.lo < len(before.rows) {
			b := before.rows[i-before.lo]
			var br *hostRow
			if slices.Equal(b.Snapshot, r.view.Snapshot) {
				br = &hostRow{view: b}
			} else {
				br = parseRow(i, b, s.peerIdx, len(f.peers))
			}
			diffRow(r, br)
		}
		f.rows = append(f.rows, r)
	}

	f.queue = e.Queue(queueDepth)
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

	f.links = e.Links()
	f.linkChanged = make([]bool, len(f.links))
	if before != nil && len(before.links) == len(f.links) {
		for i := range f.links {
			a, b := &f.links[i], &before.links[i]
			f.linkChanged[i] = a.State != b.State || a.LastSendNs != b.LastSendNs ||
				a.InFlight != b.InFlight || !slices.Equal(a.Active, b.Active)
		}
	}

	lo, hi := logRange(vp, f.records)
	f.logFrom = lo
	for n := lo; n <= hi; n++ {
		l := logLine{n: n}
		if sl, ok := s.ring.get(n); ok {
			l.step, l.at, l.b = sl.step, sl.at, slices.Clone(sl.b)
		}
		f.log = append(f.log, l)
	}
	return f
}

// logRange is the window of records a frame carries: logWindow records
// from vp.logFrom, or ending at the latest record when following the
// tail, and never further back than the cache reaches.
func logRange(vp viewParams, records int64) (lo, hi int64) {
	if records < 1 {
		return 1, 0
	}
	lo = vp.logFrom
	if lo <= 0 || lo > records {
		lo = records - logWindow + 1
	}
	lo = max(lo, records-ringSize+1, 1)
	hi = min(records, lo+logWindow-1)
	return lo, hi
}

// land puts the session at step i (clamped to the run) and builds its
// frame, highlighting what step i changed: it goes to i-1, captures, and
// steps. When the log window needs records the cache lost, it re-executes
// once more from the latest checkpoint before them.
func (s *Session) land(i int64, vp viewParams) (*frame, error) {
	refilled := false
	for {
		if i <= 0 {
			if _, err := s.tl.Goto(0); err != nil {
				return nil, err
			}
			return s.build(vp, nil), nil
		}
		reached, err := s.tl.Goto(i - 1)
		if err != nil {
			return nil, err
		}
		if reached < i-1 || s.tl.Engine().Done() {
			// The run ends before i: land on its last step instead.
			i = reached
			continue
		}
		before := s.capture(vp)
		s.tl.Step()
		if !refilled {
			if lo, hi := logRange(vp, s.tl.Engine().Records()); s.ring.missing(lo, hi) != 0 {
				refilled = true
				if err := s.rewindBefore(s.ring.missing(lo, hi)); err != nil {
					return nil, err
				}
				continue
			}
		}
		return s.build(vp, before), nil
	}
}

// rewindBefore moves the timeline to the latest checkpoint (or the
// start) whose records end before line, so re-executing from there
// writes line again.
func (s *Session) rewindBefore(line int64) error {
	target := int64(0)
	for _, m := range s.tl.Marks() {
		if m.Records < line {
			target = m.Index
		}
	}
	_, err := s.tl.Goto(target)
	return err
}

// stepOnce dispatches one step from the current position and builds the
// frame with its changes highlighted.
func (s *Session) stepOnce(vp viewParams) (*frame, bool, error) {
	if s.tl.Engine().Done() {
		return nil, false, nil
	}
	before := s.capture(vp)
	s.tl.Step()
	lo, hi := logRange(vp, s.tl.Engine().Records())
	if s.ring.missing(lo, hi) != 0 {
		f, err := s.land(s.tl.Engine().Index(), vp)
		return f, true, err
	}
	return s.build(vp, before), true, nil
}
