package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/detsim/detsim/batch"
	"github.com/detsim/detsim/debugger"
	"github.com/detsim/detsim/engine"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/hosts/builtin"
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
	f.until = fs.String("until", "", "with --batch: stop at this virtual time (12.5s) or step (step=N) and print the panes")
	f.width = fs.Int("width", 160, "with --break-on/--until: width of the printed panes")
	f.maxRecords = fs.Int64("max-records", batch.DefaultMaxRecords, "with --batch: stop the run, its bundle marked truncated, once it has written this many records (0: no cap)")
	f.maxBytes = fs.Int64("max-bytes", batch.DefaultMaxBytes, "with --batch: stop the run, its bundle marked truncated, once its records take this many bytes (0: no cap)")
	f.cpMem = engine.DefaultCheckpointBudget
	fs.Var(&f.cpMem, "checkpoint-mem", "the stepper's checkpoint budget in `bytes`, or with a unit (512MiB, 1GiB, 800MB); 0 keeps none (every step back re-executes from the seed)")
	return f
}

// cmdRun is `detsim [flags] [SCENARIO]`: the stepper, a batch run, or a
// headless run to a breakpoint.
func cmdRun(args []string, stdout, stderr io.Writer) int {
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
	reg := builtin.Registry()
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
	switch {
	case !*f.batch:
		mem := int64(f.cpMem)
		if err := tui.Run(sc, reg, tui.Options{Breakpoints: bps, Version: version(), CheckpointMem: &mem}); err != nil {
			fmt.Fprintf(stderr, "detsim: %v\n", err)
			return exitInternal
		}
		return exitOK
	case stopping:
		return runToBreak(sc, reg, bps, *f.width, arg, stdout, stderr)
	}
	return f.runBatch(sc, reg, arg, stdout, stderr)
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
	sc, err := resolveScenario(arg, reg)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return nil, exitUsage
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
func (f *runFlags) runBatch(sc *scenarios.Scenario, reg *hosts.Registry, arg string, stdout, stderr io.Writer) int {
	dir := *f.out
	switch {
	case flagSet(f.fs, "out") && dir == "":
		return usageErr(stderr, "--out is empty; name a directory, or leave --out out for bundles/<name>-<seed>")
	case dir == "":
		var err error
		if dir, err = defaultBundlePath(sc); err != nil {
			fmt.Fprintf(stderr, "detsim: %v\n", err)
			return exitUsage
		}
	}
	if *f.maxRecords < 0 || *f.maxBytes < 0 {
		return usageErr(stderr, "--max-records and --max-bytes take a count, or 0 for no cap")
	}
	defer removeScratchOnSignal(stderr)()
	start := time.Now()
	res, err := batch.Run(sc, reg, batch.Config{Out: dir, Version: version(),
		MaxRecords: noCapIsNegative(*f.maxRecords), MaxBytes: noCapIsNegative(*f.maxBytes)})
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

// noCapIsNegative maps the flags' "0: no cap" to batch.Config's.
func noCapIsNegative(v int64) int64 {
	if v == 0 {
		return -1
	}
	return v
}

// defaultBundlePath is bundles/<name>-<seed>. The loader validates names
// so this is always one new path element under bundles/; the check here
// is the last line of defence, since the path is about to be written.
func defaultBundlePath(sc *scenarios.Scenario) (string, error) {
	base := fmt.Sprintf("%s-%d", sc.Name, sc.Seed)
	if base != filepath.Base(base) || strings.HasPrefix(base, ".") || filepath.Clean(base) != base {
		return "", fmt.Errorf("%s: name %q cannot name a bundle directory; use letters, digits, '_', '-' and '.', or pass --out", sc.Path, sc.Name)
	}
	return filepath.Join("bundles", base), nil
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
