package shrink

import (
	"context"
	"errors"
	"fmt"

	"github.com/detsim/detsim/batch"
	"github.com/detsim/detsim/bundle/verdict"
	"github.com/detsim/detsim/engine"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/scenarios"
)

// errStopped is a run ended by the context.
var errStopped = errors.New("stopped")

// PanicError is a panic inside a run (a host or the engine): a bug, not
// an input problem.
type PanicError struct{ Value any }

func (e *PanicError) Error() string { return fmt.Sprintf("panic during the run: %v", e.Value) }

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
	defer func() {
		if r := recover(); r != nil {
			err = &PanicError{r}
		}
	}()
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
	e, err := engine.New(sc, reg, engine.Options{Monitor: batch.Monitor(ev)})
	if err != nil {
		return j, err
	}
	stopped := false
	e.RunUntil(func(info engine.StepInfo) bool {
		if info.Index%4096 == 0 && ctx.Err() != nil {
			stopped = true
		}
		return stopped || stopEarly && ev.Resolved()
	})
	if stopped && !e.Done() {
		return j, errStopped
	}
	if err := ev.Err(); err != nil {
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
