// Package daemoncli is the command line every node daemon shares —
// kinds/swim/cmd/swimd (detsim's SWIM) and kinds/swim/bench/cmd/memberlistd (hashicorp
// memberlist) — and the loop that runs one until a signal or the end of
// its --duration. A supervisor (package live, the kernel testbed) starts
// either daemon with the same flags, waits for the same ready line and
// signals both the same way; one parser keeps the two from drifting apart
// flag by flag. Outside the determinism fence: it reads the wall clock.
package daemoncli

import (
	"bufio"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/outfile"
	"github.com/detsim/detsim/internal/safefile"
	"github.com/detsim/detsim/kinds/swim/swimcfg"
	"github.com/detsim/detsim/kinds/swim/testbed/tbnet"
)

// Bounds on a daemon's run: it always stops by itself, and a supervisor
// merging its records sees each one within FlushEvery.
const (
	DefaultDuration = 10 * time.Minute
	MaxDuration     = time.Hour
	FlushEvery      = 200 * time.Millisecond
	MinSnapEvery    = 100 * time.Millisecond
)

// Flags are the flags every daemon takes: Parse defines them, parses a
// command line and fills in the parsed fields.
type Flags struct {
	ID    string
	Bind  netip.AddrPort
	Netns string // a testbed namespace this daemon runs in (kinds/swim/testbed/tbnet), or ""
	// Book is the address book, id → address, from --peers.
	Book map[string]netip.AddrPort
	// Seeds are the members to join through, as ids of Book.
	Seeds []string
	// State is "member" or "joining".
	State string
	// KindConfig is the --kind-config file's table, with --seeds folded
	// in as its "seeds" key, ready for the kind's parser.
	KindConfig     map[string]any
	KeyFile        string // --cluster-key-file as given; what a key means is the daemon's
	Events         string // "-": stdout
	SnapDir        string
	SnapEvery      time.Duration
	SnapshotOnStop bool
	StartUnixNs    int64 // 0: now
	Duration       time.Duration

	bind, peers, seeds, kindConfig string
}

// Parse parses args as daemon name's command line: the shared flags and
// whatever own defines on the same set (the daemon's own flags, its own
// usage texts), then Check. Errors are usage errors; -h is flag.ErrHelp.
func (f *Flags) Parse(name string, args []string, stderr io.Writer, own func(fs *flag.FlagSet)) error {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	f.register(fs)
	if own != nil {
		own(fs)
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return f.Check()
}

// Main runs a daemon: run gets the process's arguments and standard
// streams and the signals Loop handles, and its result is the exit code.
func Main(run func(args []string, stdout, stderr io.Writer, sigs <-chan os.Signal) int) {
	MainArgs(run, os.Args[1:])
}

// MainArgs is Main with the daemon's arguments given: `detsim swimd ...`
// passes what follows its mode word.
func MainArgs(run func(args []string, stdout, stderr io.Writer, sigs <-chan os.Signal) int, args []string) {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGUSR1)
	os.Exit(run(args, os.Stdout, os.Stderr, sigs))
}

func (f *Flags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.ID, "id", "", "this node's member id (required; [A-Za-z0-9_-]{1,64})")
	fs.StringVar(&f.bind, "bind", "", "address to bind, IP:port: loopback, or with --netns a testbed address (required)")
	fs.StringVar(&f.peers, "peers", "", "address book: id=IP:port,... for every member (loopback addresses, or testbed ones with --netns)")
	fs.StringVar(&f.Netns, "netns", "", "the kernel testbed namespace this daemon runs in (detsim testbed sets it): then --bind and --peers are testbed addresses")
	fs.StringVar(&f.seeds, "seeds", "", "members to join through: addresses (IP:port) or ids, comma-separated; implies --state joining")
	fs.StringVar(&f.State, "state", "", `initial state: "member" or "joining" (default when --seeds is given)`)
	fs.StringVar(&f.kindConfig, "kind-config", "", "TOML file of the swim kind's kind_config keys (docs/swim.md); defaults as in a scenario")
	fs.StringVar(&f.KeyFile, "cluster-key-file", "", "file holding the cluster key in hex")
	fs.StringVar(&f.Events, "events", "-", `where the ndjson records go ("-": stdout; a file must not exist yet)`)
	fs.StringVar(&f.SnapDir, "snapshot-dir", "", "directory for tier-2 snapshots (<n>.json), written on SIGUSR1 and --snapshot-every")
	fs.DurationVar(&f.SnapEvery, "snapshot-every", 0, "write a snapshot at this interval (0: only on SIGUSR1)")
	fs.BoolVar(&f.SnapshotOnStop, "snapshot-on-stop", false, "write a last snapshot when stopping")
	fs.Int64Var(&f.StartUnixNs, "start-unix-ns", 0, "the run's shared start instant, Unix ns; virtual_time_ns counts from it, and a daemon bound before it sends nothing until it (default: now)")
	fs.DurationVar(&f.Duration, "duration", DefaultDuration, "stop after this long (at most 1h)")
}

