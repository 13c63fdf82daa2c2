package tui

import (
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/detsim/detsim/engine"
)

// jobKind is something the stepper does with the session. Every one runs
// inside a command on the goroutine that holds the session; long ones run
// in chunks of about chunkTime and come back between chunks, so the UI
// stays responsive and esc can stop them.
type jobKind int

const (
	jobStep     jobKind = iota // one step forward
	jobBack                    // one step back
	jobLand                    // rebuild the frame at the current step (selection, scroll, resize)
	jobContinue                // forward to the next breakpoint
	jobReverse                 // back to the previous breakpoint
	jobGotoStep                // to step target
	jobGotoTime                // to the first step at or after virtual time target
	jobReseed                  // a new run with seed, at step 0
)

// long reports whether the job runs in chunks (and esc stops it).
func (k jobKind) long() bool {
	return k == jobContinue || k == jobReverse || k == jobGotoStep || k == jobGotoTime
}

func (k jobKind) verb() string {
	return [...]string{"stepping", "stepping back", "redrawing", "continuing", "reverse-continuing", "going to step", "going to time", "re-executing"}[k]
}

// job is one request and, for long ones, how far it got.
type job struct {
	kind   jobKind
	bps    []Breakpoint // a copy: the list may change while the job runs
	target int64
	seed   uint64
	vp     viewParams

	started    time.Time
	startIndex int64
	u          int64 // reverse: latest step still to search
	rewound    bool  // goto time: already moved behind the target
}

// jobMsg hands the session back to Update with the frame to show. A
// non-nil next means the job is not finished: Update starts the next
// chunk unless esc was pressed.
type jobMsg struct {
	sess   *Session
	fr     *frame
	next   *job
	status string
	hit    *Breakpoint // the breakpoint it stopped at, if any
	err    error
}

// chunkTime is how long one chunk of a long job runs before handing the
// session back; key presses wait at most this long.
const chunkTime = 40 * time.Millisecond

// run returns the command that performs j on s.
func run(s *Session, j *job) tea.Cmd {
	return func() tea.Msg { return execute(s, j) }
}

