package sweep

import (
	"context"
	"fmt"

	"github.com/detsim/detsim/batch"
	"github.com/detsim/detsim/bundle/verdict"
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
var ErrAbandoned = batch.ErrStopped

// RunScenario runs sc to its end with no bundle and returns its verdicts
// and digest. It returns ErrAbandoned if ctx is done before the run ends,
// and a *batch.PanicError if the run panicked.
func RunScenario(ctx context.Context, sc *scenarios.Scenario, reg *hosts.Registry) (*Outcome, error) {
	return runWith(ctx, sc, reg, true)
}

// judgeScenario is RunScenario with nothing serialised (batch.Judge): the
// verdicts, with no digest.
func judgeScenario(ctx context.Context, sc *scenarios.Scenario, reg *hosts.Registry) (*Outcome, error) {
	return runWith(ctx, sc, reg, false)
}

// runWith runs sc headless with an evaluator of its assertions: through
// batch.Watch with its digest if digest, else through batch.Judge, which
// serialises nothing and so has none.
func runWith(ctx context.Context, sc *scenarios.Scenario, reg *hosts.Registry, digest bool) (*Outcome, error) {
	run := batch.Judge
	if digest {
		run = batch.Watch
	}
	ev, err := verdict.New(sc.Assertions)
	if err != nil {
		return nil, err
	}
	e, err := run(ctx, sc, reg, ev, nil)
	if err != nil {
		return nil, err
	}
	out := &Outcome{EndNs: e.Now(), Records: e.Records(), Verdicts: ev.Finish(e.Now())}
	if digest {
		out.Digest = e.Digest()
	}
	return out, nil
}

// digestAgain runs a judged seed again, serialised, for its digest: the
// same run, since a run is a function of its scenario. The verdicts of
// the two must agree byte for byte; if they ever do not, the seed is an
// error (a bug in a judge's typed reading), never a quiet verdict.
func digestAgain(ctx context.Context, sc *scenarios.Scenario, reg *hosts.Registry, judged *Outcome) (*Outcome, error) {
	out, err := RunScenario(ctx, sc, reg)
	if err != nil {
		return nil, err
	}
	if string(verdict.Marshal(out.Verdicts)) != string(verdict.Marshal(judged.Verdicts)) || out.EndNs != judged.EndNs || out.Records != judged.Records {
		return nil, fmt.Errorf("sweep: %s: judged from typed records, the run's verdicts differ from its serialised run's (a bug)", sc.Name)
	}
	return out, nil
}
