package supervise

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/detsim/detsim/network"
	"github.com/detsim/detsim/scenarios"
)

const ms = int64(time.Millisecond)

// loop is a Loop over sc on the wall clock that records what it applied.
func loop(sc *scenarios.Scenario, maxDur time.Duration, applied *[]scenarios.Scheduled) *Loop {
	start := time.Now()
	end, capped, limit := End(sc, maxDur, time.Hour)
	return &Loop{
		Scenario: sc, End: end, Capped: capped, MaxDuration: limit,
		Clock:   func() int64 { return int64(time.Since(start)) },
		Records: new(atomic.Int64),
		Apply: func(it scenarios.Scheduled) (string, error) {
			*applied = append(*applied, it)
			return "", nil
		},
	}
}

// The loop applies the timeline in the engine's order (by time, a
// mutation before a snapshot at one instant), then ends at the
// scenario's end, or at the duration cap with the cap as the reason,
// and reports its progress last at the end.
func TestLoop_AppliesTheTimelineInOrderToTheEnd(t *testing.T) {
	sc := &scenarios.Scenario{DurationNs: 60 * ms,
		Mutations: []network.Mutation{{At: 20 * ms}, {At: 10 * ms}},
		Snapshots: []int64{10 * ms}}
	var applied []scenarios.Scheduled
	l := loop(sc, 0, &applied)
	var last Progress
	l.Progress = func(p Progress) { last = p }
	end, why, err := l.Run(context.Background())
	want := []scenarios.Scheduled{{At: 10 * ms, Index: 1}, {At: 10 * ms, Snapshot: true}, {At: 20 * ms}}
	if err != nil || why != "" || end != sc.DurationNs || !slices.Equal(applied, want) {
		t.Errorf("Run = %d, %q, %v; applied %v, want %d, \"\", nil and %v", end, why, err, applied, sc.DurationNs, want)
	}
	if last.ElapsedNs != sc.DurationNs || last.DurationNs != sc.DurationNs {
		t.Errorf("the last progress report %+v, want the end", last)
	}

	applied = nil
	end, why, err = loop(sc, 15*time.Millisecond, &applied).Run(context.Background())
	if err != nil || end != 15*ms || !strings.Contains(why, "duration cap of 15ms") || !slices.Equal(applied, want[:2]) {
		t.Errorf("capped at 15 ms: Run = %d, %q, %v; applied %v", end, why, err, applied)
	}
}

// Each other way a run ends early is its reason: the caller's watch, a
// stop from Apply, an error from Apply, the record cap, cancellation.
func TestLoop_EndsEarlyWithTheReason(t *testing.T) {
	sc := &scenarios.Scenario{DurationNs: int64(time.Hour), Mutations: []network.Mutation{{At: 0}}}
	for _, c := range []struct {
		name string
		edit func(l *Loop) context.Context
		want string
		err  error
	}{
		{"watch", func(l *Loop) context.Context {
			l.Watch, l.WatchEvery = func(int64) string { return "peer a's daemon exited" }, time.Millisecond
			return context.Background()
		}, "peer a's daemon exited", nil},
		{"apply stops", func(l *Loop) context.Context {
			l.Apply = func(scenarios.Scheduled) (string, error) { return "peer a could not begin", nil }
			return context.Background()
		}, "peer a could not begin", nil},
		{"apply fails", func(l *Loop) context.Context {
			l.Apply = func(scenarios.Scheduled) (string, error) { return "", errBoom }
			return context.Background()
		}, "", errBoom},
		{"record cap", func(l *Loop) context.Context {
			l.MaxRecords, l.ProgressEvery = 5, time.Millisecond
			l.Records.Store(5)
			return context.Background()
		}, "the cap is 5 records", nil},
		{"cancelled", func(*Loop) context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}, "cancelled after", nil},
	} {
		var applied []scenarios.Scheduled
		l := loop(sc, 0, &applied)
		_, why, err := l.Run(c.edit(l)) // an hour-long scenario: only the early end returns
		if !errors.Is(err, c.err) || c.want == "" && why != "" || !strings.Contains(why, c.want) {
			t.Errorf("%s: Run = %q, %v; want a reason containing %q, error %v", c.name, why, err, c.want, c.err)
		}
	}
}

var errBoom = errors.New("boom")
