package verdict

import (
	"errors"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/scenarios"
)

// scanRead is what post-run evaluation wants of a line of type typ:
// nothing of a type no unresolved assertion decodes, and a
// state_transition payload unchecked, since reading it checks it; those
// are most of a big run's lines (one per member per node at start).
func (e *Evaluator) scanRead(typ string) bundle.Read {
	switch {
	case !e.Reads(typ):
		return bundle.Skip
	case typ == "state_transition":
		return bundle.Unchecked
	}
	return bundle.Whole
}

// errAllResolved stops reading events.ndjson once nothing is left to decide.
var errAllResolved = errors.New("all assertions resolved")

// EvaluateBundle is the authoritative post-run evaluation (spec §10.2):
// it reads the bundle in dir's events.ndjson and judges assertions for a
// run that ended at endNs. It stops reading as soon as every verdict is
// resolved, since no later record can change one. A malformed record of
// a type some unresolved assertion decodes is an error naming its line;
// the payload of a type none decodes is not looked at (bundle.ScanEvents).
func EvaluateBundle(dir string, assertions []scenarios.Assertion, endNs int64) ([]Verdict, error) {
	return evaluateBundle(dir, assertions, endNs, false)
}

// EvaluateCutBundle is EvaluateBundle for a run an output cap stopped at
// endNs, before its scenario's end (batch.Config.MaxRecords): a verdict
// the records so far decided stands, Fail or Pass, but one that would
// only Pass because the run ended is Inconclusive — the part of the run
// that never happened could still have broken it.
func EvaluateCutBundle(dir string, assertions []scenarios.Assertion, endNs int64) ([]Verdict, error) {
	return evaluateBundle(dir, assertions, endNs, true)
}

func evaluateBundle(dir string, assertions []scenarios.Assertion, endNs int64, cut bool) ([]Verdict, error) {
	e, err := New(assertions)
	if err != nil {
		return nil, err
	}
	err = bundle.ScanEvents(dir, e.scanRead, func(line int, rec bundle.EventRecord) error {
		if rec.Unchecked {
			// The fast reader accepts only a payload that is one whole,
			// valid object of the simulator's own shape: reading it is
			// checking it, and saves checking it twice.
			p, ok := fastTransition(rec.Event, &e.texts)
			if !ok {
				return bundle.ErrRecheck
			}
			e.read, e.hasRead = p, true
		}
		e.Observe(line, rec)
		e.hasRead = false
		if e.err != nil {
			return e.err
		}
		if e.Resolved() {
			return errAllResolved
		}
		return nil
	})
	if err != nil && !errors.Is(err, errAllResolved) {
		return nil, err
	}
	return e.finish(endNs, cut), nil
}
