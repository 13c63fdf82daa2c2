// Package cli is the detsim command: flags, subcommands and exit codes,
// for whichever host kinds the binary is built with. cmd/detsim is
// Main with the kinds detsim ships (hosts/builtin); a module outside
// this repository builds the same command for its own protocol by
// calling Main with its own kinds, alone or beside the built-in ones
// (docs/kinds.md, examples/outside-kind):
//
//	detsim [--seed N] [SCENARIO]                     step through a run in the terminal
//	detsim --batch [--seed N] [--out DIR] SCENARIO   run headless, write a bundle
//	detsim --batch --break-on SPEC [--until T] SCENARIO
//	                                                 run headless to a breakpoint, print the panes
//	detsim verify BUNDLE                             recheck every hash of a bundle
//	detsim sweep PROPERTY --seeds N [...]            run a property over many seeds, pin failures
//	detsim shrink SCENARIO [--assert NAME] [--out F] shrink a failing scenario to its essentials
//	detsim check [DIR]                               run the library against each file's expectation
//	detsim list                                      list the embedded scenarios
//	detsim help [COMMAND]                            usage and flags (also detsim [COMMAND] -h)
//	detsim --version                                 the simulator version bundles record
//
// SCENARIO is a file path, else the name of an embedded scenario
// (reproduction/gossip_flap). Exit codes: 0 nothing failed (Inconclusive
// included), 1 an assertion failed (or verify found a mismatch), 2 invalid
// input or usage (and a host kind Main refuses), 3 internal error, 130
// interrupted (143 for a batch run stopped by SIGTERM).
//
// This package holds flags, subcommands and exit codes only; the work is
// done by the packages it calls. It is outside the determinism fence
// (internal/detlint), as a command is: it reads the clock, the
// environment and signals for the user, never for a run.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/term"
	"github.com/detsim/detsim/kinds/swim/daemoncli"
	"github.com/detsim/detsim/kinds/swim/live/swimd"
	"github.com/detsim/detsim/scenarios"
)

// Exit codes (DESIGN §4 "Bundle and CLI").
const (
	exitOK       = 0
	exitFailed   = 1
	exitUsage    = 2
	exitInternal = 3
)

// Main is the detsim command on the process's arguments, for kinds: it
// returns the exit code, for the caller's os.Exit. Every command sees
// exactly kinds (append builtin.Kinds() to have detsim's own too); a
// kind the registry refuses (hosts.Registry.Add: a name already taken,
// an assertion without a judge, a chart on an undeclared record type)
// is reported, naming the kind and the field, with exit 2 before any
// argument is read.
func Main(kinds ...hosts.Kind) int {
	if len(os.Args) > 1 && os.Args[1] == swimdMode {
		daemoncli.MainArgs(swimd.Run, os.Args[2:])
	}
	return Run(os.Args[1:], os.Stdout, os.Stderr, kinds...)
}

// Run is Main on args (without the program name) and the given writers:
// what a test runs in process.
func Run(args []string, stdout, stderr io.Writer, kinds ...hosts.Kind) int {
	reg, err := registry(kinds)
	if err != nil {
		w := term.NewWriter(stderr)
		for line := range strings.Lines(err.Error()) {
			fmt.Fprintf(w, "detsim: %s", strings.TrimSuffix(line, "\n")+"\n")
		}
		w.Flush()
		return exitUsage
	}
	return run(reg, args, stdout, stderr)
}

// registry registers kinds, refusing what hosts.Registry.Add refuses
// and an assertion kind named as one of the core's (event_count,
// event_rate), which the scenario loader would find first, so the
// kind's would never be judged.
func registry(kinds []hosts.Kind) (*hosts.Registry, error) {
	if len(kinds) == 0 {
		return nil, errors.New("cli.Main was given no host kind: pass your own, builtin.Kinds(), or both")
	}
	core := map[string]bool{}
	for _, a := range scenarios.AssertionKinds(hosts.NewRegistry()) {
		core[a.Kind] = true
	}
	reg := hosts.NewRegistry()
	var errs []error
	for _, k := range kinds {
		if k != nil && hosts.AssertionsOf(k) != nil {
			for i, a := range hosts.AssertionsOf(k).Kinds {
				if core[a.Name] {
					errs = append(errs, &hosts.KindError{Kind: k.Tag(), Field: fmt.Sprintf("Assertions.Kinds[%d].Name", i),
						Msg: fmt.Sprintf("name %q already taken by the core's own assertion kind", a.Name)})
				}
			}
		}
		if err := reg.Add(k); err != nil {
			errs = append(errs, err)
		}
	}
	return reg, errors.Join(errs...)
}

// command is one subcommand: its name and its entry point.
type command struct {
	name string
	run  func(reg *hosts.Registry, args []string, stdout, stderr io.Writer) int
}

// kindless is a command that reads no kind's declarations.
func kindless(run func(args []string, stdout, stderr io.Writer) int) func(*hosts.Registry, []string, io.Writer, io.Writer) int {
	return func(_ *hosts.Registry, args []string, stdout, stderr io.Writer) int { return run(args, stdout, stderr) }
}

