package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/supervise"
	"github.com/detsim/detsim/internal/term"
	"github.com/detsim/detsim/scenarios"
)

// What every command that runs a scenario does before and after its
// work, once: the commands differ in their flags and their work, and
// used to differ here only by drift (issue 33).

// interruptible is the context a command that takes a while runs under:
// cancelled by the first SIGINT or SIGTERM, after which the signals'
// default behaviour is back, so a second one kills the process at once
// even if the command is stuck ending, as signal.NotifyContext's docs
// advise. Call stop when the command returns.
func interruptible() (ctx context.Context, stop context.CancelFunc) {
	ctx, stop = signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	context.AfterFunc(ctx, stop)
	return ctx, stop
}

// loadScenario is resolveScenario for a command: its error, suggestions
// included, is the message, and the exit is 2.
func loadScenario(arg string, reg *hosts.Registry, stderr io.Writer) (*scenarios.Scenario, int) {
	sc, err := resolveScenario(arg, reg)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return nil, exitUsage
	}
	return sc, exitOK
}

// usageOf is usageErr for the run's own flags (fs "detsim"), usageErrIn
// for a subcommand's.
func usageOf(fs *flag.FlagSet, stderr io.Writer, format string, args ...any) int {
	if fs.Name() == "detsim" {
		return usageErr(stderr, format, args...)
	}
	return usageErrIn(stderr, fs.Name(), format, args...)
}

// bundleDir is where a run of sc writes its bundle: --out as given (out,
// from fs), else bundles/<name>-<seed> with suffix ("-live"), refused if
// it holds another scenario's bundle (checkDefaultOut).
func bundleDir(fs *flag.FlagSet, out string, sc *scenarios.Scenario, suffix string, stderr io.Writer) (string, int) {
	if out != "" {
		return out, exitOK
	}
	if flagSet(fs, "out") {
		return "", usageOf(fs, stderr, "--out is empty; name a directory, or leave --out out for bundles/<name>-<seed>%s", suffix)
	}
	dir, err := defaultBundlePath(sc)
	if err == nil {
		err = checkDefaultOut(dir+suffix, sc)
	}
	if err != nil {
		fmt.Fprintf(stderr, "detsim: %v\n", err)
		return "", exitUsage
	}
	return dir + suffix, exitOK
}

// runFailed reports a real-time run's error under what ("live") and
// returns its exit: 2 for input the run refused, 3 for anything else.
func runFailed(stderr io.Writer, what string, err error) int {
	fmt.Fprintf(stderr, "detsim: %s: %v\n", what, err)
	var ie *supervise.InputError
	if errors.As(err, &ie) {
		return exitUsage
	}
	return exitInternal
}

// realtimeProgress is a real-time run's progress line (live, testbed),
// redrawn in place on stderr; nil when stderr is no terminal. clear
// erases the line before anything else is printed.
func realtimeProgress(stderr io.Writer, what string, sc *scenarios.Scenario) (progress func(supervise.Progress), clear func()) {
	if !isTerminal(stderr) {
		return nil, func() {}
	}
	return func(p supervise.Progress) {
			term.ClearLine(stderr)
			fmt.Fprintf(stderr, "%s %s  %s / %s  %d records", what, sc.Name, fmtShortNs(p.ElapsedNs), fmtShortNs(p.DurationNs), p.Records)
		}, func() {
			term.ClearLine(stderr)
		}
}

// realtimeExit prints a real-time run's summary and returns its exit:
// 130 when the user interrupted it, 1 when an assertion failed.
func realtimeExit(ctx context.Context, stdout io.Writer, r runSummary, start time.Time) int {
	printRunSummary(stdout, r, time.Since(start))
	switch {
	case r.Interrupted != "" && ctx.Err() != nil:
		return exitInterrupted
	case failed(r.Verdicts):
		return exitFailed
	}
	return exitOK
}
