package tui

import (
	"fmt"
	"strconv"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/detsim/detsim/causal"
	"github.com/detsim/detsim/debugger"
	"github.com/detsim/detsim/engine"
	"github.com/detsim/detsim/tui/screen"
)

// jobKind is something the stepper does with the session. Every one runs
// inside a command on the goroutine that holds the session; long ones run
// in chunks of about chunkTime and come back between chunks, so the UI
// stays responsive and esc can stop them.
type jobKind int

const (
	jobStep       jobKind = iota // one step forward
	jobBack                      // one step back
	jobLand                      // rebuild the frame at the current step (selection, scroll, resize)
	jobContinue                  // forward to the next breakpoint
	jobReverse                   // back to the previous breakpoint
	jobGotoStep                  // to step target
	jobGotoTime                  // to the first step at or after virtual time target
	jobReseed                    // a new run with seed, at step 0
	jobGotoRecord                // to the step that emitted record target
	jobToRecord                  // to the step of cached record target (enter on the log)
	jobSearch                    // to the next / previous record meeting query
	jobChain                     // the causal chain of a record (W): reads the session, moves nothing
	jobWatch                     // to the next / previous change of a watched value
)

// long reports whether the job runs in chunks (and esc stops it).
func (k jobKind) long() bool {
	return k == jobContinue || k == jobReverse || k == jobGotoStep || k == jobGotoTime || k == jobGotoRecord || k == jobSearch || k == jobWatch
}

func (k jobKind) verb() string {
	return [...]string{"stepping", "stepping back", "redrawing", "continuing", "reverse-continuing", "going to step", "going to time", "re-executing", "going to record", "going to the record's step", "searching", "explaining", "following the watch"}[k]
}

// job is one request and, for long ones, how far it got.
type job struct {
	kind   jobKind
	bps    []debugger.Breakpoint // a copy: the list may change while the job runs
	target int64
	seed   uint64
	vp     screen.ViewParams
	count  int // repeat: steps, or breakpoint hits (0 = 1)

	query   debugger.Query // search
	forward bool
	search  debugger.SearchState
	follow  string // search: what it follows (a message id, an accusation), for the status
	brought bool   // search: for the record that brought a pane line (w)

	subject string // chain: with follow (the host), the member whose view to explain
	at      int64  // chain: at this virtual time

	watch      debugger.Watch // watch: the value followed
	watchState debugger.WatchState

	// Set by begin when the first chunk starts.
	started    time.Time
	startIndex int64
	u          int64     // reverse: the latest step still to search
	framed     time.Time // when progress last built a frame
}

// begin records where j starts, before its first chunk runs.
func (j *job) begin(s *debugger.Session) {
	j.started, j.startIndex = time.Now(), s.Timeline().Engine().Index()
	j.u = j.startIndex - 1 // reverse: the step before the current one may hit
}

// jobMsg hands the session back to Update with the frame to show. A
// non-nil next means the job is not finished: Update starts the next
// chunk unless esc was pressed.
type jobMsg struct {
	sess   *debugger.Session
	fr     *screen.Frame
	next   *job
	status string
	hit    *debugger.Breakpoint // the breakpoint it stopped at, if any
	cursor int64                // put the log cursor on this record (0: leave it)
	chain  *causal.Chain        // a chain to show (W)
	err    error
}

// chunkTime is how long one chunk of a long job runs before handing the
// session back; key presses wait at most this long.
const chunkTime = 40 * time.Millisecond

// run returns the command that performs j on s.
func run(s *debugger.Session, j *job) tea.Cmd {
	return func() tea.Msg { return execute(s, j) }
}

// execute performs one chunk of j. It touches nothing but s and j.
func execute(s *debugger.Session, j *job) (msg jobMsg) {
	defer func() {
		// A host or engine panic is a bug the user must see, not a
		// frozen screen: report it and keep the session.
		if r := recover(); r != nil {
			msg = jobMsg{sess: s, err: fmt.Errorf("internal error: %v", r)}
		}
	}()
	if j.started.IsZero() {
		j.begin(s)
	}
	deadline := time.Now().Add(chunkTime)
	pause := func() bool { return time.Now().After(deadline) }
	switch j.kind {
	case jobStep:
		return stepJob(s, j)
	case jobBack:
		return backJob(s, j)
	case jobLand:
		return finish(s, j, s.Timeline().Engine().Index(), "")
	case jobReseed:
		return reseedJob(s, j)
	case jobContinue:
		return continueJob(s, j, pause)
	case jobReverse:
		return reverseJob(s, j, pause)
	case jobGotoStep:
		return gotoStepJob(s, j, pause)
	case jobGotoTime:
		return gotoTimeJob(s, j, pause)
	case jobGotoRecord:
		return gotoRecordJob(s, j, pause)
	case jobToRecord:
		return toRecordJob(s, j)
	case jobSearch:
		return searchJob(s, j, pause)
	case jobChain:
		return chainJob(s, j)
	case jobWatch:
		return watchJob(s, j, pause)
	}
	return jobMsg{sess: s, err: fmt.Errorf("unknown job %d", j.kind)}
}

