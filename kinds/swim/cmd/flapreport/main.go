// Command flapreport regenerates the table of docs/gossip-flap.md, "The
// reproduction next to the report": the production report's gossip flap
// beside detsim's reproduction (the report's links, the MTU model on),
// detsim on the kernel testbed's measured networks (shaped as HTB shapes
// them, and as serialising wires), and the testbed's own
// recordings of real swimd processes on that network, shaped by HTB and
// as serialising wires paced by the delay line — refutations per
// peer, the largest ping, the victim, flapping, and a peer declared dead
// while probes succeed, with seeds and spread.
//
//	go run ./kinds/swim/cmd/flapreport                            # the table in docs/gossip-flap.md
//	go run ./kinds/swim/cmd/flapreport -check docs/gossip-flap.md # exit 1 unless the doc holds exactly it
//	go run ./kinds/swim/cmd/flapreport -seeds 5                   # quicker
//
// The simulated rows are deterministic; the testbed rows read the
// recordings in testdata/calibration, judged by the reproduction's own
// assertions.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/detsim/detsim/batch"
	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/bundle/verdict"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/internal/docblock"
	"github.com/detsim/detsim/scenarios"
)

// The scenarios and recordings the table compares.
const (
	Reproduction   = "reproduction/gossip_flap"
	TestbedSim     = "scenarios/calibration/gossip_flap.toml"
	TestbedWireSim = "scenarios/calibration/gossip_flap_wire.toml"
)

// Command names the command's output in docs/gossip-flap.md (its
// markers, package docblock).
const Command = "go run ./kinds/swim/cmd/flapreport"

// TestbedRuns are the testbed's recordings of the reproduction.
var TestbedRuns = []string{"testdata/calibration/gossip_flap", "testdata/calibration/gossip_flap-run2", "testdata/calibration/gossip_flap-run3"}

// TestbedWireRuns are the testbed's recordings of the reproduction with
// every link a serialising wire, which the delay line paces
// (scenarios/testbed/gossip_flap_wire.toml): the calibration pair's,
// then three more for the spread.
var TestbedWireRuns = []string{"testdata/calibration/gossip_flap_wire", "testdata/calibration/gossip_flap_wire-run1", "testdata/calibration/gossip_flap_wire-run2", "testdata/calibration/gossip_flap_wire-run3"}

// Peers are the reproduction's peers, in the table's order.
var Peers = []string{"orch", "fra", "sgp"}

// Run is what one run showed.
type Run struct {
	Refutations map[string]int // self_incarnation_bump records by peer
	LargestPing int64
	Flapped     bool // a no_flap_while_probes_ok assertion failed
	DeadProbed  bool // a no_dead_when_probes_ok assertion failed
	EndsDead    bool // some view of another peer is dead at the end
}

// Victim is the peer that refuted most ("" when none refuted; ties
// joined with "=").
func (r Run) Victim() string {
	best, who := 0, []string{}
	for _, p := range Peers {
		switch n := r.Refutations[p]; {
		case n > best:
			best, who = n, []string{p}
		case n == best && n > 0:
			who = append(who, p)
		}
	}
	return strings.Join(who, "=")
}

