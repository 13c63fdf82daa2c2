package debugger

import (
	"errors"
	"runtime"

	"github.com/detsim/detsim/bundle/verdict"
	"github.com/detsim/detsim/bundle/verdict/monitor"
	"github.com/detsim/detsim/causal"
	"github.com/detsim/detsim/engine"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/scenarios"
)

// Session is one run under the debugger's control: the engine timeline,
// the streaming verdict evaluator inside it, and the cache of serialised
// event records a viewer's log reads.
//
// A Session is not safe for concurrent use. The terminal stepper hands it
// to one command at a time and gets it back in that command's message.
type Session struct {
	sc      *scenarios.Scenario
	reg     *hosts.Registry
	tl      *engine.Timeline
	ring    *lineRing
	peerIdx map[string]int
	cpMem   int64 // the checkpoint budget in bytes (SetCheckpointBudget)

	// armed lists the record conditions (record breakpoints, a search)
	// the tap checks while a checked run is in progress.
	armed []armedQuery

	// why holds the records the kinds' explainers read, fed by the tap
	// as the run goes, so a causal chain is computed without re-running
	// (nil when no kind of the run declares an explainer).
	why  *causal.Index
	exps []causal.Explainer
}

// NewSession builds a session at step 0 of sc, with the seed overridden
// when seed is not nil.
func NewSession(sc *scenarios.Scenario, reg *hosts.Registry, seed *uint64) (*Session, error) {
	if sc == nil || reg == nil {
		return nil, errors.New("debugger: a scenario and a host registry are required")
	}
	if seed != nil {
		c := *sc
		c.Seed = *seed
		sc = &c
	}
	s := &Session{sc: sc, reg: reg, ring: newLineRing(RecordCache), peerIdx: map[string]int{}, cpMem: engine.DefaultCheckpointBudget}
	seen := map[string]bool{}
	for i := range sc.Peers {
		s.peerIdx[sc.Peers[i].ID] = i
		k, _ := reg.Lookup(sc.Peers[i].Kind)
		if x, ok := k.(causal.Explains); ok && !seen[k.Tag()] {
			seen[k.Tag()] = true
			s.exps = append(s.exps, x.Explainer())
		}
	}
	if len(s.exps) > 0 {
		s.why = causal.NewIndex(0, causal.Keeps(s.exps)...)
	}
	first := true
	fresh := func() (*engine.Engine, error) {
		if !first && s.cpMem == 0 {
			// Without checkpoints every move back rebuilds the run, and
			// the timeline has let the old one go: collect it before the
			// new one grows, so a headless run that lands once (--batch
			// --until) peaks where --batch does, not at twice that.
			runtime.GC()
		}
		first = false
		ev, err := verdict.New(sc.Assertions)
		if err != nil {
			return nil, err
		}
		var e *engine.Engine
		e, err = engine.New(sc, reg, engine.Options{
			Monitor: monitor.New(ev),
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

// Reseed builds a new session at step 0 of the same scenario with seed
// and the same checkpoint budget.
func (s *Session) Reseed(seed uint64) (*Session, error) {
	ns, err := NewSession(s.sc, s.reg, &seed)
	if err != nil {
		return nil, err
	}
	ns.SetCheckpointBudget(s.cpMem)
	return ns, nil
}

// SetCheckpointBudget sets how many bytes the timeline's checkpoints may
// hold together (engine.DefaultCheckpointBudget unless set; 0: none, so
// every move back re-executes from the seed). A headless run to one
// breakpoint never goes back far and sets 0: it then costs no more
// memory than a batch run.
func (s *Session) SetCheckpointBudget(bytes int64) {
	s.cpMem = max(bytes, 0)
	s.tl.SetBudget(s.cpMem)
}

// Timeline returns the session's timeline. Moving it directly is allowed;
// the record cache stays valid because lines never change.
func (s *Session) Timeline() *engine.Timeline { return s.tl }

// Scenario returns the scenario the session runs (with the seed in use).
func (s *Session) Scenario() *scenarios.Scenario { return s.sc }

// Kinds is the registry the session's hosts were built from: their
// declarations are how viewers draw them.
func (s *Session) Kinds() *hosts.Registry { return s.reg }

// PeerIndex returns the index of peer id in the scenario's peer list.
func (s *Session) PeerIndex(id string) (int, bool) {
	i, ok := s.peerIdx[id]
	return i, ok
}

// Evaluator returns the streaming evaluator of the current engine; after
// a Restore the engine holds a clone, so fetch it after every move.
func (s *Session) Evaluator() *verdict.Evaluator { return monitor.Evaluator(s.tl.Engine().Monitor()) }

// Failed reports whether any assertion has failed by the session's current
// step, as far as the streaming evaluator can tell from the records so far.
func (s *Session) Failed() bool {
	ev := s.Evaluator()
	if ev == nil {
		return false
	}
	_, _, ok := ev.FirstFailure()
	return ok
}

// Why explains the record on line: the causal chain back to its origin
// (causal.Explains), from the records the session has run so far. It
// does not move the session. An error says what a chain can start from
// when the record is not one.
func (s *Session) Why(line int64) (causal.Chain, error) {
	if s.why == nil {
		return causal.Chain{}, errors.New("no host kind of this run explains its state")
	}
	var add func(*causal.Index)
	if r, ok := s.Record(line); ok {
		add = func(one *causal.Index) { one.Add(r.Line, r.Step, r.At, r.Bytes) }
	}
	return causal.Why(s.why, s.exps, line, add)
}

// WhyTarget finds the record Why would explain for "why does host hold
// subject so at time at": the latest transition of host about subject at
// or before at, among the records run so far; 0 when there is none.
func (s *Session) WhyTarget(host, subject string, at int64) int64 {
	for _, x := range s.exps {
		if r, ok := x.Target(s.why, host, subject, at); ok {
			return r.Line()
		}
	}
	return 0
}

// checkpointEvery picks the timeline's least checkpoint spacing in steps.
// A step back re-executes on average half an interval, and a checkpoint
// copies every host, so its cost grows with the number of hosts faster
// than a step's does: a spacing proportional to the host count keeps
// checkpointing a small share of a continue while few hosts get dense
// checkpoints and fast reverse steps. The timeline spaces big checkpoints
// further by their size (engine.CheckpointBytesPerUnit), keeps them all
// within the byte budget, and re-checkpoints whenever it re-executes
// through a region it had thinned, so stepping back far from where
// checkpoints are is slow only the first time.
func checkpointEvery(hosts int) int64 {
	return min(max(64*int64(hosts), 128), engine.DefaultCheckpointEvery)
}

func (s *Session) tap(e *engine.Engine, line, at int64, b []byte) {
	step := e.Index()
	s.ring.put(line, step, at, b)
	if s.why != nil {
		s.why.Add(line, step, at, b)
	}
	for i := range s.armed {
		a := &s.armed[i]
		if line <= a.lo || a.hi > 0 && line >= a.hi || !a.q.Match(b, step, at) {
			continue
		}
		a.hit = true
		if a.first == 0 {
			a.first = line
		}
		a.last = line
	}
}
