// Package batch runs one scenario headless from start to finish and leaves
// its bundle on disk: engine with the bundle writer attached, every
// assertion judged from the records as they are written (the verdicts
// verdict.EvaluateBundle reaches from the bundle, the authority for a
// reader of it), then the manifest.
// It is what `detsim --batch` and seed sweeps run; the stepper uses the
// engine directly and writes nothing.
package batch

import (
	"errors"
	"fmt"
	"runtime"
	"strings"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/bundle/verdict"
	"github.com/detsim/detsim/bundle/verdict/monitor"
	"github.com/detsim/detsim/engine"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/vtime"
	"github.com/detsim/detsim/scenarios"
)

// Config says where a run goes and what produced it.
type Config struct {
	// Out is the bundle directory: it must not exist, or be a bundle,
	// which is replaced atomically.
	Out string
	// Version is the simulator's commit, recorded in the manifest.
	Version string
	// MaxRecords and MaxBytes cap what the run writes: the run stops at
	// the end of the step that reaches either, and its bundle, whole and
	// consistent up to there, is marked truncated (Result.Truncated, the
	// manifest's "truncated"). Zero means the default cap; a negative
	// value means no cap.
	MaxRecords, MaxBytes int64
	// Tap, when set, sees every record as it is written: its line in
	// events.ndjson, the step that emitted it, its virtual time and the
	// line itself (valid only during the call). --batch --watch reads
	// the run through it.
	Tap func(line, step, at int64, b []byte)
}

// The default caps on one run's output. A 1000-peer SWIM mesh writes
// about 30 000 records (5.5 MB) per virtual second, so the caps stop such
// a run after about eleven virtual minutes, and a three-peer reproduction
// never comes near them; what they prevent is an accepted scenario that
// quietly fills the disk.
const (
	DefaultMaxRecords = 20_000_000
	DefaultMaxBytes   = 4 << 30
)