// measure reads a bundle's records and judges the reproduction's
// assertions on them.
func measure(dir string, repro *scenarios.Scenario, endNs int64) (Run, error) {
	r := Run{Refutations: map[string]int{}}
	last := map[[2]string]string{}
	err := bundle.ReadEvents(dir, func(_ int, rec bundle.EventRecord) error {
		if rec.VirtualTimeNs > endNs {
			return nil
		}
		switch rec.KindTag + "/" + rec.Type {
		case "swim/self_incarnation_bump":
			r.Refutations[rec.HostID]++
		case "swim/message_sent":
			if s := string(rec.Event); strings.Contains(s, `"message":"ping"`) {
				if b := field(s, `"bytes":`); b > r.LargestPing {
					r.LargestPing = b
				}
			}
		case "swim/state_transition":
			s := string(rec.Event)
			obs, sub := strField(s, `"observer":"`), strField(s, `"subject":"`)
			if obs != sub {
				last[[2]string{obs, sub}] = strField(s, `"to":"`)
			}
		}
		return nil
	})
	if err != nil {
		return Run{}, err
	}
	for _, to := range last {
		if to == "dead" {
			r.EndsDead = true
		}
	}
	vs, err := verdict.EvaluateBundle(dir, repro.Assertions, endNs)
	if err != nil {
		return Run{}, err
	}
	for i, v := range vs {
		if v.Outcome != verdict.Fail {
			continue
		}
		switch repro.Assertions[i].Kind {
		case "no_flap_while_probes_ok":
			r.Flapped = true
		case "no_dead_when_probes_ok":
			r.DeadProbed = true
		}
	}
	return r, nil
}

// field reads the integer after key in a compact JSON object, or 0.
func field(s, key string) int64 {
	i := strings.Index(s, key)
	if i < 0 {
		return 0
	}
	rest := s[i+len(key):]
	j := strings.IndexAny(rest, ",}")
	if j < 0 {
		return 0
	}
	n, _ := strconv.ParseInt(rest[:j], 10, 64)
	return n
}

// strField reads the string after key (which ends in the opening quote).
func strField(s, key string) string {
	i := strings.Index(s, key)
	if i < 0 {
		return ""
	}
	rest := s[i+len(key):]
	j := strings.IndexByte(rest, '"')
	if j < 0 {
		return ""
	}
	return rest[:j]
}

