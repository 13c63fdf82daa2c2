package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/outfile"
	"github.com/detsim/detsim/kinds/swim/testbed"
	"github.com/detsim/detsim/scenarios"
)

const testbedUsage = `usage: detsim testbed SCENARIO [--out DIR] [--impl swimd|memberlist] [--daemon PATH] [--max-duration D]
       detsim testbed --probe SCENARIO [--probe-duration D] [--derive FILE [--force]]
       detsim testbed --sweep

Runs every peer of a swim SCENARIO as a real daemon in a network
namespace of its own, on a real kernel network: veth pairs at the links'
MTU (the kernel fragments and reassembles), an HTB class per directed
edge for bandwidth, nftables loss per packet at each receiver, and a
delay line (a TUN device) for latency and jitter whose draws come from
the operating system, not the seed. Mutations are applied at their
times (partitions and loss bursts as nftables rules, kills as the
process stopped). Writes a bundle marked testbed, with every realised
edge in its manifest and every delay drawn in testbed/delays.tsv
(docs/testbed.md). Takes the scenario's duration in real time, plus a
few seconds to build and remove the network. Needs root, ip, tc and nft.

--impl swimd runs detsim's SWIM daemon, this binary as 'detsim swimd'
(the same code as kinds/swim/cmd/swimd; --daemon names another); --impl memberlist runs
bench's memberlistd (unmodified hashicorp/memberlist): build it with
(cd kinds/swim/bench && go build -o ../../../memberlistd ./cmd/memberlistd).

--probe builds the scenario's network with no daemons, measures each
edge with its own probes (RTT, loss of small and of MTU-exceeding
datagrams, throughput) and prints them beside what the scenario asked;
--derive writes the measured links as [[links]] tables, which a
calibration scenario extending SCENARIO takes: latency the median
one-way delay, jitter its interquartile range / 1.349 (a heavier tail is
said, not fitted), bandwidth only when the link and not the probe's own
sending ceiling limited the throughput (docs/testbed.md).

The bundle's manifest states the testbed's own error: the delay line's
lateness (p50, p99, max) and the machine's load through the run; a
recording whose p99 lateness exceeds a tenth of the smallest latency
asked is marked, and calibrate says so beside every row it judges.

--sweep removes the namespaces a killed testbed run left (every run
also does this first) and exits: only namespaces the run recorded
making and marked, never one by its name alone; any other namespace
named dtb-... is left and reported.

Nothing outside the run's own namespaces is touched; all of it is
removed at exit, on Ctrl-C, and, after a SIGKILL, by the next run.
Exit: 0 nothing failed, 1 an assertion failed, 2 invalid input or a
machine that cannot run it, 3 internal error, 130 interrupted.
`

