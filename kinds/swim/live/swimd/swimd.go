// Package swimd is the swimd daemon: one SWIM node (kinds/swim/swim,
// unchanged) on a real UDP socket and the wall clock. kinds/swim/cmd/swimd is it as a
// command of its own, and `detsim swimd` is the same daemon inside the
// detsim binary, so that `detsim testbed` and `detsim live --procs` need
// no other binary (kinds/swim/cmd/swimd's doc has the flags and exit codes).
package swimd

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/detsim/detsim/kinds/swim/daemoncli"
	"github.com/detsim/detsim/kinds/swim/live/node"
	"github.com/detsim/detsim/kinds/swim/swimcfg"
	"github.com/detsim/detsim/rng"
)

// options are the parsed flags: the ones every daemon shares
// (kinds/swim/daemoncli) and swimd's own.
type options struct {
	daemoncli.Flags
	key         []byte
	insecure    bool
	tick        time.Duration
	seed        uint64
	life        int
	firstTickNs int64 // -1: drawn from the seed
}

func parseFlags(args []string, stderr io.Writer) (*options, error) {
	o := &options{}
	err := o.Parse("swimd", args, stderr, func(fs *flag.FlagSet) {
		fs.Lookup("state").Usage = `initial state: "member" (knows every --peers member alive) or "joining" (default when --seeds is given)`
		fs.Lookup("cluster-key-file").Usage = "file holding the cluster key in hex (16-64 bytes): every datagram carries a sequence number and an HMAC-SHA256 tag (required unless --insecure)"
		fs.BoolVar(&o.insecure, "insecure", false, "run without a cluster key: any process that can reach the port can forge membership (tests and experiments only)")
		fs.DurationVar(&o.tick, "tick", 100*time.Millisecond, "tick period (the probe cycle runs on ticks)")
		fs.Uint64Var(&o.seed, "seed", 0, "seed of the node's random draws (the scenario's seed, in a live run)")
		fs.IntVar(&o.life, "life", 0, "life number (a restarted peer's draws must not replay its earlier life's)")
		fs.Int64Var(&o.firstTickNs, "first-tick-ns", -1, "virtual time of the first tick (default: start + a seed-derived offset within one tick)")
	})
	if err != nil {
		return nil, err
	}
	if o.tick <= 0 || o.tick > time.Minute {
		return nil, fmt.Errorf("--tick %v: want more than 0 and at most 1m", o.tick)
	}
	switch {
	case o.KeyFile != "" && o.insecure:
		return nil, errors.New("--cluster-key-file and --insecure: give one")
	case o.KeyFile == "" && !o.insecure:
		return nil, errors.New("no --cluster-key-file: swimd authenticates every datagram with a cluster key (write 32 random bytes in hex to a file readable only by you, e.g. head -c32 /dev/urandom | xxd -p -c64 > key.hex; chmod 600 key.hex), or give --insecure to run without one")
	}
	if o.KeyFile != "" {
		key, err := daemoncli.ReadKeyFile("--cluster-key-file", o.KeyFile)
		if err != nil {
			return nil, err
		}
		if err := node.CheckKey(key); err != nil {
			return nil, fmt.Errorf("--cluster-key-file %s: %v", o.KeyFile, err)
		}
		o.key = key
	}
	return o, nil
}

// Run is the daemon given its arguments (without the program name): it
// returns the process's exit code. sigs delivers SIGTERM, SIGINT and
// SIGUSR1 (kinds/swim/daemoncli.Main); nil, none.
func Run(args []string, stdout, stderr io.Writer, sigs <-chan os.Signal) int {
	o, err := parseFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return exitf(stderr, 2, "%v", err)
	}
	peers := o.Peers()
	cfg, ferrs := swimcfg.Parse(o.KindConfig, peers)
	if len(ferrs) > 0 {
		for _, e := range ferrs {
			fmt.Fprintf(stderr, "swimd: %s\n", e)
		}
		return 2
	}
	clock := daemoncli.Clock(o.StartUnixNs)

	conn, err := node.Listen(o.Bind.String(), o.Netns)
	if err != nil {
		return exitf(stderr, 1, "%v", err)
	}
	out, closeOut, err := daemoncli.OpenEvents(o.Events, stdout)
	if err != nil {
		conn.Close()
		return exitf(stderr, 1, "%v", err)
	}
	defer closeOut()
	lw := daemoncli.NewLineWriter(out)

	root := rng.New(o.seed)
	period := int64(o.tick)
	first := o.firstTickNs
	if first < 0 {
		// Within one tick of the start instant, or of now when this
		// daemon starts later (a resurrected peer): never before t = 0.
		first = max(clock(), 0) + int64(root.Tick(o.ID).Below(uint64(period)))
	}
	n, err := node.New(node.Config{
		ID: o.ID, Peers: peers, Swim: cfg, Start: swimcfg.Start(o.State),
		Rand: root.Life(o.ID, o.life), Conn: conn, Key: o.key, Clock: clock,
		TickPeriodNs: period, FirstTickNs: first, Out: lw.Write, Book: o.Book,
	})
	if err != nil {
		conn.Close()
		return exitf(stderr, 2, "%v", err)
	}
	// A supervisor (package live, the testbed) waits for this line
	// before it signals: the socket is bound, and the node begins at the
	// start instant (daemoncli.Loop).
	if o.insecure {
		fmt.Fprintf(stderr, "swimd: %s ready on %s (INSECURE: no cluster key; any process that reaches the port can forge membership)\n", o.ID, n.Addr())
	} else {
		fmt.Fprintf(stderr, "swimd: %s ready on %s\n", o.ID, n.Addr())
	}

	started := false
	code := daemoncli.Loop{Name: "swimd", Stderr: stderr, Sigs: sigs, Flags: &o.Flags,
		Snapshot: n.Snapshot, Flush: lw.Flush,
		Start: func() { started = true; n.Start() }}.Run()
	if started {
		n.Stop()
	} else {
		conn.Close()
	}
	if err := lw.Flush(); err != nil {
		return exitf(stderr, 1, "writing events: %v", err)
	}
	return code
}

// exitf prints a message to stderr and returns code.
func exitf(stderr io.Writer, code int, format string, args ...any) int {
	fmt.Fprintf(stderr, "swimd: "+format+"\n", args...)
	return code
}
