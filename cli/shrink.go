package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/detsim/detsim/batch"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/outfile"
	"github.com/detsim/detsim/internal/term"
	"github.com/detsim/detsim/scenarios"
	"github.com/detsim/detsim/shrink"
)

const shrinkUsage = `usage: detsim shrink SCENARIO [flags]

Reduces a failing SCENARIO while the assertion NAME (default: the first to
fail) keeps failing: removes peers, mutations, links, snapshots and other
assertions, shortens the run, lowers loss and jitter. Writes the smallest
scenario found to FILE (default: <name>-shrunk.toml) and prints what it
removed. An existing FILE (the input scenario included) is never
replaced unless --force is given; a symbolic link there is then replaced
itself, never its target. Exit: 0 written, 2 invalid input or nothing failing, 3 a run
crashed, 130 interrupted (the smallest so far is still written).
`

func cmdShrink(reg *hosts.Registry, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("shrink", flag.ContinueOnError)
	assert := fs.String("assert", "", "the assertion `NAME` that must keep failing (default: the first to fail)")
	out := fs.String("out", "", "write the result to `FILE` (default: <name>-shrunk.toml)")
	budget := fs.Int("budget", shrink.DefaultBudget, "at most `N` candidate runs")
	force := fs.Bool("force", false, "replace an existing file at --out")
	// The flags, then this command's own checks of its arguments, alike
	// in shape across the subcommands: the shared steps are
	// prologue.go's, the checks and their messages are each command's.
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return flagErr(fs, err, stdout, stderr)
	}
	if len(pos) != 1 {
		return usageErrIn(stderr, "shrink", "want one SCENARIO (a file, or a name from 'detsim list'), got %d", len(pos))
	}
	if *budget <= 0 {
		return usageErrIn(stderr, "shrink", "--budget %d: want a positive number of runs", *budget)
	}
	sc, code := loadScenario(pos[0], reg, stderr)
	if code != exitOK {
		return code
	}
	dest := *out
	if dest == "" {
		dest = fileName(sc.Name) + "-shrunk.toml"
	}
	if flagSet(fs, "out") && *out == "" {
		return usageErrIn(stderr, "shrink", "--out is empty; name a file, or leave --out out for %s", fileName(sc.Name)+"-shrunk.toml")
	}
	if err := outfile.Check(dest, *force); err != nil {
		return usageErrIn(stderr, "shrink", "--out: %v", err)
	}
	ctx, stop := interruptible()
	defer stop()

	tty := isTerminal(stderr)
	fmt.Fprintf(stdout, "shrink    %s (%s), seed %d, budget %d runs\n", sc.Name, sc.Path, sc.Seed, *budget)
	res, err := shrink.Shrink(ctx, sc, reg, shrink.Options{
		Assert: *assert, Budget: *budget,
		Progress: func(s shrink.Step) {
			if tty {
				term.ClearLine(stderr)
				fmt.Fprintf(stderr, "run %d/%d  %s: %s", s.Run, s.Budget, s.Pass, s.Change)
			}
			if s.Kept {
				if tty {
					term.ClearLine(stderr)
				}
				fmt.Fprintf(stdout, "kept      run %d: %s: %s\n", s.Run, s.Pass, s.Change)
			}
		},
	})
	if tty {
		term.ClearLine(stderr)
	}
	if err != nil {
		fmt.Fprintf(stderr, "detsim: shrink: %v\n", err)
		var pe *batch.PanicError
		if errors.As(err, &pe) {
			return exitInternal
		}
		return exitUsage
	}
	if err := outfile.Write(dest, shrunkFile(sc, res), *force); err != nil {
		fmt.Fprintf(stderr, "detsim: shrink: --out: %v\n", err)
		return exitUsage
	}
	fmt.Fprintf(stdout, "assertion %s still fails\n", res.Assert)
	fmt.Fprintf(stdout, "before    %s\n", res.Before)
	fmt.Fprintf(stdout, "after     %s\n", res.After)
	state := "fixed point"
	switch {
	case res.Stopped:
		state = "INTERRUPTED"
	case res.Exhausted:
		state = "budget spent before a fixed point"
	}
	fmt.Fprintf(stdout, "runs      %d (%s)\n", res.Runs, state)
	fmt.Fprintf(stdout, "wrote     %s\n", dest)
	fmt.Fprintf(stdout, "replay    detsim --batch %s\n", dest)
	if res.Stopped {
		return exitInterrupted
	}
	return exitOK
}

// fileName makes a scenario name safe as a file name.
func fileName(name string) string {
	return strings.Map(func(r rune) rune {
		if r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' || r == '.') {
			return r
		}
		return '_'
	}, name)
}

// shrunkFile is the written result: a header saying where it came from
// and what was removed, then the scenario.
func shrunkFile(orig *scenarios.Scenario, r *shrink.Result) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# expect: fail-until-fix\n#\n")
	fmt.Fprintf(&b, "# Shrunk by detsim shrink from %s (seed %d): the assertion\n", orig.Path, orig.Seed)
	fmt.Fprintf(&b, "# %s still fails. %d candidate runs; changes kept, in order:\n", r.Assert, r.Runs)
	for _, c := range r.Changes {
		fmt.Fprintf(&b, "#   - %s\n", c)
	}
	fmt.Fprintf(&b, "# before: %s\n# after: %s\n\n", r.Before, r.After)
	b.Write(r.TOML)
	return b.Bytes()
}
