package batch

import (
	"context"
	"errors"
	"fmt"

	"github.com/detsim/detsim/bundle/verdict"
	"github.com/detsim/detsim/engine"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/scenarios"
)

// PanicError is a panic inside a run (a host or the engine): a bug, not
// an input problem.
type PanicError struct{ Value any }

func (e *PanicError) Error() string { return fmt.Sprintf("panic during the run: %v", e.Value) }

// ErrStopped is returned by Watch when its context ended the run early.
var ErrStopped = errors.New("run stopped")

// checkEvery is how many engine steps pass between looks at the context.
const checkEvery = 1 << 12

// Watch runs sc in memory, with no bundle, while ev evaluates it as a
// stream, until the run ends or stop (nil: never) says so after a step.
// It returns the engine where the run stopped. It returns ErrStopped if
// ctx ended the run first, a *PanicError if a host or the engine
// panicked, and the evaluator's error for a malformed record. Sweeps and
// the shrinker run their candidates through it.
func Watch(ctx context.Context, sc *scenarios.Scenario, reg *hosts.Registry, ev *verdict.Evaluator, stop func() bool) (e *engine.Engine, err error) {
	return watch(ctx, sc, reg, ev, stop, false)
}

// Judge is Watch with nothing serialised: ev judges each record from the
// value its host built (engine.Options.Headless), so the run makes no
// JSON and no digest (the engine's Digest is ""). Its verdicts are
// Watch's, and the bundle's (sweep TestTypedJudging_MatchesBundle); a
// caller that wants the digest runs the scenario again through Watch,
// which determinism makes the same run.
func Judge(ctx context.Context, sc *scenarios.Scenario, reg *hosts.Registry, ev *verdict.Evaluator, stop func() bool) (*engine.Engine, error) {
	return watch(ctx, sc, reg, ev, stop, true)
}

func watch(ctx context.Context, sc *scenarios.Scenario, reg *hosts.Registry, ev *verdict.Evaluator, stop func() bool, headless bool) (e *engine.Engine, err error) {
	defer func() {
		if r := recover(); r != nil {
			e, err = nil, &PanicError{r}
		}
	}()
	e, err = engine.New(sc, reg, engine.Options{Monitor: Monitor(ev), Headless: headless})
	if err != nil {
		return nil, err
	}
	stopped := false
	if stop == nil {
		// The context is looked at after every checkEvery-th step, as
		// below, without a call per step.
		for !stopped && !e.RunTo((e.Index()/checkEvery+1)*checkEvery) {
			stopped = ctx.Err() != nil
		}
	} else {
		e.RunUntil(func(info engine.StepInfo) bool {
			if info.Index%checkEvery == 0 && ctx.Err() != nil {
				stopped = true
			}
			return stopped || stop()
		})
	}
	if stopped && !e.Done() {
		return nil, ErrStopped
	}
	if err := e.Err(); err != nil {
		return nil, err
	}
	if err := ev.Err(); err != nil {
		return nil, err
	}
	return e, nil
}
