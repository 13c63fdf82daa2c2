// Package supervise is what a real-time run (kinds/swim/live's nodes on
// loopback, kinds/swim/testbed's daemons on a kernel network) does
// around its peers: the loop that applies the scenario's timeline at
// its times on the wall clock, reports progress and ends the run — at
// the scenario's end, at the duration or record cap, on cancellation,
// or when the run's own watch says so — and, once the peers are down,
// the end that merges the spooled records into the bundle and judges
// the assertions on them. The two runs differ in how they start, stop
// and fault peers, never in these, so the code is one (issue 33).
//
// Outside the determinism fence: it reads the wall clock.
package supervise

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/bundle/verdict"
	"github.com/detsim/detsim/internal/scratch"
	"github.com/detsim/detsim/internal/spool"
	"github.com/detsim/detsim/scenarios"
)

// DefaultMaxRecords is a real-time run's record cap when its Config
// says 0.
const DefaultMaxRecords = 20_000_000

// InputError is a scenario, a machine or an output path a real-time run
// cannot take: the CLI's exit 2, not a crash.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// Begin creates a run's bundle writer at out (a path it cannot take is
// an InputError) and its spool directory (Spool). Abort the writer and
// remove the directory when the run is over.
func Begin(out, spoolPrefix string) (*bundle.Writer, *scratch.Entry, error) {
	w, err := bundle.Create(out)
	if err != nil {
		return nil, nil, &InputError{err}
	}
	dir, err := Spool(spoolPrefix)
	if err != nil {
		w.Abort()
		return nil, nil, err
	}
	return w, dir, nil
}

// Spool makes the directory a run's sources spool their records in
// (internal/spool): a detsim temporary named prefix, locked while this
// process lives, made after sweeping the ones runs killed before left.
// Remove it when the records are merged.
func Spool(prefix string) (*scratch.Entry, error) {
	_ = scratch.Sweep(os.TempDir(), prefix, nil)
	return scratch.Dir(os.TempDir(), prefix)
}

// Progress is one progress report.
type Progress struct {
	ElapsedNs, DurationNs int64
	Records               int64
}

// End is when a run of sc stops: the scenario's end, or maxDur of real
// time if that comes first (capped). maxDur 0 means def.
func End(sc *scenarios.Scenario, maxDur, def time.Duration) (end int64, capped bool, limit time.Duration) {
	if maxDur <= 0 {
		maxDur = def
	}
	end = sc.DurationNs
	if int64(maxDur) < end {
		return int64(maxDur), true, maxDur
	}
	return end, false, maxDur
}

// Loop is one run's schedule and its stopping rules.
type Loop struct {
	Scenario *scenarios.Scenario
	// End, Capped and MaxDuration are End's answer.
	End         int64
	Capped      bool
	MaxDuration time.Duration
	// Clock is nanoseconds since the run's start instant.
	Clock func() int64
	// Records counts every record the run's sources have written;
	// MaxRecords (0: DefaultMaxRecords) stops the run once it is reached.
	Records    *atomic.Int64
	MaxRecords int64
	// Progress, when set, is called about every ProgressEvery (default
	// 1 s) and once at the end.
	Progress      func(Progress)
	ProgressEvery time.Duration
	// Apply carries out one timeline item at its time. A stop reason
	// other than "" ends the run there (a peer that could not begin its
	// next life); an error ends it as failed.
	Apply func(scenarios.Scheduled) (stop string, err error)
	// Watch, when set, is asked every WatchEvery (default 50 ms) whether
	// something outside the schedule ended the run (a daemon that died):
	// a reason other than "" ends it there.
	Watch      func(now int64) string
	WatchEvery time.Duration
}

