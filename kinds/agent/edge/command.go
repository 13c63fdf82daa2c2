package edge

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/detsim/detsim/bundle/verdict"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/flagargs"
	"github.com/detsim/detsim/internal/guard"
	"github.com/detsim/detsim/kinds/agent/providerserve"
	"github.com/detsim/detsim/property"
	"github.com/detsim/detsim/scenarios"
	"github.com/detsim/detsim/sweep"
)

// Usage is `detsim edge -h`.
const Usage = `usage: detsim edge PROPERTY --seed N [flags]
       detsim edge SCENARIO [flags]

Serves the faults of one seed of PROPERTY (agent_faults: the sweep's seed
N, the same draws) or of SCENARIO to an outside agent over HTTP on
loopback, on real time scaled by --time-scale, and judges the agent by
what it reports against what the edge served (docs/agents.md, "Testing
your own agent"):

Every request presents a key (x-api-key or Authorization: Bearer, the
SDKs' apiKey): POST /sessions the edge's, from the key file it names on
start (0600); a session's routes the api_key its creation answered.

  POST /sessions {"id": NAME}                 a session: one agent's episode (answers id, api_key, base URLs)
  POST /s/NAME/v1/messages                    Anthropic Messages API (stream or not)
  POST /s/NAME/v1/chat/completions            OpenAI Chat Completions API (stream or not)
  POST /s/NAME/tools/TOOL {"id","argv"}       run a tool use: the argv its script served, or one --allow permits
  POST /s/NAME/tools/TOOL/ID/cancel           cancel it (detsim tool-run -- CMD does both for
                                              an agent that spawns its tools)
  GET  /s/NAME/control?after=K&wait=S         cancel / kill / restart, at the scenario's instants
  POST /s/NAME/report {turn, outcome, ...}    a turn's conclusion: what the agent accepted and kept
  POST /s/NAME/reset                          judge the episode and start it over
  POST /s/NAME/end {"outcome"}                judge the episode; the session ends

Each episode is a bundle under --out/NAME/eK with its verdicts. The edge
stops once --sessions sessions have ended, after --idle-stop without a
request (0: never), or on Ctrl-C/SIGTERM, judging every open episode. Exit: 0 every
verdict passed (or inconclusive), 1 an oracle failed, 2 invalid input, 3
internal error.

flags:
`

// flagError answers a command line fs could not parse: -h prints usage
// and the flags to stdout (exit 0), anything else is one line and where
// to look (exit 2), as every detsim command does.
func flagError(fs *flag.FlagSet, err error, usage string, stdout, stderr io.Writer) int {
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, usage)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		return 0
	}
	fmt.Fprintf(stderr, "detsim: %s: %v\nrun 'detsim help %s' for usage\n", fs.Name(), err, fs.Name())
	return 2
}