// caps resolves a Config cap: zero is the default, negative is none
// (the engine's zero).
func caps(v, def int64) int64 {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

// Result is what a finished run reports.
type Result struct {
	Scenario *scenarios.Scenario
	Out      string
	EndNs    int64 // virtual time the run ended at
	Early    bool  // ended by early termination (§4.8)
	// Truncated says why the run stopped at a cap before its end, or is
	// empty (Config.MaxRecords, MaxBytes).
	Truncated string
	Steps     int64
	Records   int64
	Digest    string // the engine's running digest of every record
	Parity    string // the cross-architecture parity checksum (§7.6)
	Verdicts  []verdict.Verdict
}

// Counts tallies verdict outcomes.
func (r *Result) Counts() (pass, fail, inconclusive int) {
	for _, v := range r.Verdicts {
		switch v.Outcome {
		case verdict.Pass:
			pass++
		case verdict.Fail:
			fail++
		default:
			inconclusive++
		}
	}
	return
}

// Failed reports whether any assertion failed.
func (r *Result) Failed() bool {
	_, fail, _ := r.Counts()
	return fail > 0
}

// OutError is a problem with the --out path or the disk under it — a path
// that exists and is not a bundle, one in use by another run, a disk that
// filled up: the environment's problem, not a crash.
type OutError struct{ Err error }

func (e *OutError) Error() string { return e.Err.Error() }
func (e *OutError) Unwrap() error { return e.Err }

// Run executes sc to completion and writes its bundle to cfg.Out. A
// panic in a host or the engine is not recovered here: it is a bug, and
// the caller decides how to report it.
func Run(sc *scenarios.Scenario, reg *hosts.Registry, cfg Config) (*Result, error) {
	w, err := bundle.Create(cfg.Out)
	if err != nil {
		return nil, &OutError{err}
	}
	ok := false
	defer func() {
		if !ok {
			w.Abort()
		}
	}()
	// The assertions are judged as the run writes its records, from the
	// values the hosts built, rather than by reading events.ndjson back:
	// the same verdicts (TestRun_PostRunAgreesWithStreaming_Library holds
	// them byte-equal to verdict.EvaluateBundle over the bundle written,
	// which stays what a reader of the bundle uses) without parsing
	// hundreds of megabytes a second time. The same evaluator ends the
	// run early when the scenario asks for it.
	ev, err := verdict.New(sc.Assertions)
	if err != nil {
		return nil, err
	}
	maxRecords, maxBytes := caps(cfg.MaxRecords, DefaultMaxRecords), caps(cfg.MaxBytes, DefaultMaxBytes)
	opts := engine.Options{Writer: w, Monitor: Monitor(ev), JudgeBuilt: true, MaxRecords: maxRecords, MaxBytes: maxBytes}
	var e *engine.Engine
	if cfg.Tap != nil {
		// e is set before the first step, the only time the tap runs.
		opts.Tap = func(line, at int64, b []byte) { cfg.Tap(line, e.Index(), at, b) }
	}
	e, err = engine.New(sc, reg, opts)
	if err != nil {
		return nil, err
	}
	w.TrustEventsHash() // the engine hashes every line for its digest anyway
	if err := e.Run(); err != nil {
		return nil, writeErr("writing the bundle", err)
	}
	w.SetEventsSHA256(e.EventsSHA256())
	if err := e.Err(); err != nil { // the last batch of records is written by EventsSHA256
		return nil, writeErr("writing the bundle", err)
	}
	if err := w.FlushEvents(); err != nil {
		return nil, writeErr("writing the bundle", err)
	}
	// Everything the result needs from the engine, taken now: nothing
	// after this point refers to the engine, so the collector may reuse
	// its memory while the verdicts are concluded.
	end, digest, early, steps, records := e.Now(), e.Digest(), e.EarlyTerminated(), e.Index(), e.Records()
	truncated := ""
	if e.Truncated() {
		truncated = fmt.Sprintf("the run stopped at virtual time %s, before its duration_ns (%s), having written %d records (%d bytes): the cap is %s",
			vtime.Seconds(end), vtime.Seconds(sc.DurationNs), e.Records()+e.Snapshots(), e.Bytes(), capText(maxRecords, maxBytes))
	}
	if err := ev.Err(); err != nil {
		return nil, fmt.Errorf("evaluating assertions: %w", err)
	}
	vs := ev.Conclude(end, truncated != "")
	m := bundle.Manifest{
		SimulatorVersion: cfg.Version,
		ScenarioPath:     sc.Path,
		ScenarioSHA256:   fmt.Sprintf("%x", sc.SourceSHA256),
		Seed:             sc.Seed,
		DurationNs:       end,
		Truncated:        truncated,
		HostArch:         runtime.GOARCH,
		Digest:           digest,
	}
	if err := w.Finish(m, sc.TOML(), verdict.Marshal(vs)); err != nil {
		return nil, writeErr("finishing the bundle", err)
	}
	ok = true
	final := w.Manifest()
	return &Result{
		Scenario: sc, Out: cfg.Out, EndNs: end, Early: early, Truncated: truncated,
		Steps: steps, Records: records, Digest: digest,
		Parity: bundle.ParityChecksum(final), Verdicts: vs,
	}, nil
}

// capText names the caps in force and the flags that raise them.
func capText(maxRecords, maxBytes int64) string {
	var parts []string
	if maxRecords > 0 {
		parts = append(parts, fmt.Sprintf("%d records (--max-records)", maxRecords))
	}
	if maxBytes > 0 {
		parts = append(parts, fmt.Sprintf("%d bytes (--max-bytes)", maxBytes))
	}
	return strings.Join(parts, " or ")
}

// writeErr wraps err with what was being done, as an *OutError when the
// filesystem refused the write.
func writeErr(doing string, err error) error {
	err = fmt.Errorf("%s: %w", doing, err)
	if bundle.IsWriteFailure(err) || errors.Is(err, bundle.ErrOutExists) {
		return &OutError{err}
	}
	return err
}

// Monitor adapts the streaming evaluator to the engine's Monitor
// (monitor.New, which the headless debugger uses too).
func Monitor(ev *verdict.Evaluator) engine.Monitor { return monitor.New(ev) }

// EvalMonitor is the streaming evaluator as an engine.Monitor; monitor.Evaluator
// gets the evaluator back from engine.Engine.Monitor().
type EvalMonitor = monitor.Monitor