// execute performs one chunk of j. It touches nothing but s and j.
func execute(s *Session, j *job) (msg jobMsg) {
	msg.sess = s
	defer func() {
		// A host or engine panic is a bug the user must see, not a
		// frozen screen: report it and keep the session.
		if r := recover(); r != nil {
			msg = jobMsg{sess: s, err: fmt.Errorf("internal error: %v", r)}
		}
	}()
	e := s.tl.Engine()
	deadline := time.Now().Add(chunkTime)
	if j.started.IsZero() {
		j.started, j.startIndex = time.Now(), e.Index()
	}
	switch j.kind {
	case jobStep:
		fr, ok, err := s.stepOnce(j.vp)
		if !ok && err == nil {
			return s.finish(j, e.Index(), "the run has ended: nothing to step")
		}
		msg.fr, msg.err = fr, err
		if fr != nil {
			msg.status = "step " + fmtInt(fr.index) + ": " + describeStep(fr.last)
		}
		return msg
	case jobBack:
		if e.Index() == 0 {
			return s.finish(j, 0, "at step 0: nothing before it")
		}
		return s.finish(j, e.Index()-1, "back to step "+fmtInt(e.Index()-1))
	case jobLand:
		return s.finish(j, e.Index(), "")
	case jobReseed:
		ns, err := NewSession(s.sc, s.reg, &j.seed)
		if err != nil {
			msg.err = err
			return msg
		}
		return ns.finish(j, 0, fmt.Sprintf("re-seeded with %d: re-executing from step 0", j.seed))
	case jobContinue:
		hit, finished := s.forward(j.bps, nil, deadline)
		if !finished {
			return s.progress(j)
		}
		idx := s.tl.Engine().Index()
		if hit != nil {
			return s.finishAt(j, idx, hit, "breakpoint "+hit.String()+" ("+hit.describe()+") at step "+fmtInt(idx))
		}
		if idx == j.startIndex {
			return s.finish(j, idx, "the run has ended: nothing to continue")
		}
		return s.finish(j, idx, "no breakpoint hit: the run ended at step "+fmtInt(idx))
	case jobReverse:
		if !j.rewound {
			j.u, j.rewound = e.Index()-1, true
		}
		found, hit, next, over, err := s.reverse(j.bps, j.u, deadline)
		if err != nil {
			msg.err = err
			return msg
		}
		if !over {
			j.u = next
			return s.progress(j)
		}
		if found >= 0 {
			return s.finishAt(j, found, hit, "reverse: breakpoint "+hit.String()+" ("+hit.describe()+") at step "+fmtInt(found))
		}
		return s.finish(j, 0, "reverse: no breakpoint before step "+fmtInt(j.startIndex)+"; at step 0")
	case jobGotoStep:
		if j.target <= e.Index() {
			return s.finish(j, j.target, "at step "+fmtInt(j.target))
		}
		s.forward(nil, func(info engine.StepInfo, _ int64) bool { return info.Index >= j.target }, deadline)
		idx := s.tl.Engine().Index()
		if idx < j.target && !s.tl.Engine().Done() {
			return s.progress(j)
		}
		if idx < j.target {
			return s.finish(j, idx, "step "+fmtInt(j.target)+" is past the end: clamped to the last step, "+fmtInt(idx))
		}
		return s.finish(j, idx, "at step "+fmtInt(idx))
	case jobGotoTime:
		t := j.target
		if t <= 0 {
			return s.finish(j, 0, "at step 0 (t=+0s)")
		}
		if !j.rewound {
			j.rewound = true
			if e.Now() >= t {
				target := int64(0)
				for _, m := range s.tl.Marks() {
					if m.Now < t {
						target = m.Index
					}
				}
				if _, err := s.tl.Goto(target); err != nil {
					msg.err = err
					return msg
				}
			}
		}
		if s.tl.Engine().Now() < t && !s.tl.Engine().Done() {
			s.forward(nil, func(info engine.StepInfo, _ int64) bool { return info.At >= t }, deadline)
		}
		e = s.tl.Engine()
		if e.Now() < t && !e.Done() {
			return s.progress(j)
		}
		if e.Now() < t {
			return s.finish(j, e.Index(), "t="+fmtTime(t)+" is past the end: clamped to the last step, "+fmtInt(e.Index())+" at t="+fmtTime(e.Now()))
		}
		return s.finish(j, e.Index(), "at step "+fmtInt(e.Index())+", the first at or after t="+fmtTime(t))
	}
	msg.err = fmt.Errorf("unknown job %d", j.kind)
	return msg
}

// finish lands on step i with the last step highlighted.
func (s *Session) finish(j *job, i int64, status string) jobMsg {
	return s.finishAt(j, i, nil, status)
}

// finishAt lands on step i, where breakpoint hit (if any) fired.
func (s *Session) finishAt(j *job, i int64, hit *Breakpoint, status string) jobMsg {
	fr, err := s.land(i, j.vp)
	return jobMsg{sess: s, fr: fr, status: status, hit: hit, err: err}
}

// progress reports a chunk of a long job: where it is and how fast it goes.
func (s *Session) progress(j *job) jobMsg {
	e := s.tl.Engine()
	status := j.kind.verb() + "… step " + fmtInt(e.Index()) + "  t=" + fmtTime(e.Now())
	if el := time.Since(j.started); el > 0 && j.kind != jobReverse {
		rate := (e.Index() - j.startIndex) * int64(time.Second) / int64(el)
		status += "  " + fmtInt(rate) + " events/s"
	}
	status += "  (esc to stop)"
	return jobMsg{sess: s, fr: s.build(j.vp, nil), next: j, status: status}
}

// describeStep says what a step dispatched: "Deliver b", "Mutation".
func describeStep(info engine.StepInfo) string {
	if info.Kind == "" {
		return "start"
	}
	if info.Host == "" {
		return info.Kind
	}
	return info.Kind + " " + info.Host
}
