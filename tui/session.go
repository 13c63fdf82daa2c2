package tui

import (
	"errors"
	"time"

	"github.com/detsim/detsim/batch"
	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/bundle/verdict"
	"github.com/detsim/detsim/engine"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/scenarios"
)

// Session is one run under the stepper's control: the engine timeline
// (reverse execution by checkpoint and re-execution), the streaming
// verdict evaluator inside it, and the cache of serialised event records
// the log pane reads. The stepper and `detsim --batch --break-on` share
// it, so a breakpoint means the same thing in both.
//
// A Session is not safe for concurrent use. The terminal program hands it
// to one command at a time and gets it back in that command's message.
type Session struct {
	sc      *scenarios.Scenario
	reg     *hosts.Registry
	tl      *engine.Timeline
	ring    *lineRing
	peerIdx map[string]int

	// watch lists the event types enabled type breakpoints wait for
	// while a checked run is in progress; the tap notes which it saw.
	watch    []string
	typeHits []string
}

// NewSession builds a session at step 0 of sc, with the seed overridden
// when seed is not nil.
func NewSession(sc *scenarios.Scenario, reg *hosts.Registry, seed *uint64) (*Session, error) {
	if sc == nil || reg == nil {
		return nil, errors.New("tui: a scenario and a host registry are required")
	}
	if seed != nil {
		c := *sc
		c.Seed = *seed
		sc = &c
	}
	s := &Session{sc: sc, reg: reg, ring: newLineRing(ringSize), peerIdx: map[string]int{}}
	for i := range sc.Peers {
		s.peerIdx[sc.Peers[i].ID] = i
	}
	fresh := func() (*engine.Engine, error) {
		ev, err := verdict.New(sc.Assertions)
		if err != nil {
			return nil, err
		}
		var e *engine.Engine
		e, err = engine.New(sc, reg, engine.Options{
			Monitor: batch.Monitor(ev),
			// e is set before the first step, the only time the tap runs.
			Tap: func(line, at int64, b []byte) { s.tap(e, line, at, b) },
		})
		return e, err
	}
	tl, err := engine.NewTimeline(fresh, checkpointEvery(len(sc.Peers)))
	if err != nil {
		return nil, err
	}
	s.tl = tl
	return s, nil
}

// Timeline returns the session's timeline. Moving it directly is allowed;
// the log cache stays valid because lines never change.
func (s *Session) Timeline() *engine.Timeline { return s.tl }

// Scenario returns the scenario the session runs (with the seed in use).
func (s *Session) Scenario() *scenarios.Scenario { return s.sc }

// checkpointEvery picks the timeline's checkpoint interval. A step back
// re-executes on average half an interval, and a checkpoint copies every
// host, so its cost grows with the number of hosts (and their views of
// each other) faster than a step's does: an interval proportional to the
// host count keeps checkpointing a small share of a continue while few
// hosts get dense checkpoints and fast reverse steps. The timeline also
// re-checkpoints at these multiples whenever it re-executes through a
// region it had thinned, so stepping back far from the frontier is slow
// only the first time.
func checkpointEvery(hosts int) int64 {
	return min(max(64*int64(hosts), 128), engine.DefaultCheckpointEvery)
}

func (s *Session) tap(e *engine.Engine, line, at int64, b []byte) {
	s.ring.put(line, e.Index(), at, b)
	if len(s.watch) > 0 {
		t := bundle.LineType(b)
		for _, w := range s.watch {
			if string(t) == w {
				s.typeHits = append(s.typeHits, w)
			}
		}
	}
}

// evaluator returns the streaming evaluator of the current engine; after
// a Restore the engine holds a clone, so it is fetched every time.
func (s *Session) evaluator() *verdict.Evaluator {
	if m, ok := s.tl.Engine().Monitor().(batch.EvalMonitor); ok {
		return m.Evaluator()
	}
	return nil
}

// arm prepares the tap for bps' type breakpoints; disarm stops watching.
func (s *Session) arm(bps []Breakpoint) {
	s.watch = s.watch[:0]
	for _, b := range bps {
		if !b.Off && b.Kind == BreakType {
			s.watch = append(s.watch, b.Arg)
		}
	}
}

func (s *Session) disarm() { s.watch, s.typeHits = s.watch[:0], s.typeHits[:0] }

// checkedStep dispatches one step and reports the first enabled
// breakpoint it hits. ok is false when the run had already ended.
func (s *Session) checkedStep(bps []Breakpoint) (info engine.StepInfo, hit *Breakpoint, ok bool) {
	e := s.tl.Engine()
	if e.Done() {
		return engine.StepInfo{Index: e.Index(), At: e.Now(), Done: true}, nil, false
	}
	prevNow, prevRec := e.Now(), e.Records()
	s.typeHits = s.typeHits[:0]
	info = s.tl.Step()
	for i := range bps {
		if b := &bps[i]; !b.Off && s.hits(b, info, prevNow, prevRec) {
			return info, b, true
		}
	}
	return info, nil, true
}

func (s *Session) hits(b *Breakpoint, info engine.StepInfo, prevNow, prevRec int64) bool {
	switch b.Kind {
	case BreakFail:
		if ev := s.evaluator(); ev != nil {
			_, line, ok := ev.FirstFailure()
			return ok && int64(line) > prevRec
		}
	case BreakType:
		for _, t := range s.typeHits {
			if t == b.Arg {
				return true
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

// forward runs checked steps until a breakpoint hits, the run ends,
// stop (if set) reports true for a step, or the deadline (if not zero)
// passes. It returns the breakpoint hit, if any, and whether it stopped
// for a reason other than the deadline.
func (s *Session) forward(bps []Breakpoint, stop func(info engine.StepInfo, prevNow int64) bool, deadline time.Time) (hit *Breakpoint, finished bool) {
	s.arm(bps)
	defer s.disarm()
	for n := 1; ; n++ {
		prevNow := s.tl.Engine().Now()
		info, b, ok := s.checkedStep(bps)
		if !ok || info.Done {
			return b, true
		}
		if b != nil {
			return b, true
		}
		if stop != nil && stop(info, prevNow) {
			return nil, true
		}
		if n%128 == 0 && !deadline.IsZero() && time.Now().After(deadline) {
			return nil, false
		}
	}
}

// reverse searches backwards for the latest step at or before u that
// hits a breakpoint, one checkpoint interval at a time, latest interval
// first. It returns the step found (or -1) and the breakpoint it hit, the
// next u to search from when the deadline interrupted it (the engine is
// then at that step), and whether the search is over.
func (s *Session) reverse(bps []Breakpoint, u int64, deadline time.Time) (found int64, hit *Breakpoint, next int64, over bool, err error) {
	s.arm(bps)
	defer s.disarm()
	for u >= 1 {
		c := int64(0)
		for _, m := range s.tl.Marks() {
			if m.Index <= u-1 {
				c = m.Index
			}
		}
		if _, err := s.tl.Goto(c); err != nil {
			return -1, nil, u, true, err
		}
		found, hit := int64(-1), (*Breakpoint)(nil)
		for s.tl.Engine().Index() < u {
			info, b, ok := s.checkedStep(bps)
			if !ok {
				break
			}
			if b != nil {
				found, hit = info.Index, b
			}
		}
		if found >= 0 {
			return found, hit, 0, true, nil
		}
		u = c
		if u >= 1 && !deadline.IsZero() && time.Now().After(deadline) {
			_, err := s.tl.Goto(c)
			return -1, nil, u, false, err
		}
	}
	return -1, nil, 0, true, nil
}
