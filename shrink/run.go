package shrink

import (
	"context"

	"github.com/detsim/detsim/batch"
	"github.com/detsim/detsim/bundle/verdict"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/scenarios"
)

// judged is what one run says about the assertions it watched.
type judged struct {
	verdicts []verdict.Verdict
	// firstFail is the assertion that failed first in virtual time (""
	// if none failed while records streamed), at is when the run stopped.
	firstFail string
	at        int64
}

// run runs sc watching only the assertions named (all when names is
// nil). With stopEarly it stops as soon as they are all resolved: a
// candidate needs no more than the moment its assertion fails.
func run(ctx context.Context, sc *scenarios.Scenario, reg *hosts.Registry, names []string, stopEarly bool) (j judged, err error) {
	watched := sc.Assertions
	if names != nil {
		watched = nil
		for _, a := range sc.Assertions {
			for _, n := range names {
				if a.Name == n {
					watched = append(watched, a)
				}
			}
		}
	}
	ev, err := verdict.New(watched)
	if err != nil {
		return j, err
	}
	e, err := batch.Watch(ctx, sc, reg, ev, func() bool { return stopEarly && ev.Resolved() })
	if err != nil {
		return j, err
	}
	j.verdicts, j.at = ev.Finish(e.Now()), e.Now()
	j.firstFail, _, _ = ev.FirstFailure()
	return j, nil
}

// failed reports whether the named verdict is a Fail.
func (j judged) failed(name string) bool {
	for _, v := range j.verdicts {
		if v.Name == name {
			return v.Outcome == verdict.Fail
		}
	}
	return false
}
