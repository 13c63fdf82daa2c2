package verdict

import (
	"errors"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/scenarios"
)

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
	err = bundle.ScanEvents(dir, e.Reads, func(line int, rec bundle.EventRecord) error {
		// A judge reading an unchecked payload checks it as it reads
		// it, or asks for the line again, checked (bundle.ErrRecheck).
		if err := e.observe(line, rec); err != nil {
			if errors.Is(err, bundle.ErrRecheck) {
				return err
			}
			e.malformed(line, err)
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
