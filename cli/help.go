package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/suggest"
)

// subcommandNames are the names "did you mean" suggests among: every
// command of the table, and help.
func subcommandNames() []string {
	names := make([]string, 0, len(commands)+1)
	for _, c := range commands {
		names = append(names, c.name)
	}
	return append(names, "help")
}

// cmdHelp is `detsim help [COMMAND]`: the overview and a run's flags, or
// one command's usage and flags, on stdout. Each command prints its own
// help when asked with -h, so this asks it: the flags listed are the ones
// its FlagSet really has.
func cmdHelp(reg *hosts.Registry, args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		return cmdRun(reg, []string{"-h"}, stdout, stderr)
	case len(args) > 1:
		return usageErrIn(stderr, "help", "one COMMAND at a time, got %d: %s", len(args), strings.Join(args, " "))
	}
	if c, ok := lookupCommand(args[0]); ok {
		return c.run(reg, []string{"-h"}, stdout, stderr)
	}
	switch args[0] {
	case "help", "-h", "--help", "-help":
		fmt.Fprint(stdout, helpUsage)
		return exitOK
	case "run", "batch", "--batch":
		return cmdRun(reg, []string{"-h"}, stdout, stderr)
	}
	if s := suggest.Closest(args[0], subcommandNames(), 2); s != "" {
		return usageErrIn(stderr, "help", "no command %q: did you mean \"detsim help %s\"?", args[0], s)
	}
	return usageErrIn(stderr, "help", "no command %q (commands: %s)", args[0], strings.Join(subcommandNames(), ", "))
}

const helpUsage = `usage: detsim help [COMMAND]

Prints the usage and flags of COMMAND (verify, compress, list, sweep, shrink,
check, live, testbed, calibrate, schemadiff, render, why, provider-serve,
edge, tool-run), or with no COMMAND the overview and the flags of a run.
detsim -h and detsim COMMAND -h print the same.
`

// usages are each command's usage text, keyed by its FlagSet's name, for
// printHelp; the flags follow them, generated from the FlagSet.
var usages = map[string]string{
	"detsim":     usage,
	"verify":     verifyUsage,
	"compress":   compressUsage,
	"list":       listUsage,
	"sweep":      sweepUsage,
	"shrink":     shrinkUsage,
	"check":      checkUsage,
	"live":       liveUsage,
	"testbed":    testbedUsage,
	"calibrate":  calibrateUsage,
	"schemadiff": schemadiffUsage,
	"render":     renderUsage,
	"why":        whyUsage,
}

// flagErr handles an error from parsing fs: -h, -help or --help prints
// the command's help to stdout (exit 0), anything else is a one-line
// reason and where to find the usage (exit 2).
func flagErr(fs *flag.FlagSet, err error, stdout, stderr io.Writer) int {
	if errors.Is(err, flag.ErrHelp) {
		printHelp(stdout, fs)
		return exitOK
	}
	if fs.Name() == "detsim" {
		return usageErr(stderr, "%v", err)
	}
	return usageErrIn(stderr, fs.Name(), "%v", err)
}

// usageErrIn is usageErr for a subcommand: the reason, then the command's
// own help to run.
func usageErrIn(stderr io.Writer, cmd, format string, args ...any) int {
	fmt.Fprintf(stderr, "detsim: "+cmd+": "+format+"\n", args...)
	fmt.Fprintf(stderr, "run 'detsim help %s' for usage\n", cmd)
	return exitUsage
}

// printHelp writes fs's command usage, then every flag fs defines.
func printHelp(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, usages[fs.Name()])
	title := "flags:"
	if fs.Name() == "detsim" {
		title = "flags of a run (detsim [flags] [SCENARIO]):"
	}
	printFlags(w, title, fs)
}

// printFlags lists fs's flags in two aligned columns, "--name ARG" and
// what it does with its default. A default is shown unless it is "" or
// false, or the description already says it.
func printFlags(w io.Writer, title string, fs *flag.FlagSet) {
	type row struct{ left, right string }
	var rows []row
	width := 0
	fs.VisitAll(func(f *flag.Flag) {
		arg, desc := flag.UnquoteUsage(f)
		left := "--" + f.Name
		if len(f.Name) == 1 {
			left = "-" + f.Name
		}
		if arg != "" {
			left += " " + arg
		}
		if !strings.Contains(desc, "default") && f.DefValue != "" && f.DefValue != "false" {
			desc += " (default " + f.DefValue + ")"
		}
		rows = append(rows, row{left, desc})
		width = max(width, len(left))
	})
	if len(rows) == 0 {
		return
	}
	width = min(width, 22)
	fmt.Fprintf(w, "\n%s\n", title)
	for _, r := range rows {
		if len(r.left) > width {
			fmt.Fprintf(w, "  %s\n  %*s  %s\n", r.left, width, "", r.right)
			continue
		}
		fmt.Fprintf(w, "  %-*s  %s\n", width, r.left, r.right)
	}
}