// Check validates the shared flags after parsing and fills in Bind,
// Book, Seeds, State and KindConfig. With --netns it first checks that
// the process runs inside that testbed namespace; only then may --bind
// and --peers name testbed addresses. Every error is a usage error.
func (f *Flags) Check() error {
	if !hosts.ValidPeerID(f.ID) {
		return fmt.Errorf("--id %q: want 1 to 64 of [A-Za-z0-9_-]", f.ID)
	}
	if f.bind == "" {
		return errors.New("--bind is required (e.g. 127.0.0.1:7001)")
	}
	if f.Netns != "" {
		if err := tbnet.InNamespace(f.Netns); err != nil {
			return err
		}
	}
	ap, err := netip.ParseAddrPort(f.bind)
	if err != nil {
		return fmt.Errorf("--bind %q: want IP:port (e.g. 127.0.0.1:7001): %v", f.bind, err)
	}
	if err := tbnet.CheckAddr("--bind", ap.Addr(), f.Netns); err != nil {
		return err
	}
	f.Bind = ap
	if f.Duration <= 0 || f.Duration > MaxDuration {
		return fmt.Errorf("--duration %v: want more than 0 and at most %v", f.Duration, MaxDuration)
	}
	if f.SnapEvery != 0 && f.SnapEvery < MinSnapEvery {
		return fmt.Errorf("--snapshot-every %v: want 0 or at least %v", f.SnapEvery, MinSnapEvery)
	}
	if (f.SnapEvery != 0 || f.SnapshotOnStop) && f.SnapDir == "" {
		return errors.New("--snapshot-every and --snapshot-on-stop need --snapshot-dir")
	}
	if f.Book, err = parseBook(f.peers, f.Netns); err != nil {
		return err
	}
	f.Seeds = nil
	for _, s := range splitList(f.seeds) {
		id, err := resolveSeed(s, f.Book)
		if err != nil {
			return err
		}
		f.Seeds = append(f.Seeds, id)
	}
	switch {
	case f.State == "" && len(f.Seeds) > 0:
		f.State = "joining"
	case f.State == "":
		f.State = "member"
	case f.State != "member" && f.State != "joining":
		return fmt.Errorf("--state %q: want \"member\" or \"joining\"", f.State)
	}
	f.KindConfig = map[string]any{}
	if f.kindConfig != "" {
		// Never a FIFO (the read would block, and the signal loop is not
		// running yet) nor a device or a file past the bound (/dev/zero
		// filled memory).
		data, err := safefile.ReadFile(f.kindConfig, MaxKindConfigBytes)
		if err != nil {
			return fmt.Errorf("--kind-config: %w", err)
		}
		if f.KindConfig, err = swimcfg.DecodeTOML(data); err != nil {
			return fmt.Errorf("--kind-config %s: %w", f.kindConfig, err)
		}
	}
	if len(f.Seeds) > 0 {
		if _, ok := f.KindConfig["seeds"]; ok {
			return errors.New("seeds given both by --seeds and in --kind-config: give one")
		}
		seedList := make([]any, len(f.Seeds))
		for i, s := range f.Seeds {
			seedList[i] = s
		}
		f.KindConfig["seeds"] = seedList
	}
	return nil
}

// Bounds on the files a daemon is handed.
const (
	MaxKindConfigBytes = 1 << 20
	MaxKeyFileBytes    = 4 << 10
)