func stepJob(s *debugger.Session, j *job) jobMsg {
	if j.count > 1 {
		i := s.Timeline().Engine().Index()
		msg := finish(s, j, i+int64(j.count), "")
		if msg.fr != nil {
			msg.status = screen.FmtInt(msg.fr.Index()-i) + " steps to step " + screen.FmtInt(msg.fr.Index()) + ": " + screen.DescribeStep(msg.fr.Last())
			if msg.fr.Index() < i+int64(j.count) {
				msg.status += " (the run ended)"
			}
		}
		return msg
	}
	fr, ok, err := screen.StepOnce(s, j.vp)
	if !ok && err == nil {
		return finish(s, j, s.Timeline().Engine().Index(), "the run has ended: nothing to step")
	}
	msg := jobMsg{sess: s, fr: fr, err: err}
	if fr != nil {
		msg.status = "step " + screen.FmtInt(fr.Index()) + ": " + screen.DescribeStep(fr.Last())
	}
	return msg
}

func backJob(s *debugger.Session, j *job) jobMsg {
	i := s.Timeline().Engine().Index()
	if i == 0 {
		return finish(s, j, 0, "at step 0: nothing before it")
	}
	to := max(i-int64(max(j.count, 1)), 0)
	return finish(s, j, to, "back to step "+screen.FmtInt(to))
}

func reseedJob(s *debugger.Session, j *job) jobMsg {
	ns, err := s.Reseed(j.seed)
	if err != nil {
		return jobMsg{sess: s, err: err}
	}
	return finish(ns, j, 0, fmt.Sprintf("re-seeded with %d: re-executing from step 0", j.seed))
}

func continueJob(s *debugger.Session, j *job, pause debugger.Pause) jobMsg {
	hit, finished := s.Forward(j.bps, func(engine.StepInfo) bool { return nextEnds(s) }, pause)
	if !finished {
		return progress(s, j)
	}
	if hit == nil && nextEnds(s) {
		// One short of the end: take the last step with the breakpoints
		// armed, highlighting what it changed.
		fr, err := screen.StepWith(s, j.vp, func() { hit, _ = s.Forward(j.bps, nil, nil) })
		idx := s.Timeline().Engine().Index()
		msg := jobMsg{sess: s, fr: fr, hit: hit, err: err, status: "no breakpoint hit: the run ended at step " + screen.FmtInt(idx)}
		if hit != nil {
			msg.status = "breakpoint " + hit.String() + " (" + screen.DescribeBreak(*hit) + ") at step " + screen.FmtInt(idx)
		}
		return msg
	}
	idx := s.Timeline().Engine().Index()
	if hit != nil && j.count > 1 && !s.Timeline().Engine().Done() {
		j.count--
		return progress(s, j)
	}
	if hit != nil {
		return finishAt(s, j, idx, hit, "breakpoint "+hit.String()+" ("+screen.DescribeBreak(*hit)+") at step "+screen.FmtInt(idx))
	}
	if idx == j.startIndex {
		return finish(s, j, idx, "the run has ended: nothing to continue")
	}
	return finish(s, j, idx, "no breakpoint hit: the run ended at step "+screen.FmtInt(idx))
}

func reverseJob(s *debugger.Session, j *job, pause debugger.Pause) jobMsg {
	found, hit, next, err := s.ReverseSearch(j.u, j.bps, pause)
	if err != nil {
		return jobMsg{sess: s, err: err}
	}
	if next > 0 {
		j.u = next
		return progress(s, j)
	}
	if found > 0 && j.count > 1 {
		j.count--
		j.u = found - 1
		return progress(s, j)
	}
	if found >= 0 {
		return finishAt(s, j, found, hit, "reverse: breakpoint "+hit.String()+" ("+screen.DescribeBreak(*hit)+") at step "+screen.FmtInt(found))
	}
	return finish(s, j, 0, "reverse: no breakpoint before step "+screen.FmtInt(j.startIndex)+"; at step 0")
}

