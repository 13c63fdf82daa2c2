package cli

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/detsim/detsim/bundle/verdict"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/kinds/swim/daemoncli"
	"github.com/detsim/detsim/kinds/swim/live"
	"github.com/detsim/detsim/kinds/swim/live/node"
	"github.com/detsim/detsim/scenarios"
)

const liveUsage = `usage: detsim live SCENARIO [--out DIR] [--procs [--swimd PATH]] [--key-file FILE] [--max-duration D]

Runs every peer of a swim SCENARIO as a real SWIM node on 127.0.0.1 —
the same kinds/swim/swim code on a UDP socket, the wall clock and real timers
— with the scenario's links applied by a user-space shaper (detsim's own
link model) and its mutations at their times, and writes a bundle with
the simulator's layout and schema, marked live (docs/live.md). It takes
the scenario's duration in real time. Peers run in this process, or with
--procs as swimd child processes. Ctrl-C ends the run early with a
complete bundle marked interrupted. Every datagram is authenticated
with a cluster key, a fresh random one per run unless --key-file names
one (hex, 16-64 bytes; never on the command line, where any local user
can read it). Exit: 0 nothing failed, 1 an assertion failed, 2 invalid
input, 3 internal error, 130 interrupted.
`

func cmdLive(reg *hosts.Registry, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("live", flag.ContinueOnError)
	out := fs.String("out", "", "bundle directory (default bundles/<name>-<seed>-live)")
	procs := fs.Bool("procs", false, "run each peer as a swimd child process")
	swimd := fs.String("swimd", "", "with --procs: a swimd binary (default: this detsim, as the swimd daemon)")
	keyFile := fs.String("key-file", "", "file holding the cluster key in hex, 16-64 bytes (default: a fresh random key for this run)")
	fs.String("key", "", "refused: a key on the command line is readable by any local user (ps); use --key-file")
	maxDur := fs.Duration("max-duration", live.DefaultMaxDuration, "stop (bundle marked interrupted) after this much real time")
	seedFlag := fs.Uint64("seed", 0, "override the scenario's seed (the shaper's draws)")
	// The flags, then this command's own checks of its arguments, alike
	// in shape across the subcommands: the shared steps are
	// prologue.go's, the checks and their messages are each command's.
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return flagErr(fs, err, stdout, stderr)
	}
	if len(pos) != 1 {
		return usageErrIn(stderr, "live", "needs exactly one SCENARIO, got %d", len(pos))
	}
	if *maxDur <= 0 {
		return usageErrIn(stderr, "live", "--max-duration %v: want a positive duration", *maxDur)
	}
	sc, code := loadScenario(pos[0], reg, stderr)
	if code != exitOK {
		return code
	}
	if flagSet(fs, "seed") {
		if *seedFlag > scenarios.MaxSeed {
			return usageErrIn(stderr, "live", "--seed %d: seeds go up to %d", *seedFlag, uint64(scenarios.MaxSeed))
		}
		sc.Seed = *seedFlag
	}
	cfg := live.Config{Version: version(), MaxDuration: *maxDur}
	if cfg.Out, code = bundleDir(fs, *out, sc, "-live", stderr); code != exitOK {
		return code
	}
	if flagSet(fs, "key") {
		return usageErrIn(stderr, "live", "--key: a cluster key is never taken on the command line, where any local user can read it (ps); write it in hex to a file only you can read and pass --key-file FILE")
	}
	if *keyFile != "" {
		if cfg.ClusterKey, err = daemoncli.ReadKeyFile("--key-file", *keyFile); err != nil {
			return usageErrIn(stderr, "live", "%v", err)
		}
		if err := node.CheckKey(cfg.ClusterKey); err != nil {
			return usageErrIn(stderr, "live", "--key-file %s: %v", *keyFile, err)
		}
	}
	if *procs {
		if cfg.Swimd, cfg.SwimdArgs, err = findSwimd(*swimd); err != nil {
			return usageErrIn(stderr, "live", "--procs: %v", err)
		}
	} else if *swimd != "" {
		return usageErrIn(stderr, "live", "--swimd goes with --procs")
	}
	var clearProgress func()
	cfg.Progress, clearProgress = realtimeProgress(stderr, "live", sc)

	ctx, stop := interruptible()
	defer stop()
	fmt.Fprintf(stdout, "live      %s (%s), seed %d, %d peers, %s real time\n", sc.Name, sc.Path, sc.Seed, len(sc.Peers), fmtShortNs(sc.DurationNs))
	start := time.Now()
	res, err := live.Run(ctx, sc, reg, cfg)
	clearProgress()
	if err != nil {
		return runFailed(stderr, "live", err)
	}
	return realtimeExit(ctx, stdout, runSummary{res.EndNs, res.Interrupted, res.Records, res.Late, res.Digest, res.Out, res.Verdicts}, start)
}

