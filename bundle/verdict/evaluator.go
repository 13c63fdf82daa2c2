package verdict

import (
	"fmt"
	"iter"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/internal/jsonscan"
	"github.com/detsim/detsim/scenarios"
)

// Evaluator judges a run's assertions from its records, fed in stream
// order. It is not safe for concurrent use; Clone it for a checkpoint.
type Evaluator struct {
	assertions []scenarios.Assertion
	checkers   []checker
	world      world
	want       want  // what the unresolved checkers need
	now        int64 // the time of the last record read
	unresolved int
	firstFail  int // index of the first assertion to fail while streaming; -1 if none
	err        error
	texts      jsonscan.Strings // the strings payloads name, made once each
	// read is a state_transition payload EvaluateBundle has already read
	// (and so validated) for the record it is about to observe; dispatch
	// uses it instead of reading the payload again.
	read    transitionPayload
	hasRead bool
}

// New prepares an evaluator for assertions, in declaration order. It
// fails only on an assertion it cannot interpret (an unknown kind, or one
// scenarios.Assertion.Check rejects), which no loaded scenario holds: the
// scenario loader's checks are stricter.
func New(assertions []scenarios.Assertion) (*Evaluator, error) {
	e := &Evaluator{assertions: assertions, world: newWorld(), firstFail: -1}
	for _, a := range assertions {
		if _, ok := scenarios.LookupAssertionKind(a.Kind); !ok {
			return nil, fmt.Errorf("verdict: assertion %q: unknown kind %q", a.Name, a.Kind)
		}
		mk := constructor(a.Params)
		if mk == nil && a.Params != nil {
			return nil, fmt.Errorf("verdict: assertion %q (%s): parameters of type %T, want a value of one of the ten scenarios structs", a.Name, a.Kind, a.Params)
		}
		if err := a.Check(); err != nil {
			return nil, fmt.Errorf("verdict: assertion %q (%s): %w", a.Name, a.Kind, err)
		}
		e.checkers = append(e.checkers, mk(&e.world))
	}
	e.unresolved = len(e.checkers)
	e.refreshWants()
	return e, nil
}

func (e *Evaluator) refreshWants() {
	e.want = 0
	for _, c := range e.checkers {
		if !c.result().resolved {
			e.want |= c.wants()
		}
	}
}

// Observe feeds the record on events.ndjson line `line` (1-based). Lines
// must come in file order. A malformed record is skipped and reported by
// Err. Observe keeps nothing of rec.Event once it returns, so the caller
// may reuse the payload buffer.
func (e *Evaluator) Observe(line int, rec bundle.EventRecord) {
	t := rec.VirtualTimeNs
	if t < e.now {
		e.malformed(line, fmt.Errorf("virtual_time_ns %d is before the previous record's %d", t, e.now))
		return
	}
	if e.unresolved == 0 {
		e.now = t
		return
	}
	if t > e.now {
		e.hold(e.now, t-1)
		e.now = t
	}
	if e.want&wantRecords != 0 {
		e.world.rates.observe(line, rec.Type, t)
		for c := range e.wanting(wantRecords) {
			c.onRecord(&e.world, line, rec)
		}
	}
	if err := e.dispatch(line, &rec); err != nil {
		e.malformed(line, err)
	}
	e.settle(line)
}

// Reads reports whether Observe would look at the payload of a record of
// type typ now: whether an unresolved checker needs that type decoded.
// A reader may hand Observe any other record without its Event
// (bundle.ScanEvents), since only its envelope and type are used.
func (e *Evaluator) Reads(typ string) bool {
	if e.unresolved == 0 {
		return false
	}
	switch typ {
	case "state_transition":
		return e.want&wantViews != 0
	case "probe_sent", "probe_acked", "probe_timed_out":
		return e.want&wantProbes != 0
	case "message_sent":
		return e.want&wantMessages != 0
	case "self_incarnation_bump":
		return e.want&wantBumps != 0
	case "mutation":
		return e.want&(wantMutations|wantViews) != 0
	}
	return e.want&wantAgent != 0 && agentRecord(typ)
}

