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
	e, err := New(assertions)
	if err != nil {
		return nil, err
	}
	err = bundle.ScanEvents(dir, e.Reads, func(line int, rec bundle.EventRecord) error {
		e.Observe(line, rec)
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
	return e.finish(endNs), nil
}