func cmdTestbed(reg *hosts.Registry, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("testbed", flag.ContinueOnError)
	out := fs.String("out", "", "bundle directory (default bundles/<name>-<seed>-testbed-<impl>)")
	impl := fs.String("impl", testbed.ImplSwimd, "the daemons: swimd or memberlist")
	daemonPath := fs.String("daemon", "", "the daemon binary (default: for swimd, this detsim as the swimd daemon; memberlistd beside detsim, else on PATH)")
	maxDur := fs.Duration("max-duration", testbed.DefaultMaxDuration, "stop (bundle marked interrupted) after this much real time")
	probe := fs.Bool("probe", false, "measure the scenario's realised edges instead of running daemons")
	probeDur := fs.Duration("probe-duration", 10*time.Second, "with --probe: how long to probe each measurement (the small datagrams' ten times as long on a network with a serialising wire)")
	derive := fs.String("derive", "", "with --probe: also write the measured links as [[links]] tables to this file (a calibration scenario's)")
	force := fs.Bool("force", false, "with --derive: replace the file if it exists")
	sweep := fs.Bool("sweep", false, "remove what killed testbed runs left, and exit")
	// The flags, then this command's own checks of its arguments, alike
	// in shape across the subcommands: the shared steps are
	// prologue.go's, the checks and their messages are each command's.
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return flagErr(fs, err, stdout, stderr)
	}
	if *sweep {
		if len(pos) != 0 {
			return usageErrIn(stderr, "testbed", "--sweep takes no SCENARIO")
		}
		if err := testbed.Preflight(); err != nil {
			fmt.Fprintf(stderr, "detsim: %v\n", err)
			return exitUsage
		}
		swept, err := testbed.Sweep()
		for _, ns := range swept.Removed {
			fmt.Fprintf(stdout, "removed   %s\n", ns)
		}
		printLeft(stdout, swept.Left)
		if err != nil {
			fmt.Fprintf(stderr, "detsim: %v\n", err)
			return exitInternal
		}
		fmt.Fprintf(stdout, "swept     %d namespaces of dead runs\n", len(swept.Removed))
		return exitOK
	}
	if len(pos) != 1 {
		return usageErrIn(stderr, "testbed", "needs exactly one SCENARIO, got %d", len(pos))
	}
	if *maxDur <= 0 {
		return usageErrIn(stderr, "testbed", "--max-duration %v: want a positive duration", *maxDur)
	}
	sc, code := loadScenario(pos[0], reg, stderr)
	if code != exitOK {
		return code
	}
	ctx, stop := interruptible() // a second Ctrl-C kills at once; the next run sweeps
	defer stop()
	if *probe {
		if *probeDur <= 0 || *probeDur > 10*time.Minute {
			return usageErrIn(stderr, "testbed", "--probe-duration %v: want more than 0 and at most 10m (each of three phases)", *probeDur)
		}
		if *derive != "" {
			if err := outfile.Check(*derive, *force); err != nil {
				return usageErrIn(stderr, "testbed", "--derive: %v", err)
			}
		}
		return runProbe(ctx, sc, *probeDur, *derive, *force, stdout, stderr)
	} else if *derive != "" {
		return usageErrIn(stderr, "testbed", "--derive goes with --probe")
	}

	cfg := testbed.Config{Version: version(), Impl: *impl, MaxDuration: *maxDur}
	if _, err := testbed.NewPlan(sc, *impl); err != nil { // before looking for binaries
		fmt.Fprintf(stderr, "detsim: %v\n", err)
		return exitUsage
	}
	if err := testbed.Preflight(); err != nil {
		fmt.Fprintf(stderr, "detsim: %v\n", err)
		return exitUsage
	}
	if *impl == testbed.ImplMemberlist { // bench's module: not in this binary
		cfg.Daemon, err = findDaemon(*daemonPath, "memberlistd", "(cd kinds/swim/bench && go build -o ../../../memberlistd ./cmd/memberlistd)")
	} else {
		cfg.Daemon, cfg.DaemonArgs, err = findSwimd(*daemonPath)
	}
	if err != nil {
		return usageErrIn(stderr, "testbed", "--impl %s: %v", *impl, err)
	}
	if cfg.Out, code = bundleDir(fs, *out, sc, "-testbed-"+*impl, stderr); code != exitOK {
		return code
	}
	var clearProgress func()
	cfg.Progress, clearProgress = realtimeProgress(stderr, "testbed", sc)
	fmt.Fprintf(stdout, "testbed   %s (%s), %d peers as %s, %s real time\n", sc.Name, sc.Path, len(sc.Peers), *impl, fmtShortNs(sc.DurationNs))
	start := time.Now()
	res, err := testbed.Run(ctx, sc, cfg)
	clearProgress()
	if err != nil {
		return runFailed(stderr, "testbed", err)
	}
	for _, ns := range res.Swept.Removed {
		fmt.Fprintf(stdout, "swept     %s (a killed run's)\n", ns)
	}
	printLeft(stdout, res.Swept.Left)
	fmt.Fprintf(stdout, "network   built in %s, removed in %s; the delay line dropped %d packets for its buffer and %d for a serialised edge's full queue\n",
		time.Duration(res.SetupNs).Round(time.Millisecond), time.Duration(res.TeardownNs).Round(time.Millisecond), res.HeldDropped, res.WireFull)
	l := res.Lateness
	fmt.Fprintf(stdout, "delay     %d packets written back late by p50 %s, p99 %s, max %s (against %s, the smallest latency asked)",
		l.Packets, usNs(l.P50Ns), usNs(l.P99Ns), usNs(l.MaxNs), usNs(l.SmallestLatencyNs))
	if ld := res.Load; ld != nil {
		fmt.Fprintf(stdout, "; 1-min load min %.2f, median %.2f, max %.2f on %d cores", ld.Load1Min, ld.Load1Median, ld.Load1Max, ld.CPUs)
	}
	fmt.Fprintln(stdout)
	if res.Marked != "" {
		fmt.Fprintf(stdout, "marked    %s: the recording's own error is large against its links (docs/testbed.md, \"The testbed's own error\")\n", res.Marked)
	}
	return realtimeExit(ctx, stdout, runSummary{res.EndNs, res.Interrupted, res.Records, res.Late, res.Digest, res.Out, res.Verdicts}, start)
}

// usNs is ns as a duration to the microsecond: a delay line's lateness
// is tens of microseconds to milliseconds.
func usNs(ns int64) string { return time.Duration(ns).Round(time.Microsecond).String() }

// printLeft names the namespaces called like a testbed run's that a
// sweep did not touch, so that whoever made them knows they are there.
func printLeft(w io.Writer, left []testbed.Left) {
	for _, l := range left {
		fmt.Fprintf(w, "left      %s: not ours: left (%s)\n", l.Name, l.Why)
	}
}

// runProbe is `detsim testbed --probe` (docs/testbed.md, "Measured").
func runProbe(ctx context.Context, sc *scenarios.Scenario, each time.Duration, derive string, force bool, stdout, stderr io.Writer) int {
	rep, err := testbed.Probe(ctx, sc, testbed.ProbeConfig{Duration: each})
	if err != nil {
		return runFailed(stderr, "testbed --probe", err)
	}
	rep.Print(stdout)
	if ctx.Err() != nil {
		return exitInterrupted
	}
	if derive != "" {
		var b strings.Builder
		rep.WriteLinks(&b)
		if err := outfile.Write(derive, []byte(b.String()), force); err != nil {
			fmt.Fprintf(stderr, "detsim: testbed --derive: %v\n", err)
			return exitUsage
		}
		fmt.Fprintf(stdout, "derived   %s\n", derive)
	}
	return exitOK
}
