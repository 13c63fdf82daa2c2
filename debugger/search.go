package debugger

import "github.com/detsim/detsim/engine"

// Hit is where a headless continue or reverse-continue stopped.
type Hit struct {
	// Breakpoint is the breakpoint that fired; nil when the run ended
	// (continue) or step 0 was reached (reverse) first.
	Breakpoint *Breakpoint
	Step       int64 // step index reached
	At         int64 // its virtual time
}

// Pause is asked between chunks of a long move (every 128 steps forward,
// every checkpoint interval backwards) whether to hand control back; the
// move then returns unfinished and the caller calls again to resume. A
// nil Pause never pauses.
type Pause func() bool

// Continue runs forward to the next step at which an enabled breakpoint
// fires, or to the end of the run: the stepper's `c` without a screen, for
// `detsim --batch --break-on`. "--until" is one more breakpoint (time=… or
// step=…). It always dispatches at least one step when the run has not
// ended, so continuing from a breakpoint does not stop on it again.
func (s *Session) Continue(bps []Breakpoint) Hit {
	b, _ := s.Forward(bps, nil, nil)
	e := s.tl.Engine()
	return Hit{Breakpoint: b, Step: e.Index(), At: e.Now()}
}

// ReverseContinue moves back to the latest earlier step at which an
// enabled breakpoint fires, or to step 0.
func (s *Session) ReverseContinue(bps []Breakpoint) (Hit, error) {
	found, b, _, err := s.ReverseSearch(s.tl.Engine().Index()-1, bps, nil)
	if err != nil {
		return Hit{}, err
	}
	if _, err := s.tl.Goto(max(found, 0)); err != nil {
		return Hit{}, err
	}
	e := s.tl.Engine()
	return Hit{Breakpoint: b, Step: e.Index(), At: e.Now()}, nil
}

// Forward runs steps until an enabled breakpoint in bps fires, the run
// ends, until (if set) reports true for a step, or pause interrupts it.
// It returns the breakpoint that fired, if any, and whether it stopped
// for a reason other than pause.
func (s *Session) Forward(bps []Breakpoint, until func(engine.StepInfo) bool, pause Pause) (hit *Breakpoint, finished bool) {
	bps = append([]Breakpoint(nil), bps...) // hit points into the copy, not the caller's list
	s.arm(bps)
	defer s.disarm()
	stop := s.stopAt(bps, &hit)
	for {
		info, stopped := s.tl.Continue(func(prevNow int64, info engine.StepInfo) bool {
			return stop(prevNow, info) || until != nil && until(info)
		}, pauseEvery)
		if stopped || info.Done || s.tl.Engine().Done() {
			return hit, true
		}
		if pause != nil && pause() {
			return nil, false
		}
	}
}

// pauseEvery is how many steps Forward runs between asking Pause.
const pauseEvery = 128

// ReverseSearch looks backwards for the latest step at or before u at
// which an enabled breakpoint fires, one checkpoint interval at a time,
// latest first (engine.Timeline.ReverseSearch). It returns the step found
// (or -1) and the breakpoint that fired there, without moving to it; or,
// when pause interrupted it, next > 0, the u to resume from, with the
// timeline at that checkpoint.
func (s *Session) ReverseSearch(u int64, bps []Breakpoint, pause Pause) (found int64, hit *Breakpoint, next int64, err error) {
	bps = append([]Breakpoint(nil), bps...)
	s.arm(bps)
	defer s.disarm()
	found, next, err = s.tl.ReverseSearch(u, s.stopAt(bps, &hit), pause)
	if found < 0 {
		hit = nil
	}
	return found, hit, next, err
}

// GotoTime moves to the first step at or after virtual time t, or to the
// last step when the run ends before t; it reports false when pause
// interrupted it (call again to go on). From at or past t it starts again
// from the latest checkpoint before t.
func (s *Session) GotoTime(t int64, pause Pause) (finished bool, err error) {
	if s.tl.Engine().Now() >= t {
		target := int64(0)
		for _, m := range s.tl.Marks() {
			if m.Now < t {
				target = m.Index
			}
		}
		if _, err := s.tl.Goto(target); err != nil {
			return true, err
		}
	}
	if e := s.tl.Engine(); e.Now() < t && !e.Done() {
		s.Forward(nil, func(info engine.StepInfo) bool { return info.At >= t }, pause)
	}
	e := s.tl.Engine()
	return e.Now() >= t || e.Done(), nil
}

// GotoStep moves forward to step i, or to the last step when the run ends
// first; it reports false when pause interrupted it. It only moves
// forward: going back is a Timeline().Goto.
func (s *Session) GotoStep(i int64, pause Pause) (finished bool) {
	if s.tl.Engine().Index() < i {
		s.Forward(nil, func(info engine.StepInfo) bool { return info.Index >= i }, pause)
	}
	e := s.tl.Engine()
	return e.Index() >= i || e.Done()
}

// stopAt is bps as the timeline's stop predicate: it reports whether an
// enabled breakpoint fires at the step just dispatched and, when one
// does, points hit at the first such breakpoint. hit keeps the latest
// firing, so after a reverse search it belongs to the step found.
func (s *Session) stopAt(bps []Breakpoint, hit **Breakpoint) engine.StopFunc {
	return func(prevNow int64, info engine.StepInfo) bool {
		prevRec := s.tl.Engine().Records() - info.Records
		defer s.clearHits()
		for i := range bps {
			if b := &bps[i]; !b.Off && s.hits(i, b, info, prevNow, prevRec) {
				*hit = b
				return true
			}
		}
		return false
	}
}

// armedQuery is a record condition the tap checks while a run is checked:
// a record breakpoint (slot = its index in the list) or a search.
type armedQuery struct {
	q      *Query
	slot   int
	lo, hi int64 // search: only lines in (lo, hi); 0 hi = no bound
	hit    bool  // a record of the current step matched
	first  int64 // the first and last matching lines of the step
	last   int64
}

// arm prepares the tap for bps' record breakpoints; disarm stops watching.
func (s *Session) arm(bps []Breakpoint) {
	s.armed = s.armed[:0]
	for i := range bps {
		if b := &bps[i]; !b.Off && b.Kind == BreakRecord {
			s.armed = append(s.armed, armedQuery{q: &b.Query, slot: i})
		}
	}
}

func (s *Session) disarm() { s.armed = s.armed[:0] }

func (s *Session) clearHits() {
	for i := range s.armed {
		a := &s.armed[i]
		a.hit, a.first, a.last = false, 0, 0
	}
}

// hits reports whether b (the i-th breakpoint) fires at the step just
// dispatched (info), given the virtual time and record count before it.
func (s *Session) hits(i int, b *Breakpoint, info engine.StepInfo, prevNow, prevRec int64) bool {
	switch b.Kind {
	case BreakFail:
		if ev := s.Evaluator(); ev != nil && info.Records > 0 {
			_, failed := ev.DecidedAfter(int(prevRec), b.Arg)
			return failed
		}
	case BreakVerdict:
		if ev := s.Evaluator(); ev != nil && info.Records > 0 {
			decided, _ := ev.DecidedAfter(int(prevRec), "")
			return decided
		}
	case BreakRecord:
		for k := range s.armed {
			if s.armed[k].slot == i {
				return s.armed[k].hit
			}
		}
	case BreakHost:
		return info.Host == b.Arg
	case BreakTime:
		return prevNow < b.N && info.At >= b.N
	case BreakStep:
		return info.Index == b.N
	}
	return false
}