// simulate runs sc with seeds 1..n into dir and measures each run.
func simulate(sc *scenarios.Scenario, repro *scenarios.Scenario, n int, dir string) ([]Run, error) {
	var runs []Run
	for seed := 1; seed <= n; seed++ {
		run := *sc
		run.Seed = uint64(seed)
		out := filepath.Join(dir, fmt.Sprintf("%s-%d", sc.Name, seed))
		if _, err := batch.Run(&run, builtin.Registry(), batch.Config{Out: out, Version: "flapreport"}); err != nil {
			return nil, fmt.Errorf("%s seed %d: %w", sc.Path, seed, err)
		}
		r, err := measure(out, repro, run.DurationNs)
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// spread is "median [min, max]" of xs.
func spread(xs []int) string {
	if len(xs) == 0 {
		return "—"
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	med := strconv.Itoa(s[len(s)/2])
	if len(s)%2 == 0 {
		med = strconv.FormatFloat(float64(s[len(s)/2-1]+s[len(s)/2])/2, 'f', -1, 64)
	}
	if len(s) == 1 {
		return med
	}
	return fmt.Sprintf("%s [%d, %d]", med, s[0], s[len(s)-1])
}

// row is one table row from runs.
func row(w io.Writer, what, runsDesc string, runs []Run) {
	var ref []string
	for _, p := range Peers {
		var xs []int
		for _, r := range runs {
			xs = append(xs, r.Refutations[p])
		}
		ref = append(ref, spread(xs))
	}
	var pings []int
	victims := map[string]int{}
	flap, dead, ends := 0, 0, 0
	for _, r := range runs {
		pings = append(pings, int(r.LargestPing))
		v := r.Victim()
		if v == "" {
			v = "none"
		}
		victims[v]++
		if r.Flapped {
			flap++
		}
		if r.DeadProbed {
			dead++
		}
		if r.EndsDead {
			ends++
		}
	}
	var vs []string
	for _, v := range slices.Sorted(maps.Keys(victims)) {
		vs = append(vs, fmt.Sprintf("%s %d", v, victims[v]))
	}
	fmt.Fprintf(w, "| %s | %s | %s | %s B | %s | %d | %d | %d |\n", what, runsDesc, strings.Join(ref, " / "), spread(pings), strings.Join(vs, ", "), flap, dead, ends)
}

func main() {
	seeds := flag.Int("seeds", 20, "simulator seeds per simulated row (1..N)")
	checkPath := flag.String("check", "", "instead of printing, compare with the block between the markers of this file; exit 1 if they differ")
	flag.Parse()
	var out strings.Builder
	if err := run(&out, *seeds); err != nil {
		fmt.Fprintln(os.Stderr, "flapreport:", err)
		os.Exit(3)
	}
	if *checkPath == "" {
		fmt.Print(out.String())
		return
	}
	switch err := docblock.Check(*checkPath, Command, out.String(), os.Stderr); {
	case errors.Is(err, docblock.ErrStale):
		os.Exit(1)
	case err != nil:
		fmt.Fprintln(os.Stderr, "flapreport:", err)
		os.Exit(2)
	}
	fmt.Printf("%s holds this command's output\n", *checkPath)
}

func run(w io.Writer, seeds int) error {
	reg := builtin.Registry()
	repro, err := scenarios.Resolve(Reproduction, reg)
	if err != nil {
		return err
	}
	tb, err := scenarios.Load(TestbedSim, reg)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "flapreport")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	simRuns, err := simulate(repro, repro, seeds, dir)
	if err != nil {
		return err
	}
	tbSimRuns, err := simulate(tb, repro, seeds, dir)
	if err != nil {
		return err
	}
	// The same network as serialising wires, as the testbed's probe
	// measured them: what a serialising access line (not a shaper) does.
	wire, err := scenarios.Load(TestbedWireSim, reg)
	if err != nil {
		return err
	}
	wireRuns, err := simulate(wire, repro, seeds, dir)
	if err != nil {
		return err
	}
	tbRuns, err := recorded(TestbedRuns, repro)
	if err != nil {
		return err
	}
	tbWireRuns, err := recorded(TestbedWireRuns, repro)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "| source | runs | refutations by orch / fra / sgp in 7 min (median [min, max]) | largest ping | the peer refuting most (runs) | runs that flapped | dead while probes succeed | ending with a view dead |\n")
	fmt.Fprintf(w, "|---|---|---|---|---|---|---|---|\n")
	fmt.Fprintf(w, "| production report (N3, vast.ai) | 1 deploy | 228 / — / — | multi-kilobyte | orch | yes | yes | yes |\n")
	row(w, "detsim, `reproduction/gossip_flap` (the report's links with the 250 ms cold dial; MTU model on)", fmt.Sprintf("seeds 1–%d", seeds), simRuns)
	row(w, "detsim on the testbed's measured network (`scenarios/calibration/gossip_flap.toml`: no cold dial; shaped as HTB, `burst_bytes = 1564`)", fmt.Sprintf("seeds 1–%d", seeds), tbSimRuns)
	row(w, "detsim on the testbed's measured network as serialising wires (`scenarios/calibration/gossip_flap_wire.toml`: `burst_bytes = 0`)", fmt.Sprintf("seeds 1–%d", seeds), wireRuns)
	row(w, "kernel testbed: swimd processes, legacy queue, the same network (HTB's one-packet bucket)", recordings(len(tbRuns)), tbRuns)
	row(w, "kernel testbed, the same network as serialising wires (the delay line paces each edge; `scenarios/testbed/gossip_flap_wire.toml`)", recordings(len(tbWireRuns)), tbWireRuns)
	return nil
}

// recordings is the runs column of n recordings.
func recordings(n int) string {
	if n == 1 {
		return "1 recording"
	}
	return fmt.Sprintf("%d recordings", n)
}

// recorded measures the testbed bundles in dirs.
func recorded(dirs []string, repro *scenarios.Scenario) ([]Run, error) {
	var runs []Run
	for _, d := range dirs {
		m, err := bundle.ReadManifest(d)
		if err != nil {
			return nil, err
		}
		r, err := measure(d, repro, m.DurationNs)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d, err)
		}
		runs = append(runs, r)
	}
	return runs, nil
}
