package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/detsim/detsim/batch"
	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/debugger"
	"github.com/detsim/detsim/engine"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/scratch"
	"github.com/detsim/detsim/internal/vtime"
	"github.com/detsim/detsim/scenarios"
	"github.com/detsim/detsim/tui"
)

// multiFlag collects a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// runFlags are the flags of a run: the stepper, --batch, --break-on.
type runFlags struct {
	fs         *flag.FlagSet
	batch      *bool
	seed, out  *string
	breakOn    multiFlag
	watch      multiFlag
	until      *string
	width      *int
	maxRecords *int64
	maxBytes   *int64
	cpMem      byteSize
}

func newRunFlags() *runFlags {
	fs := flag.NewFlagSet("detsim", flag.ContinueOnError)
	f := &runFlags{fs: fs}
	f.batch = fs.Bool("batch", false, "run headless and write a bundle")
	f.seed = fs.String("seed", "", "override the scenario's seed")
	f.out = fs.String("out", "", "bundle directory (default bundles/<name>-<seed>)")
	fs.Var(&f.breakOn, "break-on", "stop at fail|fail=NAME|verdict|host=H|time=T|step=N or record conditions ('type=T field=V …'): with --batch, print the panes there; in the stepper, armed for c (repeatable)")
	fs.Var(&f.watch, "watch", "follow a value, 'host=H member=M field=F' (fra's view of orch: host=fra member=orch field=state): with --batch, print every change with its step and record; in the stepper, } and { go to its next and previous change (repeatable with --batch)")
	f.until = fs.String("until", "", "with --batch: stop at this virtual time (12.5s) or step (step=N) and print the panes")
	f.width = fs.Int("width", 160, "with --break-on/--until: width of the printed panes")
	f.maxRecords = fs.Int64("max-records", batch.DefaultMaxRecords, "with --batch: stop the run, its bundle marked truncated, once it has written this many records (0: no cap)")
	f.maxBytes = fs.Int64("max-bytes", batch.DefaultMaxBytes, "with --batch: stop the run, its bundle marked truncated, once its records take this many bytes (0: no cap)")
	f.cpMem = engine.DefaultCheckpointBudget
	fs.Var(&f.cpMem, "checkpoint-budget", "the bytes the stepper's checkpoints may hold together, or with a unit (512MiB, 1GiB, 800MB); 0 keeps none (every step back re-executes from the seed). It bounds the checkpoints, not the process: the run itself and its garbage come on top (docs/tui.md, \"Checkpoints\")")
	fs.Func("checkpoint-mem", "renamed --checkpoint-budget", func(string) error {
		// The old name read as a memory limit, which it never was (issue
		// 22: the 1000-peer session peaked at 1.15 GB with 384MiB).
		return errors.New("renamed --checkpoint-budget: it bounds the checkpoints the stepper keeps, not the memory the process uses (docs/tui.md, \"Checkpoints\")")
	})
	return f
}

// cmdRun is `detsim [flags] [SCENARIO]`: the stepper, a batch run, or a
// headless run to a breakpoint.
func cmdRun(reg *hosts.Registry, args []string, stdout, stderr io.Writer) int {
	f := newRunFlags()
	pos, err := parseInterspersed(f.fs, args)
	if err != nil {
		return flagErr(f.fs, err, stdout, stderr)
	}
	if len(pos) > 1 {
		return usageErr(stderr, "one scenario at a time, got %d: %s", len(pos), strings.Join(pos, " "))
	}
	stopping := len(f.breakOn) > 0 || *f.until != ""
	if *f.until != "" && !*f.batch {
		return usageErr(stderr, "--until goes with --batch (in the stepper: g 12.5s, or --break-on time=12.5s and c)")
	}
	if stopping && *f.batch && flagSet(f.fs, "out") {
		// A run stopped at a breakpoint prints the panes and writes no
		// bundle; taking --out silently left the directory empty
		// (issue 33).
		return usageErr(stderr, "--out goes with a whole --batch run: --break-on and --until stop it part-way, print the panes there and write no bundle (drop --out, or run --batch --out DIR SCENARIO for the bundle)")
	}
	arg := tui.DefaultScenario
	if len(pos) == 1 {
		arg = pos[0]
	} else if *f.batch {
		return usageErr(stderr, "--batch needs a SCENARIO (a file, or a name from 'detsim list')")
	}
	if !*f.batch && !tui.TerminalAvailable() {
		return usageErr(stderr, "the stepper needs a terminal; run headless with --batch %s", arg)
	}
	bps, code := f.breakpoints(stderr) // before the scenario loads: a bad spec is the clearer error
	if code != exitOK {
		return code
	}
	var watches []debugger.Watch
	for _, spec := range f.watch {
		w, err := debugger.ParseWatch(spec)
		if err != nil {
			return usageErr(stderr, "--watch: %v", err)
		}
		watches = append(watches, w)
	}
	switch {
	case len(watches) > 0 && stopping:
		return usageErr(stderr, "--watch goes with --batch (the whole run) or the stepper, not --break-on or --until")
	case len(watches) > 1 && !*f.batch:
		return usageErr(stderr, "the stepper follows one --watch at a time")
	}
	sc, code := f.scenario(arg, reg, stderr)
	if code != exitOK {
		return code
	}
	// Names are checked against the run: a typo is an error now, not a
	// breakpoint that never fires.
	schema := debugger.NewSchema(sc, reg)
	for i, b := range bps {
		if err := schema.Check(b); err != nil {
			flag := "--break-on"
			if i >= len(f.breakOn) {
				flag = "--until"
			}
			return usageErr(stderr, "%s: %v", flag, err)
		}
	}
	for i := range watches {
		if err := schema.CheckWatch(&watches[i]); err != nil {
			return usageErr(stderr, "--watch: %v", err)
		}
	}
	switch {
	case !*f.batch:
		mem := int64(f.cpMem)
		opts := tui.Options{Breakpoints: bps, Version: version(), CheckpointBudget: &mem}
		if len(watches) == 1 {
			opts.Watch = &watches[0]
		}
		if err := tui.Run(sc, reg, opts); err != nil {
			fmt.Fprintf(stderr, "detsim: %v\n", err)
			return exitInternal
		}
		return exitOK
	case stopping:
		return runToBreak(sc, reg, bps, *f.width, arg, stdout, stderr)
	}
	return f.runBatch(sc, reg, arg, watches, stdout, stderr)
}