// ReadKeyFile reads a cluster key file given by flag: hex digits,
// surrounding white space ignored, through internal/safefile (a FIFO, a
// device or a file over MaxKeyFileBytes is refused before it is read).
// What key lengths are accepted is the node's (kinds/swim/live/node.CheckKey).
func ReadKeyFile(flag, path string) ([]byte, error) {
	data, err := safefile.ReadFile(path, MaxKeyFileBytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	key, err := hex.DecodeString(strings.TrimSpace(string(data)))
	if err != nil {
		return nil, fmt.Errorf("%s %s: not hex: %v", flag, path, err)
	}
	return key, nil
}

// Peers is every member id, this node's own and every --peers entry's,
// sorted: the peer list a kind's parser checks a kind_config against.
func (f *Flags) Peers() []string {
	peers := []string{f.ID}
	for id := range f.Book {
		if id != f.ID {
			peers = append(peers, id)
		}
	}
	slices.Sort(peers)
	return peers
}

func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

func parseBook(s, netns string) (map[string]netip.AddrPort, error) {
	book := map[string]netip.AddrPort{}
	for _, item := range splitList(s) {
		id, addr, ok := strings.Cut(item, "=")
		if !ok || !hosts.ValidPeerID(id) {
			return nil, fmt.Errorf("--peers entry %q: want id=IP:port", item)
		}
		ap, err := netip.ParseAddrPort(addr)
		if err != nil {
			return nil, fmt.Errorf("--peers entry %q: %v", item, err)
		}
		if err := tbnet.CheckAddr(fmt.Sprintf("--peers entry %q", item), ap.Addr(), netns); err != nil {
			return nil, err
		}
		if _, dup := book[id]; dup {
			return nil, fmt.Errorf("--peers: %q listed twice", id)
		}
		book[id] = ap
	}
	return book, nil
}

// resolveSeed maps a seed given as an address (or an id) to a member id
// through the address book: the wire carries ids, and the book is how a
// node finds the address of any id it hears of.
func resolveSeed(s string, book map[string]netip.AddrPort) (string, error) {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		for id, a := range book {
			if a == ap {
				return id, nil
			}
		}
		return "", fmt.Errorf("--seeds %s: no --peers entry has this address", s)
	}
	if _, ok := book[s]; !ok {
		return "", fmt.Errorf("--seeds %q: not an address and not an id in --peers", s)
	}
	return s, nil
}

// Clock is the daemon's time axis: nanoseconds since startUnixNs (now,
// when 0), anchored to the wall clock once, at the call, and monotonic
// after it, so several daemons' records merge on one axis and a clock
// step never sends one backwards.
func Clock(startUnixNs int64) func() int64 {
	t0 := time.Now()
	if startUnixNs == 0 {
		startUnixNs = t0.UnixNano()
	}
	offset := t0.UnixNano() - startUnixNs
	return func() int64 { return offset + int64(time.Since(t0)) }
}

// UntilStart is how long until the start instant startUnixNs (0: now),
// never negative.
func UntilStart(startUnixNs int64) time.Duration {
	if startUnixNs == 0 {
		return 0
	}
	return max(time.Until(time.Unix(0, startUnixNs)), 0)
}

// OpenEvents opens where the records go: stdout for "-", else a new file
// (O_EXCL: a daemon never writes over records it did not write). close
// closes the file, if one was opened.
func OpenEvents(path string, stdout io.Writer) (w io.Writer, close func() error, err error) {
	if path == "-" {
		return stdout, func() error { return nil }, nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return nil, nil, fmt.Errorf("--events: %w", err)
	}
	return f, f.Close, nil
}

// LineWriter collects a daemon's record lines and writes them out on
// Flush, which Loop calls every FlushEvery, so a reader tailing the file
// sees each record within that.
type LineWriter struct {
	mu  sync.Mutex
	w   *bufio.Writer
	err error
}

// NewLineWriter buffers lines for w.
func NewLineWriter(w io.Writer) *LineWriter {
	return &LineWriter{w: bufio.NewWriterSize(w, 64<<10)}
}

// Write appends one line; after a write error it drops everything, and
// Flush reports that error.
func (l *LineWriter) Write(line []byte) {
	l.mu.Lock()
	if l.err == nil {
		_, l.err = l.w.Write(line)
	}
	l.mu.Unlock()
}

// Flush writes out what is buffered and returns the first error met.
func (l *LineWriter) Flush() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err == nil {
		l.err = l.w.Flush()
	}
	return l.err
}