func failed(vs []verdict.Verdict) bool {
	for _, v := range vs {
		if v.Outcome == verdict.Fail {
			return true
		}
	}
	return false
}

// runSummary is what a real-time run (live, testbed) reports.
type runSummary struct {
	EndNs       int64
	Interrupted string
	Records     int64
	Late        int64
	Digest      string
	Out         string
	Verdicts    []verdict.Verdict
}

func printRunSummary(w io.Writer, r runSummary, wall time.Duration) {
	end := fmtNs(r.EndNs)
	if r.Interrupted != "" {
		end += " (INTERRUPTED: " + r.Interrupted + ")"
	}
	fmt.Fprintf(w, "duration  %s wall clock\n", end)
	fmt.Fprintf(w, "events    %d records (%d written after the end, left out)\n", r.Records, r.Late)
	fmt.Fprintf(w, "wall      %s\n", wall.Round(time.Millisecond))
	fmt.Fprintf(w, "digest    %s\n", r.Digest)
	fmt.Fprintf(w, "bundle    %s\n", r.Out)
	for _, v := range r.Verdicts {
		line := fmt.Sprintf("  %-12s %s", v.Outcome, v.Name)
		if v.Reason != "" {
			line += ": " + v.Reason
		}
		fmt.Fprintln(w, line)
	}
}

// fmtShortNs is a duration for a progress line: whole seconds.
func fmtShortNs(ns int64) string { return (time.Duration(ns) / time.Second * time.Second).String() }

// swimdMode is the first argument that makes detsim the swimd daemon
// (main): `detsim swimd --id a ...` is kinds/swim/cmd/swimd, the same package
// (kinds/swim/live/swimd) in this binary, so that testbed and live --procs need no
// other binary. It is no command of the overview: a user runs swimd.
const swimdMode = "swimd"

// findSwimd resolves the swimd daemon: the flag's binary, else this
// executable in swimd mode (args: what goes before the daemon's own).
// Itself rather than a swimd found on PATH: the daemon is then the same
// build as the simulator it is compared with.
func findSwimd(flagValue string) (path string, args []string, err error) {
	if flagValue != "" {
		path, err := findDaemon(flagValue, "swimd", "go build ./kinds/swim/cmd/swimd")
		return path, nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return "", nil, fmt.Errorf("finding this executable to run as swimd: %v; pass a swimd binary (go build ./kinds/swim/cmd/swimd)", err)
	}
	return self, []string{swimdMode}, nil
}

// findDaemon resolves a daemon binary name: the flag's path, else name
// beside this executable, else name on PATH; build says how to make it.
func findDaemon(flagValue, name, build string) (string, error) {
	if flagValue != "" {
		if _, err := os.Stat(flagValue); err != nil {
			return "", fmt.Errorf("%s binary %s: %v", name, flagValue, err)
		}
		return flagValue, nil
	}
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), name)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("no %s beside detsim or on PATH: build it with %s, or pass its path", name, build)
}