// commands are detsim's commands other than a run, in the order the
// overview lists them; dispatch, help and "did you mean" all read this
// one table.
var commands = []command{
	{"verify", kindless(cmdVerify)},
	{"list", cmdList},
	{"sweep", cmdSweep},
	{"shrink", cmdShrink},
	{"check", cmdCheck},
	{"live", cmdLive},
	{"testbed", cmdTestbed},
	{"calibrate", cmdCalibrate},
	{"schemadiff", kindless(cmdSchemadiff)},
	{"render", cmdRender},
	{"why", cmdWhy},
	{"provider-serve", cmdProviderServe},
	{"edge", cmdEdge},
	{"tool-run", kindless(cmdToolRun)},
	{"compress", kindless(cmdCompress)},
}

func lookupCommand(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// run is main without the process: tests call it directly.
//
// Everything a command prints goes through term.Writer: the names,
// types and messages it repeats from a bundle or a scenario are not
// detsim's, and no control character or bidi override among them
// reaches the terminal as itself (docs/bundle.md, "Reading a bundle you
// did not write"). Detsim's own progress-line sequences go through
// term.Raw; the stepper draws on the terminal itself and escapes what it
// shows (tui/screen).
func run(reg *hosts.Registry, args []string, stdout, stderr io.Writer) (code int) {
	eout, eerr := term.NewWriter(stdout), term.NewWriter(stderr)
	stdout, stderr = eout, eerr
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "detsim: internal error: %v\n", r)
			code = exitInternal
		}
		eout.Flush()
		eerr.Flush()
	}()
	if len(args) > 0 {
		switch args[0] {
		case "help":
			return cmdHelp(reg, args[1:], stdout, stderr)
		case "-h", "--help", "-help":
			return cmdHelp(reg, nil, stdout, stderr)
		case "--version", "-version", "version":
			return cmdVersion(args[1:], stdout, stderr)
		}
		if c, ok := lookupCommand(args[0]); ok {
			return c.run(reg, args[1:], stdout, stderr)
		}
		if s := suggestCommand(args[0], reg); s != "" {
			return usageErr(stderr, "unknown command %q: did you mean \"detsim %s\"?", args[0], s)
		}
	}
	return cmdRun(reg, args, stdout, stderr)
}

const usage = `usage:
  detsim [--seed N] [SCENARIO]                     step through a run (default: reproduction/gossip_flap)
  detsim --batch [--seed N] [--out DIR] SCENARIO   run headless and write a bundle
  detsim --batch --break-on SPEC [--until T] SCENARIO
                                                   run headless to a breakpoint and print the panes;
                                                   SPEC: fail | type=T | host=H | time=12.5s | step=N
                                                   | type=T field>N … (= != < <= > >=)
  detsim --batch --watch 'host=H member=M field=F' SCENARIO
                                                   run headless and print every change of that value
  detsim verify BUNDLE                             recheck every hash in a bundle
  detsim compress BUNDLE...                        store bundles gzip-compressed (and in the current format)
  detsim live SCENARIO [--procs] [--out DIR]       run the peers as real SWIM nodes on 127.0.0.1
  detsim testbed SCENARIO [--out DIR]              run the peers as real daemons on a kernel network (root)
  detsim calibrate SCENARIO PROD_BUNDLE [--seeds K] compare the sim's metrics with a production bundle
  detsim schemadiff A B                            compare two bundles' event schemas
  detsim render BUNDLE [-o FILE.html]              draw a bundle as one self-contained web page
  detsim why BUNDLE --host H --subject S --at T    the causal chain of H's view of S at T, back to its origin
  detsim provider-serve SCRIPT [--addr A]          serve a provider script over real HTTP/SSE on loopback
  detsim edge PROPERTY --seed N | SCENARIO         test your own agent: the seeded faults over HTTP, the oracles on what it reports
  detsim tool-run [flags] -- CMD [ARGS]            run an agent's tool command through the edge's tool faults
  detsim sweep PROPERTY --seeds N [--shard i/n] [--json] [...]
                                                   run a property over seeds; pin failing ones
  detsim shrink SCENARIO [--assert NAME] [--out FILE]
                                                   shrink a failing scenario to its essentials
  detsim check [DIR]                               run every library scenario against its # expect:
  detsim list                                      the embedded scenarios, their expectations
  detsim help [COMMAND]                            this, or COMMAND's usage and flags (detsim COMMAND -h)
  detsim --version                                 the version bundles record, the Go version and platform

SCENARIO is a file path, else an embedded scenario name (see detsim list).
Exit codes: 0 nothing failed, 1 an assertion failed (or verify found a
mismatch), 2 invalid input or usage, 3 internal error, 130 interrupted
(SIGINT; a batch run stopped by SIGTERM exits 143).
`

// usageErr prints a one-line reason and returns the usage exit code.
func usageErr(stderr io.Writer, format string, args ...any) int {
	fmt.Fprintf(stderr, "detsim: "+format+"\n", args...)
	fmt.Fprintln(stderr, "run 'detsim help' for usage")
	return exitUsage
}