// dispatch decodes the record if Reads says a checker needs its type and
// hands the fact to those that want it.
func (e *Evaluator) dispatch(line int, rec *bundle.EventRecord) error {
	if !e.Reads(rec.Type) {
		return nil
	}
	t := rec.VirtualTimeNs
	switch rec.Type {
	case "state_transition":
		var p transitionPayload
		var to state
		var err error
		if e.hasRead {
			p, to, err = checkTransition(e.read, rec.HostID)
		} else {
			p, to, err = decodeTransition(rec.Event, rec.HostID, &e.texts)
		}
		if err != nil {
			return err
		}
		o, s := e.world.intern(p.Observer), e.world.intern(p.Subject)
		cur := view{state: to, incarnation: p.Incarnation, line: line, timeNs: t}
		e.viewChanged(viewChange{line: line, timeNs: t, observer: o, subject: s, old: e.world.setView(o, s, cur), cur: cur})
	case "probe_sent", "probe_acked", "probe_timed_out":
		p, err := decodeProbe(rec.Event, rec.Type, rec.HostID, &e.texts)
		if err != nil || p.Mode != "direct" {
			return err
		}
		f := probeFact{line: line, timeNs: t, step: probeSteps[rec.Type], prober: e.world.intern(rec.HostID), target: e.world.intern(p.Target), seq: p.Seq}
		for c := range e.wanting(wantProbes) {
			c.onProbe(&e.world, f)
		}
	case "message_sent":
		p, err := decodeMessage(rec.Event, &e.texts)
		if err != nil {
			return err
		}
		for c := range e.wanting(wantMessages) {
			c.onMessage(messageFact{line: line, timeNs: t, message: p.Message, bytes: p.Bytes})
		}
	case "self_incarnation_bump":
		p, err := decodeBump(rec.Event)
		if err != nil {
			return err
		}
		for c := range e.wanting(wantBumps) {
			c.onBump(bumpFact{line: line, timeNs: t, host: rec.HostID, newInc: p.New})
		}
	case "mutation":
		p, err := decodeMutation(rec.Event, &e.texts)
		if err != nil {
			return err
		}
		e.mutation(line, t, p)
	}
	return nil
}

var probeSteps = map[string]probeStep{"probe_sent": probeSent, "probe_acked": probeAcked, "probe_timed_out": probeTimedOut}

// mutation applies a mutation's effect on liveness and views, then tells
// the checkers. A fresh life (PeerResurrect without preserve_state)
// forgets every view the peer held. A PeerKill of a peer already killed
// and a PeerResurrect of a running peer are no-ops, whatever wrote the
// bundle: the scenario loader rejects both, but the evaluator judges
// what the records say and must not erase views a running peer holds.
func (e *Evaluator) mutation(line int, t int64, p mutationPayload) {
	w := &e.world
	f := mutationFact{line: line, timeNs: t, kind: p.Kind, peer: -1, preserveState: p.PreserveState}
	if p.Peer != "" {
		f.peer = w.intern(p.Peer)
	}
	for _, id := range p.PeersA {
		f.peersA = append(f.peersA, w.intern(id))
	}
	for _, id := range p.PeersB {
		f.peersB = append(f.peersB, w.intern(id))
	}
	switch p.Kind {
	case "PeerKill":
		f.noop = w.killed[f.peer]
		w.killed[f.peer] = true
	case "PeerResurrect":
		f.noop = !w.dead(f.peer)
		w.killed[f.peer] = false
	}
	for c := range e.wanting(wantMutations) {
		c.onMutation(w, f)
	}
	if p.Kind == "PeerResurrect" && !p.PreserveState && !f.noop && int(f.peer) < len(w.views) {
		for s := range int32(len(w.views[f.peer])) {
			if old := w.view(f.peer, s); old.state != noView {
				w.setView(f.peer, s, view{})
				e.viewChanged(viewChange{line: line, timeNs: t, observer: f.peer, subject: s, old: old})
			}
		}
	}
}

func (e *Evaluator) viewChanged(c viewChange) {
	for k := range e.wanting(wantViews) {
		k.onView(&e.world, c)
	}
}

// wanting yields the unresolved checkers that want w, in declaration
// order.
func (e *Evaluator) wanting(w want) iter.Seq[checker] {
	return func(yield func(checker) bool) {
		for _, c := range e.checkers {
			if c.wants()&w != 0 && !c.result().resolved && !yield(c) {
				return
			}
		}
	}
}

// hold tells every unresolved checker that the current state held over
// [from, to].
func (e *Evaluator) hold(from, to int64) {
	for _, c := range e.checkers {
		if !c.result().resolved {
			c.hold(&e.world, from, to)
		}
	}
}

