package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/detsim/detsim/batch"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/term"
	"github.com/detsim/detsim/property"
	"github.com/detsim/detsim/sweep"
)

// exitInterrupted is a sweep or check stopped by SIGINT or SIGTERM with
// nothing failing so far: the shell's 128 + SIGINT.
const exitInterrupted = 130

const sweepUsage = `usage: detsim sweep PROPERTY --seeds N [flags]

Runs seeds S … S+N−1 of PROPERTY (a property file, else an embedded
property: agent_faults, agent_faults_bug, gossip_flap,
gossip_flap_legacy, gossip_flap_wan, gossip_flap_wan_legacy) on W workers and prints every
failing seed with the command that replays it. Failing seeds are pinned
to --corpus DIR as soon as they are found; the default is
scenarios/regression for a property that expects to pass, and nowhere for
one that expects to fail. --shard i/n runs the i-th of n contiguous blocks
of the seeds; the --json seed lines of shards 1 … n, concatenated, are the
unsharded sweep's (docs/sweeps.md). On a Kubernetes Indexed Job or a CI
matrix, --shard-from-env JOB_COMPLETION_INDEX --shards n takes the shard
from that variable instead: a 0-based index, so index 0 is shard 1/n.
Exit: 0 the expectation held, 1 it did not, 2 invalid input or a
failing seed NOT PINNED, 3 a run crashed, 130 interrupted with nothing
failing.
`

func cmdSweep(reg *hosts.Registry, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	seeds := fs.String("seeds", "", "run `N` seeds (required)")
	start := fs.String("start", "0", "the first seed, `S`")
	workers := fs.Int("workers", 0, "`W` runs at once (default: every core)")
	shardFlag := fs.String("shard", "", "run block `i/n` of the seeds (1 <= i <= n)")
	shardEnv := fs.String("shard-from-env", "", "take the shard from the environment variable `VAR`, a 0-based index (JOB_COMPLETION_INDEX on a Kubernetes Indexed Job); needs --shards")
	shards := fs.String("shards", "", "with --shard-from-env: the number of shards, `n`")
	corpus := fs.String("corpus", "", "pin failing seeds to `DIR` (default: "+sweep.DefaultCorpus+" for an expect = \"pass\" property, else none; '' pins nothing)")
	asJSON := fs.Bool("json", false, "one JSON object per seed, then a summary object")
	verbose := fs.Bool("v", false, "also print passing seeds")
	force := fs.Bool("force", false, "let a pin replace a different pin of the same seed (or any file at its path)")
	// The flags, then this command's own checks of its arguments, alike
	// in shape across the subcommands: the shared steps are
	// prologue.go's, the checks and their messages are each command's.
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return flagErr(fs, err, stdout, stderr)
	}
	if len(pos) != 1 {
		return usageErrIn(stderr, "sweep", "want one PROPERTY (a property file, or one of: %s), got %d", strings.Join(property.LibraryNames(reg), ", "), len(pos))
	}
	count, err := strconv.ParseUint(*seeds, 10, 63)
	if err != nil || count == 0 {
		return usageErrIn(stderr, "sweep", "--seeds %q: want a positive integer", *seeds)
	}
	first, err := strconv.ParseUint(*start, 10, 63)
	if err != nil {
		return usageErrIn(stderr, "sweep", "--start %q: want an integer in [0, 2^63)", *start)
	}
	if *workers < 0 {
		return usageErrIn(stderr, "sweep", "--workers %d: want a positive number", *workers)
	}
	shard, shardFrom, err := sweepShard(fs, *shardFlag, *shardEnv, *shards)
	if err != nil {
		return usageErrIn(stderr, "sweep", "%v", err)
	}
	if err := sweep.CheckSeeds(shard, first, count); err != nil {
		return usageErrIn(stderr, "sweep", "%v", err)
	}
	prop, err := resolveProperty(pos[0], reg)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	dir := *corpus
	if !flagSet(fs, "corpus") && prop.Expect == property.ExpectPass {
		dir = sweep.DefaultCorpus
	}

	ctx, stop := interruptible()
	defer stop()
	relaxGC()

	prog := sweep.NewProgress(stderr, isTerminal(stderr), "sweep "+prop.Name)
	rep := &sweepReport{out: stdout, json: *asJSON, verbose: *verbose, arg: pos[0], prop: prop, before: prog.Clear, shardFrom: shardFrom}
	cfg := sweep.Config{
		Start: first, Count: count, Shard: shard, Workers: *workers, Corpus: dir, Force: *force,
		Digests: *asJSON, // every seed line carries its digest
		OnSeed:  rep.seed, OnProgress: prog.Update,
	}
	lo, n := shard.Seeds(first, count)
	rep.header(lo, n, sweep.Workers(*workers), shard, dir)
	began := time.Now()
	sum, err := sweep.Run(ctx, prop, reg, cfg)
	prog.Close()
	if err != nil {
		fmt.Fprintf(stderr, "detsim: sweep: %v\n", err)
		return exitUsage
	}
	rep.summary(sum)
	wall := time.Since(began)
	fmt.Fprintf(stderr, "sweep %s: %d seeds in %s (%.1f seeds/s)\n", prop.Name, sum.Ran, wall.Round(time.Millisecond), float64(sum.Ran)/max(wall.Seconds(), 1e-9))
	if n := len(sum.NotPinned); n > 0 {
		fmt.Fprintf(stderr, "detsim: sweep: %d failing seed(s) NOT PINNED to %s (%s): see NOT PINNED above\n", n, dir, seedList(sum.NotPinned))
	}
	return sweepExit(sum)
}