// Command is `detsim edge` for the CLI to wire.
func Command(ctx context.Context, args []string, stdout, stderr io.Writer, reg *hosts.Registry, version string) int {
	fs := flag.NewFlagSet("edge", flag.ContinueOnError)
	seed := fs.Uint64("seed", 0, "the property's seed whose fault schedule to serve")
	addr := fs.String("addr", "127.0.0.1:8788", "loopback address to listen on (127.0.0.1:PORT, [::1]:PORT; 127.0.0.1:0 picks a free port)")
	scale := fs.Float64("time-scale", 1, "multiply every scripted delay, tool duration and control instant by this")
	out := fs.String("out", "", "directory for the sessions' bundles (default edge-NAME-SEED; must not exist or be empty)")
	allow := fs.String("allow", "", "comma-separated tool commands an agent may run, PROGRAM[:paths|any|none] (the arguments it may take; paths, the default, names no file outside --tool-dir)")
	keyFile := fs.String("key-file", "", "write the edge's key here (0600; must not exist); default: a new directory under $TMPDIR")
	toolDir := fs.String("tool-dir", "", "directory tool commands run in (default the current one)")
	sessions := fs.Int("sessions", 0, "stop once this many sessions have ended (0: no such stop)")
	idle := fs.Duration("idle-stop", DefaultIdleStop, "stop once no request has been in flight this long (0: never, as provider-serve)")
	maxConns := fs.Int("max-conns", providerserve.DefaultMaxConns, "connections one client (a local user) has open at once; one more is closed")
	maxSessions := fs.Int("max-sessions", DefaultMaxSessions, "sessions open at once")
	schedule := fs.String("schedule", ScheduleProgress, "when the scenario's Cancel, kill and restart fire: progress (at the agent's progress where the built-in agent was at the instant) or time (at the instant)")
	quiet := fs.Bool("q", false, "no line per request")
	pos, err := flagargs.Interspersed(fs, args)
	if err != nil {
		return flagError(fs, err, Usage, stdout, stderr)
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "detsim edge: want one PROPERTY (with --seed) or SCENARIO; see detsim help edge")
		return 2
	}
	if *scale <= 0 || *sessions < 0 || *idle < 0 || *maxConns <= 0 || *maxSessions <= 0 {
		fmt.Fprintln(stderr, "detsim edge: --time-scale, --max-conns and --max-sessions must be positive, --sessions and --idle-stop not negative")
		return 2
	}
	sc, name, span, err := resolve(pos[0], *seed, fs, reg)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	if *out == "" {
		*out = "edge-" + strings.ReplaceAll(name, "/", "_") + "-" + strconv.FormatUint(sc.Seed, 10)
	}
	opts := Options{TimeScale: *scale, Out: *out, ToolDir: *toolDir, Sessions: *sessions, IdleStop: idleStop(*idle),
		MaxConns: *maxConns, MaxSessions: *maxSessions, Version: version, Schedule: *schedule, DrawnIn: span}
	for _, a := range strings.Split(*allow, ",") {
		if a = strings.TrimSpace(a); a != "" {
			opts.Allow = append(opts.Allow, a)
		}
	}
	if !*quiet {
		opts.Logf = providerserve.Logger(stderr)
	}
	opts.Key = guard.NewKey() // New checks the rest first; the file is written only once all of it is good
	e, err := New(sc, opts)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	ln, key, code := providerserve.ListenKeyed(*addr, *keyFile, "edge", stderr)
	if code != 0 {
		return code
	}
	defer key.Remove()
	e.opts.Key = key.Key
	fmt.Fprintf(stderr, "edge: %s (seed %d) at time scale %v; bundles under %s\n", name, sc.Seed, *scale, *out)
	fmt.Fprintf(stderr, "edge: key in %s (POST /sessions presents it as x-api-key or Authorization: Bearer)\n", key.Path)
	fmt.Fprintf(stderr, "edge: listening on http://%s\n", ln.Addr())
	began := time.Now()
	eps, err := e.Serve(ctx, ln)
	if err != nil {
		fmt.Fprintln(stderr, "edge:", err)
		return 3
	}
	return summary(stdout, eps, time.Since(began))
}

// resolve reads ARG as a property (its seed's scenario) or a scenario,
// and the span its control instants were drawn in: the property's, or a
// pinned seed's (scenarios/regression/agent_faults-38.toml is seed 38's
// scenario, served as the seed is); zero for a written scenario.
func resolve(arg string, seed uint64, fs *flag.FlagSet, reg *hosts.Registry) (*scenarios.Scenario, string, Span, error) {
	p, perr := property.LoadLibrary(arg, reg)
	if perr != nil {
		if _, statErr := os.Stat(arg); statErr == nil {
			p, perr = property.Load(arg, reg)
		}
	}
	if perr == nil {
		sc, err := p.Scenario(seed, reg)
		if err != nil {
			return nil, "", Span{}, fmt.Errorf("detsim edge: %s seed %d: %v", arg, seed, err)
		}
		return sc, p.Name, DrawSpan(p), nil
	}
	seedSet := false
	fs.Visit(func(f *flag.Flag) { seedSet = seedSet || f.Name == "seed" })
	sc, err := scenarios.Resolve(arg, reg)
	if err != nil {
		return nil, "", Span{}, fmt.Errorf("detsim edge: %s is neither a property nor a scenario: %v", arg, err)
	}
	var span Span
	if data, err := os.ReadFile(arg); err == nil {
		if h, ok := sweep.ReadPinHeader(data); ok {
			if p, err := property.LoadLibrary(h.Property, reg); err == nil {
				span = DrawSpan(p)
			}
		}
	}
	if seedSet {
		sc.Seed = seed
	}
	return sc, sc.Name, span, nil
}

// summary prints each episode's failing verdicts and the exit code.
func summary(w io.Writer, eps []Episode, took time.Duration) int {
	code := 0
	for _, ep := range eps {
		if ep.Err != nil {
			fmt.Fprintf(w, "episode %s: %v\n", ep.Bundle, ep.Err)
			code = max(code, 3)
			continue
		}
		failed := 0
		for _, v := range ep.Verdicts {
			if v.Outcome == verdict.Fail {
				failed++
				fmt.Fprintf(w, "FAIL  %s  %s (%s): %s\n", ep.Bundle, v.Name, v.Kind, v.Reason)
			}
		}
		if failed == 0 {
			fmt.Fprintf(w, "ok    %s  %d verdicts, none failed\n", ep.Bundle, len(ep.Verdicts))
		} else if code == 0 {
			code = 1
		}
	}
	fmt.Fprintf(w, "edge: %d episodes in %v\n", len(eps), took.Round(time.Millisecond))
	return code
}

// idleStop is Options.IdleStop for --idle-stop d: 0 never stops, as
// provider-serve's --idle-stop 0 (Options' 0 is DefaultIdleStop).
func idleStop(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}
