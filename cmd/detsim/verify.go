package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/scenarios"
)

func cmdVerify(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return usageErr(stderr, "verify: %v", err)
	}
	if len(pos) != 1 {
		return usageErr(stderr, "verify needs exactly one BUNDLE directory")
	}
	problems, err := bundle.Verify(pos[0])
	if err != nil {
		fmt.Fprintf(stderr, "detsim: verify: %v\n", err)
		return exitUsage
	}
	for _, p := range problems {
		fmt.Fprintf(stdout, "MISMATCH  %s\n", p)
	}
	if len(problems) > 0 {
		fmt.Fprintf(stdout, "%s: %d problem(s)\n", pos[0], len(problems))
		return exitFailed
	}
	fmt.Fprintf(stdout, "%s: intact\n", pos[0])
	return exitOK
}

func cmdList(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		return usageErr(stderr, "list takes no arguments")
	}
	for _, n := range scenarios.LibraryNames() {
		fmt.Fprintln(stdout, n)
	}
	return exitOK
}
