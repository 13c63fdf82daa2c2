package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/sweep"
)

const checkUsage = `usage: detsim check [flags] [DIR]

Runs every embedded library scenario, or every .toml file under DIR, and
compares its verdicts with the file's "# expect:" header: pass-now wants
no Fail, fail-until-fix at least one, sensitivity-study is only reported.
A pinned corpus scenario must also replay its digest (and, on disk, its
verdicts file) exactly. Exit: 0 all as expected, 1 a mismatch, 2 a file
does not load, 3 a run crashed, 130 interrupted.
`

func cmdCheck(reg *hosts.Registry, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	workers := fs.Int("workers", 0, "`W` runs at once (default: every core)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return flagErr(fs, err, stdout, stderr)
	}
	if len(pos) > 1 {
		return usageErrIn(stderr, "check", "at most one DIR, got %d: %s", len(pos), strings.Join(pos, " "))
	}
	if *workers < 0 {
		return usageErrIn(stderr, "check", "--workers %d: want a positive number", *workers)
	}
	var items []sweep.Item
	if len(pos) == 1 {
		items, err = sweep.DirItems(pos[0], reg)
	} else {
		items, err = sweep.LibraryItems(reg)
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			err = errors.Join(slices.DeleteFunc(j.Unwrap(), forOtherKinds)...)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "detsim: check: %v\n", err)
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	relaxGC()
	counts, interrupted := sweep.Check(ctx, items, reg, *workers, func(c sweep.Checked) {
		expect := c.Scenario.Expect
		if expect == "" {
			expect = "(none)"
		}
		fmt.Fprintf(stdout, "%-8s  %-40s  %-17s  %s\n", c.Status, c.Name, expect, oneLine(c.Reason))
	})
	fmt.Fprintf(stdout, "check     %d scenarios: %d as expected, %d mismatched, %d reported, %d crashed\n",
		len(items), counts[sweep.AsExpected], counts[sweep.Mismatch], counts[sweep.Reported], counts[sweep.Broken])
	switch {
	case counts[sweep.Broken] > 0:
		return exitInternal
	case counts[sweep.Mismatch] > 0:
		return exitFailed
	case interrupted:
		fmt.Fprintln(stdout, "check     INTERRUPTED")
		return exitInterrupted
	}
	return exitOK
}