func gotoStepJob(s *debugger.Session, j *job, pause debugger.Pause) jobMsg {
	if j.target <= s.Timeline().Engine().Index() {
		return finish(s, j, j.target, "at step "+screen.FmtInt(j.target))
	}
	// Stop one short (of the target, or of the end of the run): landing
	// then steps once from there to highlight what the step changed,
	// instead of going back to the step before, which re-executes from a
	// checkpoint.
	if s.Timeline().Engine().Index() < j.target-1 && !nextEnds(s) {
		if _, finished := s.Forward(nil, func(info engine.StepInfo) bool { return info.Index >= j.target-1 || nextEnds(s) }, pause); !finished {
			return progress(s, j)
		}
	}
	idx := s.Timeline().Engine().Index()
	switch e := s.Timeline().Engine(); {
	case !e.Done() && idx == j.target-1:
		return finish(s, j, j.target, "at step "+screen.FmtInt(j.target))
	case !e.Done() && nextEnds(s):
		return finish(s, j, idx+1, "step "+screen.FmtInt(j.target)+" is past the end: clamped to the last step, "+screen.FmtInt(idx+1))
	case idx < j.target:
		return finish(s, j, idx, "step "+screen.FmtInt(j.target)+" is past the end: clamped to the last step, "+screen.FmtInt(idx))
	}
	return finish(s, j, idx, "at step "+screen.FmtInt(idx))
}

// nextEnds reports whether the next step ends the run (the Terminate
// entry): a forward move stops before it, so landing on the last step
// steps once instead of re-executing from a checkpoint. (Early
// termination and output caps cannot be foreseen; landing after them
// re-executes.)
func nextEnds(s *debugger.Session) bool {
	n, ok := s.Timeline().Engine().Next()
	return ok && n.Kind == "Terminate"
}

// beforeTime reports whether the next step is the first at or after t,
// or the run's last.
func beforeTime(s *debugger.Session, t int64) bool {
	n, ok := s.Timeline().Engine().Next()
	return ok && (n.At >= t || n.Kind == "Terminate")
}

func gotoTimeJob(s *debugger.Session, j *job, pause debugger.Pause) jobMsg {
	t := j.target
	if t <= 0 {
		return finish(s, j, 0, "at step 0 (t=+0s)")
	}
	if e := s.Timeline().Engine(); e.Now() < t && !e.Done() {
		// Forward: stop one short of the first step at or after t (or of
		// the last) and land by stepping once.
		if !beforeTime(s, t) {
			if _, finished := s.Forward(nil, func(engine.StepInfo) bool { return beforeTime(s, t) }, pause); !finished {
				return progress(s, j)
			}
		}
		if n, ok := e.Next(); ok && beforeTime(s, t) {
			if n.At < t {
				return finish(s, j, e.Index()+1, "t="+screen.FmtTime(t)+" is past the end: clamped to the last step, "+screen.FmtInt(e.Index()+1)+" at t="+screen.FmtTime(n.At))
			}
			return finish(s, j, e.Index()+1, "at step "+screen.FmtInt(e.Index()+1)+", the first at or after t="+screen.FmtTime(t))
		}
	}
	finished, err := s.GotoTime(t, pause)
	if err != nil {
		return jobMsg{sess: s, err: err}
	}
	if !finished {
		return progress(s, j)
	}
	e := s.Timeline().Engine()
	if e.Now() < t {
		return finish(s, j, e.Index(), "t="+screen.FmtTime(t)+" is past the end: clamped to the last step, "+screen.FmtInt(e.Index())+" at t="+screen.FmtTime(e.Now()))
	}
	return finish(s, j, e.Index(), "at step "+screen.FmtInt(e.Index())+", the first at or after t="+screen.FmtTime(t))
}

