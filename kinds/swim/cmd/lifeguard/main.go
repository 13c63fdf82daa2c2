// Command lifeguard regenerates the tables of docs/lifeguard.md: the
// library scenario lifeguard/slow_members (a 100-member cluster with four
// slow members and one real crash) run as plain SWIM, as Lifeguard and as
// Lifeguard with each of its components off, over a range of message
// processing delays and several seeds. It counts the false positives
// the way the Lifeguard paper separates them: views of healthy members
// held by healthy members apart from the slow members' own views,
// suspicions apart from deaths, and the accusations that start them; and
// the detection latency of the crash.
//
//	go run ./kinds/swim/cmd/lifeguard                          # the tables in docs/lifeguard.md
//	go run ./kinds/swim/cmd/lifeguard -check docs/lifeguard.md # exit 1 unless the doc holds exactly them
//	go run ./kinds/swim/cmd/lifeguard -seeds 10 -costs 300     # more seeds, one delay
//
// Every run is an ordinary deterministic detsim run: the output is the
// same on every machine, whatever -parallel is.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/internal/docblock"
	"github.com/detsim/detsim/scenarios"
)

// The defaults are what docs/lifeguard.md shows. The delays are dense
// where the curve bends (nothing at 100 ms, plain SWIM's first deaths
// between 125 and 150 ms) and sparse where it is flat.
const (
	DefaultSeeds = 5
	DefaultCosts = "100,125,150,200,300,400,600"
)

// Command names the command's output in docs/lifeguard.md (its markers,
// package docblock).
const Command = "go run ./kinds/swim/cmd/lifeguard"

// CommandLine is the command that prints a report of seeds and costs.
func CommandLine(seeds int, costs []int64) string {
	ms := make([]string, len(costs))
	for i, c := range costs {
		ms[i] = strconv.FormatInt(c/1_000_000, 10)
	}
	line := Command
	if seeds != DefaultSeeds {
		line += " -seeds " + strconv.Itoa(seeds)
	}
	if j := strings.Join(ms, ","); j != DefaultCosts {
		line += " -costs " + j
	}
	return line
}

// ParseCosts reads -costs: milliseconds, comma-separated, into ns.
func ParseCosts(s string) ([]int64, error) {
	var costs []int64
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("-costs: %q is not a positive number of milliseconds", f)
		}
		costs = append(costs, n*1_000_000)
	}
	return costs, nil
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("lifeguard", flag.ContinueOnError)
	fs.SetOutput(stderr)
	seeds := fs.Int("seeds", DefaultSeeds, "seeds per cell (1..N)")
	costsFlag := fs.String("costs", DefaultCosts, "recv_cost_ns of the slow members, in ms, comma-separated")
	parallel := fs.Int("parallel", runtime.GOMAXPROCS(0), "runs at once (the output does not depend on it)")
	checkPath := fs.String("check", "", "instead of printing, compare with the block between the markers of this file; exit 1 if they differ")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	costs, err := ParseCosts(*costsFlag)
	if err == nil && *seeds < 1 {
		err = fmt.Errorf("-seeds: %d is not a positive number", *seeds)
	}
	if err != nil {
		fmt.Fprintln(stderr, "lifeguard:", err)
		return 2
	}
	base, err := scenarios.LoadLibrary(Base, builtin.Registry())
	if err != nil {
		fmt.Fprintln(stderr, "lifeguard:", err)
		return 2
	}
	rep, err := Sweep(base, Variants, costs, *seeds, *parallel)
	if err != nil {
		fmt.Fprintln(stderr, "lifeguard:", err)
		return 3
	}
	var out bytes.Buffer
	Write(&out, rep)
	if *checkPath == "" {
		stdout.Write(out.Bytes())
		return 0
	}
	switch err := docblock.Check(*checkPath, Command, out.String(), stderr); {
	case errors.Is(err, docblock.ErrStale):
		return 1
	case err != nil:
		fmt.Fprintln(stderr, "lifeguard:", err)
		return 2
	}
	fmt.Fprintf(stdout, "%s holds this command's output\n", *checkPath)
	return 0
}