// sweepShard is the shard the flags ask for: --shard i/n, or
// --shard-from-env VAR with --shards n, where VAR holds a 0-based index;
// the zero Shard (the whole sweep) if neither. from says where an
// environment shard came from ("JOB_COMPLETION_INDEX=2"), for the header.
// The environment is read here, in cmd: what it selects is only which
// seeds run, and each seed's run is the same wherever it runs.
func sweepShard(fs *flag.FlagSet, spec, envVar, count string) (shard sweep.Shard, from string, err error) {
	switch {
	case flagSet(fs, "shard") && flagSet(fs, "shard-from-env"):
		return shard, "", errors.New("--shard and --shard-from-env both name the shard; give one")
	case flagSet(fs, "shards") && !flagSet(fs, "shard-from-env"):
		return shard, "", errors.New("--shards goes with --shard-from-env VAR (with --shard, write i/n)")
	case flagSet(fs, "shard"):
		shard, err = sweep.ParseShard(spec)
		if err != nil {
			err = fmt.Errorf("--shard: %w", err)
		}
		return shard, "", err
	case !flagSet(fs, "shard-from-env"):
		return shard, "", nil
	case envVar == "":
		return shard, "", errors.New("--shard-from-env: name the variable that holds the shard index (JOB_COMPLETION_INDEX on a Kubernetes Indexed Job)")
	case !flagSet(fs, "shards"):
		return shard, "", fmt.Errorf("--shard-from-env %s needs --shards n, the number of shards", envVar)
	}
	index, ok := os.LookupEnv(envVar)
	if !ok {
		return shard, "", fmt.Errorf("--shard-from-env %s: the variable is not set (it should hold this shard's 0-based index)", envVar)
	}
	if shard, err = sweep.IndexShard(index, count); err != nil {
		return shard, "", fmt.Errorf("--shard-from-env %s=%q --shards %s: %w", envVar, index, count, err)
	}
	return shard, envVar + "=" + strings.TrimSpace(index), nil
}

func sweepExit(s *sweep.Summary) int {
	code := exitOK
	for _, e := range s.Errors {
		var pe *batch.PanicError
		if errors.As(e.Err, &pe) {
			return exitInternal
		}
		code = exitUsage
	}
	switch {
	case code != exitOK:
		return code
	case len(s.NotPinned) > 0:
		// A failing seed the corpus was to keep is not kept: whatever
		// the verdict, the sweep did not do what it was asked.
		return exitUsage
	case s.Expect == property.ExpectPass && len(s.Failed) > 0:
		return exitFailed
	case s.Interrupted:
		return exitInterrupted
	case !s.Met():
		return exitFailed
	}
	return exitOK
}

// sweepReport prints a sweep's seeds and summary, as text or JSON lines.
type sweepReport struct {
	out     io.Writer
	json    bool
	verbose bool
	arg     string // the property as the user named it, for replay commands
	prop    *property.Property
	before  func() // called before a line is printed: clears the progress bar
	// shardFrom is where the shard came from, "JOB_COMPLETION_INDEX=2",
	// when --shard-from-env chose it.
	shardFrom string
}

func (r *sweepReport) header(first, n uint64, workers int, shard sweep.Shard, corpus string) {
	if r.json {
		return
	}
	where := "not pinned"
	if corpus != "" {
		where = "failing seeds pinned to " + corpus
	}
	fmt.Fprintf(r.out, "sweep     %s (%s), expect %s\n", r.prop.Name, r.prop.Path, r.prop.Expect)
	seeds := fmt.Sprintf("%d to %d (%d)", first, first+n-1, n)
	if n == 0 {
		seeds = "none"
	}
	if shard.Of > 0 {
		seeds += ", shard " + shard.String()
		if r.shardFrom != "" {
			seeds += " (" + r.shardFrom + ")"
		}
	}
	fmt.Fprintf(r.out, "seeds     %s on %d workers, %s\n", seeds, workers, where)
}

// replay is the command that reruns one seed.
func (r *sweepReport) replay(s sweep.SeedResult) string {
	if s.Pinned != "" {
		return "detsim --batch " + s.Pinned
	}
	return fmt.Sprintf("detsim sweep %s --start %d --seeds 1", r.arg, s.Seed)
}