func gotoRecordJob(s *debugger.Session, j *job, pause debugger.Pause) jobMsg {
	done, err := s.GotoRecord(j.target, pause)
	if err != nil {
		return jobMsg{sess: s, err: err}
	}
	if !done {
		return progress(s, j)
	}
	e := s.Timeline().Engine()
	n, status := j.target, ""
	if e.Records() < n {
		n = e.Records()
		status = "record " + screen.FmtInt(j.target) + " is past the end: the run has " + screen.FmtInt(n) + " records; clamped to the last, at step " + screen.FmtInt(e.Index())
	} else {
		status = "record " + screen.FmtInt(n) + " (events.ndjson#L" + strconv.FormatInt(n, 10) + ") was emitted by step " + screen.FmtInt(e.Index())
	}
	j.vp.LogFrom = max(n-screen.LogWindow/2, 1)
	msg := finish(s, j, e.Index(), status)
	msg.cursor = n
	return msg
}

func toRecordJob(s *debugger.Session, j *job) jobMsg {
	r, ok := s.Record(j.target)
	if !ok {
		return gotoRecordJob(s, j, nil)
	}
	j.vp.LogFrom = max(j.target-screen.LogWindow/2, 1)
	msg := finish(s, j, r.Step, "at step "+screen.FmtInt(r.Step)+", which emitted record "+screen.FmtInt(j.target))
	msg.cursor = j.target
	return msg
}

func searchJob(s *debugger.Session, j *job, pause debugger.Pause) jobMsg {
	f, done, err := s.Search(j.query, j.target, j.forward, &j.search, pause)
	if err != nil {
		return jobMsg{sess: s, err: err}
	}
	if !done {
		return progress(s, j)
	}
	idx := s.Timeline().Engine().Index()
	if f.Line == 0 {
		dir := "after"
		if !j.forward {
			dir = "before"
		}
		if j.follow != "" && j.forward {
			return finish(s, j, idx, j.follow+": no delivery, drop or cut after record "+screen.FmtInt(j.target)+": still in flight when the run ended; the cursor stays")
		}
		return finish(s, j, idx, "no record matches "+j.query.String()+" "+dir+" record "+screen.FmtInt(j.target)+": the cursor stays")
	}
	j.vp.LogFrom = max(f.Line-screen.LogWindow/2, 1)
	status := "match: record " + screen.FmtInt(f.Line) + " at step " + screen.FmtInt(f.Step) + " ( ] next, [ previous )"
	if j.follow != "" {
		status = followStatus(j, f)
	}
	msg := finish(s, j, idx, status)
	msg.cursor = f.Line
	return msg
}

// followStatus says where following a message or an accusation landed.
func followStatus(j *job, f debugger.Found) string {
	at := "record " + screen.FmtInt(f.Line) + " (events.ndjson#L" + strconv.FormatInt(f.Line, 10) + ") at step " + screen.FmtInt(f.Step)
	switch {
	case j.brought:
		return j.follow + " at " + at + "; the record above it in that step is what brought it (m follows a message to its send)"
	case j.forward:
		return j.follow + " ended at " + at + " (m goes back to its send)"
	}
	return j.follow + " was sent at " + at + " (m goes to its delivery, drop or cut)"
}

// finish lands on step i with the last step highlighted.
func finish(s *debugger.Session, j *job, i int64, status string) jobMsg {
	return finishAt(s, j, i, nil, status)
}

// finishAt lands on step i, where breakpoint hit (if any) fired.
func finishAt(s *debugger.Session, j *job, i int64, hit *debugger.Breakpoint, status string) jobMsg {
	fr, err := screen.Land(s, i, j.vp)
	return jobMsg{sess: s, fr: fr, status: status, hit: hit, err: err}
}

// progressFrameEvery is how often a long job's progress builds a whole
// frame for the panes; between, only the status line moves. A frame at a
// thousand hosts costs ~20 ms, half a chunk: built at every chunk it
// halved the speed of a continue.
const progressFrameEvery = time.Second

// progress reports a chunk of a long job: where it is and how fast it
// goes, with a new frame for the panes at most every progressFrameEvery.
func progress(s *debugger.Session, j *job) jobMsg {
	e := s.Timeline().Engine()
	status := j.kind.verb() + "… step " + screen.FmtInt(e.Index()) + "  t=" + screen.FmtTime(e.Now())
	if el := time.Since(j.started); el > 0 && j.kind != jobReverse {
		rate := (e.Index() - j.startIndex) * int64(time.Second) / int64(el)
		status += "  " + screen.FmtInt(rate) + " events/s"
	}
	status += "  (esc to stop)"
	var fr *screen.Frame
	if now := time.Now(); now.Sub(j.framed) >= progressFrameEvery {
		fr, j.framed = screen.Build(s, j.vp), now
	}
	return jobMsg{sess: s, fr: fr, next: j, status: status}
}