// Loop is a node's life under its daemon, from its bound socket on: it
// calls Start at the run's start instant (--start-unix-ns; at once when
// that has passed), takes snapshots on SIGUSR1 and --snapshot-every and
// flushes the records every FlushEvery, until SIGTERM or SIGINT or the
// end of --duration. Waiting for the start instant is the daemon's half
// of a supervisor's start barrier: every daemon binds before the run's
// clock starts and none sends before it, as in the simulator, where
// every host can receive from t = 0 (docs/testbed.md, "How a run
// starts").
type Loop struct {
	Name   string // the daemon's name, starting each message
	Stderr io.Writer
	Sigs   <-chan os.Signal
	Flags  *Flags
	// Snapshot is the node's tier-2 snapshot now; nil writes nothing.
	Snapshot func() []byte
	// Flush writes out the records (LineWriter.Flush).
	Flush func() error
	// Start begins the node's protocol: its first join, probe or tick.
	// nil: the node began before Run. A node stopped before the start
	// instant never begins.
	Start func()
}

// Run runs the loop, then writes the --snapshot-on-stop snapshot. It
// returns the exit code: 0 stopped by a signal or at --duration, 1 a
// snapshot or records write failed. Stopping the node and the last flush
// are the caller's, after Run.
func (l Loop) Run() int {
	f := l.Flags
	snaps := 0
	snapshot := func() error {
		data := l.Snapshot()
		if data == nil {
			return nil
		}
		path := filepath.Join(f.SnapDir, strconv.Itoa(snaps)+".json")
		snaps++
		// Through a locked temporary linked into place (internal/outfile):
		// a reader never sees it half written, and anything that appeared
		// at the path meanwhile is kept.
		return outfile.Write(path, data, false)
	}
	if f.SnapDir != "" {
		if err := os.MkdirAll(f.SnapDir, 0o777); err != nil {
			fmt.Fprintf(l.Stderr, "%s: --snapshot-dir: %v\n", l.Name, err)
			return 1
		}
	}
	var snapTick <-chan time.Time
	if f.SnapEvery > 0 {
		t := time.NewTicker(f.SnapEvery)
		defer t.Stop()
		snapTick = t.C
	}
	flush := time.NewTicker(FlushEvery)
	defer flush.Stop()
	deadline := time.NewTimer(f.Duration)
	defer deadline.Stop()
	var begin <-chan time.Time // nil: never ready
	if l.Start != nil {
		t := time.NewTimer(UntilStart(f.StartUnixNs))
		defer t.Stop()
		begin = t.C
	}
	fail := func(what string, err error) int {
		fmt.Fprintf(l.Stderr, "%s: %s: %v\n", l.Name, what, err)
		return 1
	}
	// started begins the node if the start instant has come: a snapshot
	// asked for at t = 0 may arrive before the timer fires, and is of
	// the node begun. Before the instant no snapshot is written.
	started := func() bool {
		if begin != nil && UntilStart(f.StartUnixNs) == 0 {
			begin = nil
			l.Start()
		}
		return begin == nil
	}
	for {
		select {
		case s := <-l.Sigs:
			if s != syscall.SIGUSR1 {
				// A signal that lands once the start instant has come
				// finds a node that has begun, even if the start timer
				// lost the select to it: a busy machine readies both at
				// once, and a node stopped there wrote no record.
				if !started() {
					return 0 // never begun: nothing to snapshot
				}
				return l.stop(snapshot)
			}
			if !started() {
				fmt.Fprintf(l.Stderr, "%s: SIGUSR1 before the start instant: snapshot not written\n", l.Name)
			} else if f.SnapDir == "" {
				fmt.Fprintf(l.Stderr, "%s: SIGUSR1: no --snapshot-dir, snapshot not written\n", l.Name)
			} else if err := snapshot(); err != nil {
				return fail("snapshot", err)
			}
		case <-snapTick:
			if !started() {
				continue
			}
			if err := snapshot(); err != nil {
				return fail("snapshot", err)
			}
		case <-flush.C:
			if err := l.Flush(); err != nil {
				return fail("writing events", err)
			}
		case <-deadline.C:
			if !started() {
				return 0
			}
			return l.stop(snapshot)
		case <-begin:
			begin = nil
			l.Start()
		}
	}
}

func (l Loop) stop(snapshot func() error) int {
	if l.Flags.SnapshotOnStop {
		if err := snapshot(); err != nil {
			fmt.Fprintf(l.Stderr, "%s: snapshot: %v\n", l.Name, err)
			return 1
		}
	}
	return 0
}