// breakpoints parses --break-on and --until.
func (f *runFlags) breakpoints(stderr io.Writer) ([]debugger.Breakpoint, int) {
	var bps []debugger.Breakpoint
	for _, spec := range f.breakOn {
		bp, err := debugger.ParseBreakpoint(spec)
		if err != nil {
			return nil, usageErr(stderr, "--break-on %q: %v", spec, err)
		}
		bps = append(bps, bp)
	}
	if *f.until != "" {
		bp, err := debugger.ParseUntil(*f.until)
		if err != nil {
			return nil, usageErr(stderr, "--until %q: %v", *f.until, err)
		}
		bps = append(bps, bp)
	}
	return bps, exitOK
}

// scenario loads arg with --seed applied.
func (f *runFlags) scenario(arg string, reg *hosts.Registry, stderr io.Writer) (*scenarios.Scenario, int) {
	sc, code := loadScenario(arg, reg, stderr)
	if code != exitOK {
		return nil, code
	}
	if *f.seed != "" {
		s, err := strconv.ParseUint(*f.seed, 10, 63)
		if err != nil {
			return nil, usageErr(stderr, "--seed %q: want an integer in [0, 2^63)", *f.seed)
		}
		sc.Seed = s
	}
	return sc, exitOK
}

// runBatch is `detsim --batch SCENARIO`: one run written as a bundle.
func (f *runFlags) runBatch(sc *scenarios.Scenario, reg *hosts.Registry, arg string, watches []debugger.Watch, stdout, stderr io.Writer) int {
	dir, code := bundleDir(f.fs, *f.out, sc, "", stderr)
	if code != exitOK {
		return code
	}
	if *f.maxRecords < 0 || *f.maxBytes < 0 {
		return usageErr(stderr, "--max-records and --max-bytes take a count, or 0 for no cap")
	}
	defer removeScratchOnSignal(stderr)()
	start := time.Now()
	cfg := batch.Config{Out: dir, Version: version(),
		MaxRecords: noCapIsNegative(*f.maxRecords), MaxBytes: noCapIsNegative(*f.maxBytes)}
	if len(watches) > 0 {
		cfg.Tap = watchTap(watches, stdout)
	}
	res, err := batch.Run(sc, reg, cfg)
	wall := time.Since(start)
	if err != nil {
		var oe *batch.OutError
		if errors.As(err, &oe) {
			fmt.Fprintf(stderr, "detsim: --out: %v\n", err)
			return exitUsage
		}
		fmt.Fprintf(stderr, "detsim: %v\n", err)
		return exitInternal
	}
	printResult(stdout, res, arg, wall)
	if res.Truncated != "" {
		fmt.Fprintf(stderr, "detsim: TRUNCATED: %s; verdicts cover the run up to there\n", res.Truncated)
	}
	if res.Failed() {
		return exitFailed
	}
	return exitOK
}