type seedJSON struct {
	Type    string   `json:"type"`
	Seed    uint64   `json:"seed"`
	Peers   int      `json:"peers"`
	Outcome string   `json:"outcome"` // pass | fail | error
	Failing []string `json:"failing"`
	Digest  string   `json:"digest,omitempty"`
	Pinned  string   `json:"pinned,omitempty"`
	Replay  string   `json:"replay"`
	Error   string   `json:"error,omitempty"`
}

func (r *sweepReport) seed(s sweep.SeedResult) {
	j := seedJSON{Type: "seed", Seed: s.Seed, Peers: s.Peers, Outcome: "pass", Failing: []string{}, Pinned: s.Pinned, Replay: r.replay(s)}
	switch {
	case s.Err != nil:
		j.Outcome, j.Error = "error", s.Err.Error()
	default:
		j.Digest = s.Outcome.Digest
		if f := s.Outcome.Failing(); len(f) > 0 {
			j.Outcome, j.Failing = "fail", f
		}
	}
	if s.PinErr != nil {
		j.Error = "pinning: " + s.PinErr.Error()
	}
	r.before()
	if r.json {
		writeJSONLine(r.out, j)
		return
	}
	switch {
	case j.Outcome == "error":
		fmt.Fprintf(r.out, "ERROR     seed %d: %s\n", s.Seed, oneLine(j.Error))
	case j.Outcome == "fail":
		fmt.Fprintf(r.out, "FAIL      seed %d  peers %d  failing %s\n", s.Seed, s.Peers, strings.Join(j.Failing, ", "))
		if s.Pinned != "" {
			fmt.Fprintf(r.out, "          pinned %s\n", s.Pinned)
		}
		if s.PinErr != nil {
			fmt.Fprintf(r.out, "          NOT PINNED: %v\n", s.PinErr)
		}
		fmt.Fprintf(r.out, "          replay %s\n", j.Replay)
	case r.prop.Expect == property.ExpectFail:
		fmt.Fprintf(r.out, "pass      seed %d  peers %d  (the property expects failures)\n", s.Seed, s.Peers)
	case r.verbose:
		fmt.Fprintf(r.out, "pass      seed %d  peers %d\n", s.Seed, s.Peers)
	}
}

// A JSON report's fields, alike in shape to schemadiff's Report by chance of
// field types only.
type summaryJSON struct {
	Type              string   `json:"type"`
	Property          string   `json:"property"`
	Expect            string   `json:"expect"`
	MinFailingPercent int64    `json:"min_failing_percent,omitempty"`
	First             uint64   `json:"first"`
	Planned           uint64   `json:"planned"`
	Ran               uint64   `json:"ran"`
	Failed            []uint64 `json:"failed"`
	Errors            int      `json:"errors"`
	NotPinned         []uint64 `json:"not_pinned,omitempty"`
	Interrupted       bool     `json:"interrupted"`
	Met               bool     `json:"met"`
}

func (r *sweepReport) summary(s *sweep.Summary) {
	if r.json {
		writeJSONLine(r.out, summaryJSON{
			Type: "summary", Property: s.Property, Expect: string(s.Expect), MinFailingPercent: s.MinFailingPercent,
			First: s.First, Planned: s.Planned, Ran: s.Ran, Failed: append([]uint64{}, s.Failed...),
			Errors: len(s.Errors), NotPinned: s.NotPinned, Interrupted: s.Interrupted, Met: s.Met(),
		})
		return
	}
	verdict := "expectation held"
	if !s.Met() {
		verdict = "expectation NOT met"
	}
	want := "every seed passes"
	if s.Expect == property.ExpectFail {
		want = fmt.Sprintf("at least %d%% of seeds fail", s.MinFailingPercent)
	}
	line := fmt.Sprintf("summary   %d of %d seeds run, %d failed, %d errors: %s (%s)", s.Ran, s.Planned, len(s.Failed), len(s.Errors), verdict, want)
	if len(s.NotPinned) > 0 {
		line += fmt.Sprintf("; %d NOT PINNED", len(s.NotPinned))
	}
	if s.Interrupted {
		line += "; INTERRUPTED"
	}
	fmt.Fprintln(r.out, line)
}

// seedList is seeds as "3, 17, 58", the first few of a long list.
func seedList(seeds []uint64) string {
	var b strings.Builder
	for i, s := range seeds {
		if i == 8 {
			fmt.Fprintf(&b, ", … %d more", len(seeds)-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatUint(s, 10))
	}
	return b.String()
}

func writeJSONLine(w io.Writer, v any) {
	b, _ := json.Marshal(v) // plain structs of strings and integers
	w.Write(append(b, '\n'))
}

func oneLine(s string) string { return strings.ReplaceAll(s, "\n", "; ") }

// flagSet reports whether the flag was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// relaxGC lets the heap grow to five times the live data before a
// collection, unless GOGC says otherwise. Runs allocate a few megabytes
// each and keep little, so the default collects far more often than it
// needs to; the higher target cuts the CPU per seed by a fifth to a
// quarter (docs/sweeps.md, "Cost").
func relaxGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
}

// isTerminal is term.IsTerminal: whether progress is drawn on w.
func isTerminal(w io.Writer) bool { return term.IsTerminal(w) }