// settle stamps the verdicts resolved by the record on line with that
// line and notes the first failure.
func (e *Evaluator) settle(line int) {
	changed := false
	for i, c := range e.checkers {
		r := c.result()
		if !r.resolved || r.line != 0 {
			continue
		}
		r.line = line
		e.unresolved--
		changed = true
		if r.outcome == Fail && e.firstFail < 0 {
			e.firstFail = i
		}
	}
	if changed {
		e.refreshWants()
	}
}

func (e *Evaluator) malformed(line int, err error) {
	if e.err == nil {
		e.err = fmt.Errorf("%s line %d: %w", bundle.EventsFile, line, err)
	}
}

// Err reports the first malformed record fed to Observe, if any.
func (e *Evaluator) Err() error { return e.err }

// Resolved reports whether the records so far determine every verdict
// (spec §4.8). It is true when no assertion was declared.
func (e *Evaluator) Resolved() bool { return e.unresolved == 0 }

// Status reports each assertion's standing, in declaration order.
func (e *Evaluator) Status() []Partial {
	out := make([]Partial, len(e.checkers))
	for i, c := range e.checkers {
		r := c.result()
		out[i] = Partial{Name: e.assertions[i].Name, Kind: e.assertions[i].Kind, Resolved: r.resolved}
		if r.resolved {
			out[i].Outcome, out[i].Reason, out[i].Line = r.outcome, r.reason, r.line
			out[i].Evidence = append([]Evidence(nil), r.evidence...)
		}
	}
	return out
}

// DecidedAfter reports whether a record after line resolved an assertion
// (any), and whether one so resolved failed — only the assertion named
// name when name is not "". The debugger's "verdict", "fail" and
// "fail=NAME" breakpoints ask it after every step; it allocates nothing.
func (e *Evaluator) DecidedAfter(line int, name string) (decided, failed bool) {
	for i, c := range e.checkers {
		r := c.result()
		if !r.resolved || r.line <= line {
			continue
		}
		decided = true
		if r.outcome == Fail && (name == "" || e.assertions[i].Name == name) {
			failed = true
		}
	}
	return decided, failed
}

// FirstFailure names the first assertion that failed while records were
// read and the line of the record that decided it. Of two decided by the
// same record, the one declared first is named.
func (e *Evaluator) FirstFailure() (name string, line int, ok bool) {
	if e.firstFail < 0 {
		return "", 0, false
	}
	return e.assertions[e.firstFail].Name, e.checkers[e.firstFail].result().line, true
}

// Finish returns the verdicts of a run that ended at endNs (the scenario
// duration or the early-termination time; never taken as earlier than
// the last record), in declaration order. It leaves e unchanged, so
// streaming may continue.
func (e *Evaluator) Finish(endNs int64) []Verdict {
	return e.Clone().finish(endNs, false)
}

// finish is Finish for an evaluator nobody feeds again: it concludes e
// itself instead of a copy, which for a thousand peers' views saves
// copying tens of megabytes. cut says the run was stopped short of its
// end by an output cap: a Pass that only the end of the records decided
// is then Inconclusive (EvaluateCutBundle).
func (e *Evaluator) finish(endNs int64, cut bool) []Verdict {
	if e.unresolved > 0 {
		e.hold(e.now, max(endNs, e.now))
		for _, c := range e.checkers {
			if c.result().resolved {
				continue
			}
			c.finish(&e.world, max(endNs, e.now))
			if r := c.result(); cut && r.outcome == Pass {
				r.outcome = Inconclusive
				r.reason = fmt.Sprintf("the run stopped at %s, before its end (truncated or interrupted), so the rest of it is unjudged; up to there: %s", fmtNs(max(endNs, e.now)), r.reason)
			}
		}
	}
	out := make([]Verdict, len(e.checkers))
	for i, c := range e.checkers {
		a, r := e.assertions[i], c.result()
		out[i] = Verdict{
			Name: a.Name, Kind: a.Kind, Parameters: a.ParamMap(),
			Outcome: r.outcome, Evidence: r.evidence, Reason: r.reason,
		}
	}
	return out
}

// Clone returns a deep copy for an engine checkpoint: feeding either one
// never changes the other.
func (e *Evaluator) Clone() *Evaluator {
	c := *e
	c.texts = jsonscan.Strings{} // a cache: each copy fills its own
	c.world = e.world.clone()
	c.checkers = make([]checker, len(e.checkers))
	for i, k := range e.checkers {
		c.checkers[i] = k.clone()
	}
	return &c
}
