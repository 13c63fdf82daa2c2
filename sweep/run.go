package sweep

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

// Outcome is what one headless run reports.
type Outcome struct {
	EndNs    int64
	Records  int64
	Digest   string // the engine's digest of every record, as --batch prints it
	Verdicts []verdict.Verdict
}

// Failing returns the names of the assertions that failed, in
// declaration order.
func (o *Outcome) Failing() []string {
	var names []string
	for _, v := range o.Verdicts {
		if v.Outcome == verdict.Fail {
			names = append(names, v.Name)
		}
	}
	return names
}

// Failed reports whether any assertion failed.
func (o *Outcome) Failed() bool { return len(o.Failing()) > 0 }

// ErrAbandoned is returned by RunScenario when ctx ended the run early.
var ErrAbandoned = errors.New("run abandoned")

// PanicError is a panic inside a run (a host or the engine): a bug, not
// an input problem.
type PanicError struct{ Value any }

func (e *PanicError) Error() string { return fmt.Sprintf("panic during the run: %v", e.Value) }

// checkEvery is how many engine steps pass between looks at ctx.
const checkEvery = 1 << 12

// RunScenario runs sc to its end with no bundle and returns its verdicts
// and digest. It returns ErrAbandoned if ctx is done before the run ends,
// and a *PanicError if the run panicked.
func RunScenario(ctx context.Context, sc *scenarios.Scenario, reg *hosts.Registry) (out *Outcome, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, &PanicError{r}
		}
	}()
	ev, err := verdict.New(sc.Assertions)
	if err != nil {
		return nil, err
	}
	e, err := engine.New(sc, reg, engine.Options{Monitor: batch.Monitor(ev)})
	if err != nil {
		return nil, err
	}
	abandoned := false
	e.RunUntil(func(info engine.StepInfo) bool {
		if info.Index%checkEvery == 0 && ctx.Err() != nil {
			abandoned = true
		}
		return abandoned
	})
	if abandoned && !e.Done() {
		return nil, ErrAbandoned
	}
	if err := e.Err(); err != nil {
		return nil, err
	}
	if err := ev.Err(); err != nil {
		return nil, err
	}
	return &Outcome{EndNs: e.Now(), Records: e.Records(), Digest: e.Digest(), Verdicts: ev.Finish(e.Now())}, nil
}