// watchTap prints every change of each watched value as the run makes
// it: the value before and after, the step, the time and the record, one
// line each, grep-able.
func watchTap(watches []debugger.Watch, w io.Writer) func(line, step, at int64, b []byte) {
	ts := make([]*debugger.Watcher, len(watches))
	for i, wa := range watches {
		ts[i] = debugger.NewWatcher(wa)
		fmt.Fprintf(w, "watch     %s: %s\n", wa, wa.Doc())
	}
	return func(line, step, at int64, b []byte) {
		for i, t := range ts {
			c, ok := t.Feed(line, step, at, b)
			if !ok {
				continue
			}
			old := c.Old
			if old == "" {
				old = "(unset)"
			}
			fmt.Fprintf(w, "change    %s: %s → %s  step %d  t=%s  events.ndjson#L%d  %s", watches[i], old, c.New, c.Step, fmtNs(c.At), c.Line, b)
		}
	}
}

// noCapIsNegative maps the flags' "0: no cap" to batch.Config's.
func noCapIsNegative(v int64) int64 {
	if v == 0 {
		return -1
	}
	return v
}

// defaultBundlePath is bundles/<name>-<seed>, where a run given no --out
// writes (live and testbed add a suffix).
func defaultBundlePath(sc *scenarios.Scenario) (string, error) {
	dir, err := bundle.DefaultDir("bundles", sc.Name, sc.Seed)
	if err != nil {
		return "", fmt.Errorf("%s: %w", sc.Path, err)
	}
	return dir, nil
}

// checkDefaultOut refuses a default output directory that holds a bundle
// of another scenario: the name and seed do not say whose bundle stands
// there, and a shrunk scenario keeps its original's name (issue 22).
func checkDefaultOut(dir string, sc *scenarios.Scenario) error {
	if err := bundle.CheckDefaultDir(dir, sc.Path, fmt.Sprintf("%x", sc.SourceSHA256)); err != nil {
		return fmt.Errorf("%w; pass --out %s to replace it, or --out another directory", err, dir)
	}
	return nil
}

// removeScratchOnSignal makes a SIGINT or SIGTERM during a batch run
// remove the run's work directory and lock before the process exits
// (128 + the signal's number, as a shell reports it). The returned
// function stops listening; call it when the run is over.
func removeScratchOnSignal(stderr io.Writer) (stop func()) {
	sigs := make(chan os.Signal, 1)
	done := make(chan struct{})
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case s := <-sigs:
			scratch.RemoveLive()
			fmt.Fprintf(stderr, "detsim: %v: stopped; the unfinished bundle was removed, any old one kept\n", s)
			code := exitInterrupted
			if s == syscall.SIGTERM {
				code = 128 + int(syscall.SIGTERM)
			}
			os.Exit(code)
		case <-done:
		}
	}()
	return func() { signal.Stop(sigs); close(done) }
}

func printResult(w io.Writer, r *batch.Result, arg string, wall time.Duration) {
	sc := r.Scenario
	pass, fail, inc := r.Counts()
	rate := float64(r.Records) / max(wall.Seconds(), 1e-9)
	fmt.Fprintf(w, "scenario  %s (%s)\n", sc.Name, sc.Path)
	fmt.Fprintf(w, "seed      %d\n", sc.Seed)
	end := fmt.Sprintf("%s virtual", fmtNs(r.EndNs))
	if r.Early {
		end += " (early termination: every assertion resolved)"
	}
	if r.Truncated != "" {
		end += " (TRUNCATED at an output cap)"
	}
	fmt.Fprintf(w, "duration  %s\n", end)
	fmt.Fprintf(w, "events    %d records in %d steps\n", r.Records, r.Steps)
	fmt.Fprintf(w, "wall      %s (%.0f records/s)\n", wall.Round(time.Millisecond), rate)
	fmt.Fprintf(w, "digest    %s\n", r.Digest)
	fmt.Fprintf(w, "parity    %s\n", r.Parity)
	fmt.Fprintf(w, "bundle    %s\n", r.Out)
	fmt.Fprintf(w, "verdicts  %d pass, %d fail, %d inconclusive\n", pass, fail, inc)
	for _, v := range r.Verdicts {
		line := fmt.Sprintf("  %-12s %s", v.Outcome, v.Name)
		if v.Reason != "" {
			line += ": " + v.Reason
		}
		if len(v.Evidence) > 0 {
			line += fmt.Sprintf(" [%s @ %s]", v.Evidence[0].Ref, fmtNs(v.Evidence[0].VirtualTimeNs))
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintf(w, "replay    detsim --batch --seed %d %s\n", sc.Seed, arg)
}

// fmtNs renders virtual nanoseconds as seconds with all nine decimals
// (vtime.Fixed), negative ones included.
func fmtNs(ns int64) string { return vtime.Fixed(ns) }