// Run applies the timeline at its times and stops at the end, at a cap,
// on ctx's cancellation or when Apply or Watch says so. It returns the
// end instant and, if the run ended before the scenario's end, why.
// The peers are the caller's: started before Run, stopped after.
func (l *Loop) Run(ctx context.Context) (int64, string, error) {
	sc, end := l.Scenario, l.End
	maxRecords := l.MaxRecords
	if maxRecords <= 0 {
		maxRecords = DefaultMaxRecords
	}
	every := l.ProgressEvery
	if every <= 0 {
		every = time.Second
	}
	items := sc.Timeline()
	progress := time.NewTicker(every)
	defer progress.Stop()
	var watch <-chan time.Time // nil: never ready
	if l.Watch != nil {
		we := l.WatchEvery
		if we <= 0 {
			we = 50 * time.Millisecond
		}
		t := time.NewTicker(we)
		defer t.Stop()
		watch = t.C
	}
	timer := time.NewTimer(0)
	defer timer.Stop()
	report := func() {
		if l.Progress != nil {
			l.Progress(Progress{ElapsedNs: min(l.Clock(), end), DurationNs: end, Records: l.Records.Load()})
		}
	}
	next := 0
	for {
		due := end
		if next < len(items) && items[next].At <= end {
			due = items[next].At
		}
		timer.Reset(time.Duration(max(due-l.Clock(), 0)))
		select {
		case <-ctx.Done():
			stop := l.Clock()
			report()
			return stop, fmt.Sprintf("cancelled after %d ns of the scenario's %d ns (%v)", stop, sc.DurationNs, context.Cause(ctx)), nil
		case <-progress.C:
			report()
			if n := l.Records.Load(); n >= maxRecords {
				stop := l.Clock()
				return stop, fmt.Sprintf("stopped after %d ns having written %d records: the cap is %d records", stop, n, maxRecords), nil
			}
			continue
		case <-watch:
			now := l.Clock()
			if why := l.Watch(now); why != "" {
				report()
				return now, why, nil
			}
			continue
		case <-timer.C:
		}
		if next < len(items) && items[next].At <= end {
			stop, err := l.Apply(items[next])
			if err != nil {
				return 0, "", err
			}
			if stop != "" {
				report()
				return l.Clock(), stop, nil
			}
			next++
			continue
		}
		report()
		if l.Capped {
			return end, fmt.Sprintf("stopped at the duration cap of %v, before the scenario's %d ns", l.MaxDuration, sc.DurationNs), nil
		}
		return end, "", nil
	}
}

// Judged is a run's records merged into its bundle and its assertions
// judged on them.
type Judged struct {
	// Late is how many records the sources wrote after the end instant,
	// while being stopped; they are not in the bundle.
	Late     int64
	Verdicts []verdict.Verdict
	// Digest is the run digest of the events as merged and the
	// snapshots as written.
	Digest string
}

// Judge merges the spool files sources into w's events.ndjson up to end
// and judges sc's assertions on them, over a run cut at end when it was
// interrupted. what prefixes its errors ("live", "testbed").
func Judge(w *bundle.Writer, sources []string, sc *scenarios.Scenario, end int64, interrupted, what string) (*Judged, error) {
	w.TrustEventsHash() // merge hashes the lines it writes
	sum, late, err := spool.Merge(sources, end, w)
	if err != nil {
		return nil, fmt.Errorf("%s: merging records: %w", what, err)
	}
	w.SetEventsSHA256(fmt.Sprintf("%x", sum))
	if err := w.FlushEvents(); err != nil {
		return nil, err
	}
	evaluate := verdict.EvaluateBundle
	if interrupted != "" {
		evaluate = verdict.EvaluateCutBundle
	}
	vs, err := evaluate(w.Dir(), sc.Assertions, end)
	if err != nil {
		return nil, fmt.Errorf("%s: evaluating assertions: %w", what, err)
	}
	return &Judged{Late: late, Verdicts: vs, Digest: w.RunDigestOf(sum)}, nil // the snapshots as written, hashed as written
}

// Manifest is the part of a real-time run's manifest every such run
// fills the same way; the caller adds what only its mode records.
func Manifest(sc *scenarios.Scenario, version, mode string, end int64, interrupted string, j *Judged) bundle.Manifest {
	return bundle.Manifest{
		SimulatorVersion: version,
		ScenarioPath:     sc.Path,
		ScenarioSHA256:   fmt.Sprintf("%x", sc.SourceSHA256),
		Seed:             sc.Seed,
		DurationNs:       end,
		HostArch:         runtime.GOARCH,
		Digest:           j.Digest,
		Mode:             mode,
		Interrupted:      interrupted,
		Machine:          &bundle.Machine{GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, CPUs: runtime.NumCPU(), GoVersion: runtime.Version()},
	}
}

// Finish writes the bundle (m, sc as run, the verdicts) to out and
// returns its manifest as written, the record count filled in.
func Finish(w *bundle.Writer, out string, m bundle.Manifest, sc *scenarios.Scenario, j *Judged) (bundle.Manifest, error) {
	if err := w.Finish(m, sc.TOML(), verdict.Marshal(j.Verdicts)); err != nil {
		return bundle.Manifest{}, err
	}
	return bundle.ReadManifest(out)
}
