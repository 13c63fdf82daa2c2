package main

import (
	"bufio"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"github.com/detsim/detsim/internal/outfile"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/detsim/detsim/hosts/swimcfg"
	"github.com/detsim/detsim/live/node"
	"github.com/detsim/detsim/rng"
	"github.com/detsim/detsim/testbed/tbnet"
)

// Bounds on a daemon's run: it always stops by itself.
const (
	defaultDuration = 10 * time.Minute
	maxDuration     = time.Hour
	flushEvery      = 200 * time.Millisecond
	minSnapEvery    = 100 * time.Millisecond
)

// options are the parsed flags.
type options struct {
	id, bind       string
	netns          string // a testbed namespace this daemon runs in (testbed/tbnet), or ""
	book           map[string]netip.AddrPort
	seeds          []string // ids
	state          string
	kindConfig     map[string]any
	key            []byte
	events         string
	snapDir        string
	snapEvery      time.Duration
	startUnixNs    int64
	duration       time.Duration
	tick           time.Duration
	seed           uint64
	life           int
	firstTickNs    int64 // -1: drawn from the seed
	snapshotOnStop bool
}

func parseFlags(args []string, stderr io.Writer) (*options, error) {
	fs := flag.NewFlagSet("swimd", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := &options{}
	var peers, seeds, kindConfig, keyFile string
	fs.StringVar(&o.id, "id", "", "this node's member id (required; [A-Za-z0-9_-]{1,64})")
	fs.StringVar(&o.bind, "bind", "", "UDP address to bind, a loopback IP:port (required)")
	fs.StringVar(&peers, "peers", "", "address book: id=IP:port,... for every member (loopback addresses)")
	fs.StringVar(&o.netns, "netns", "", "the kernel testbed namespace this daemon runs in (detsim testbed sets it): then --bind and --peers are testbed addresses")
	fs.StringVar(&seeds, "seeds", "", "members to join through: addresses (IP:port) or ids, comma-separated; implies --state joining")
	fs.StringVar(&o.state, "state", "", `initial state: "member" (knows every --peers member alive) or "joining" (default when --seeds is given)`)
	fs.StringVar(&kindConfig, "kind-config", "", "TOML file of the swim kind's kind_config keys (docs/swim.md); defaults as in a scenario")
	fs.StringVar(&keyFile, "cluster-key-file", "", "file holding the cluster key in hex (16-64 bytes): every datagram carries an HMAC-SHA256 tag")
	fs.StringVar(&o.events, "events", "-", `where the ndjson records go ("-": stdout)`)
	fs.StringVar(&o.snapDir, "snapshot-dir", "", "directory for tier-2 snapshots (<n>.json), written on SIGUSR1 and --snapshot-every")
	fs.DurationVar(&o.snapEvery, "snapshot-every", 0, "write a snapshot at this interval (0: only on SIGUSR1)")
	fs.Int64Var(&o.startUnixNs, "start-unix-ns", 0, "the run's shared start instant, Unix ns; virtual_time_ns counts from it (default: now)")
	fs.DurationVar(&o.duration, "duration", defaultDuration, "stop after this long (at most 1h)")
	fs.DurationVar(&o.tick, "tick", 100*time.Millisecond, "tick period (the probe cycle runs on ticks)")
	fs.Uint64Var(&o.seed, "seed", 0, "seed of the node's random draws (the scenario's seed, in a live run)")
	fs.IntVar(&o.life, "life", 0, "life number (a restarted peer's draws must not replay its earlier life's)")
	fs.Int64Var(&o.firstTickNs, "first-tick-ns", -1, "virtual time of the first tick (default: start + a seed-derived offset within one tick)")
	fs.BoolVar(&o.snapshotOnStop, "snapshot-on-stop", false, "write a last snapshot when stopping")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if !validID(o.id) {
		return nil, fmt.Errorf("--id %q: want 1 to 64 of [A-Za-z0-9_-]", o.id)
	}
	if o.bind == "" {
		return nil, errors.New("--bind is required (e.g. 127.0.0.1:7001)")
	}
	if o.netns != "" {
		if err := tbnet.InNamespace(o.netns); err != nil {
			return nil, err
		}
	}
	if ap, err := netip.ParseAddrPort(o.bind); err != nil {
		return nil, fmt.Errorf("--bind %q: want IP:port (e.g. 127.0.0.1:7001): %v", o.bind, err)
	} else if err := tbnet.CheckAddr("--bind", ap.Addr(), o.netns); err != nil {
		return nil, err
	}
	if o.duration <= 0 || o.duration > maxDuration {
		return nil, fmt.Errorf("--duration %v: want more than 0 and at most %v", o.duration, maxDuration)
	}
	if o.tick <= 0 || o.tick > time.Minute {
		return nil, fmt.Errorf("--tick %v: want more than 0 and at most 1m", o.tick)
	}
	if o.snapEvery != 0 && o.snapEvery < minSnapEvery {
		return nil, fmt.Errorf("--snapshot-every %v: want 0 or at least %v", o.snapEvery, minSnapEvery)
	}
	if (o.snapEvery != 0 || o.snapshotOnStop) && o.snapDir == "" {
		return nil, errors.New("--snapshot-every and --snapshot-on-stop need --snapshot-dir")
	}
	book, err := parseBook(peers, o.netns)
	if err != nil {
		return nil, err
	}
	o.book = book
	for _, s := range splitList(seeds) {
		id, err := resolveSeed(s, book)
		if err != nil {
			return nil, err
		}
		o.seeds = append(o.seeds, id)
	}
	switch {
	case o.state == "" && len(o.seeds) > 0:
		o.state = "joining"
	case o.state == "":
		o.state = "member"
	case o.state != "member" && o.state != "joining":
		return nil, fmt.Errorf("--state %q: want \"member\" or \"joining\"", o.state)
	}
	o.kindConfig = map[string]any{}
	if kindConfig != "" {
		data, err := os.ReadFile(kindConfig)
		if err != nil {
			return nil, fmt.Errorf("--kind-config: %w", err)
		}
		if o.kindConfig, err = swimcfg.DecodeTOML(data); err != nil {
			return nil, fmt.Errorf("--kind-config %s: %w", kindConfig, err)
		}
	}
	if len(o.seeds) > 0 {
		if _, ok := o.kindConfig["seeds"]; ok {
			return nil, errors.New("seeds given both by --seeds and in --kind-config: give one")
		}
		seedList := make([]any, len(o.seeds))
		for i, s := range o.seeds {
			seedList[i] = s
		}
		o.kindConfig["seeds"] = seedList
	}
	if keyFile != "" {
		data, err := os.ReadFile(keyFile)
		if err != nil {
			return nil, fmt.Errorf("--cluster-key-file: %w", err)
		}
		key, err := hex.DecodeString(strings.TrimSpace(string(data)))
		if err != nil {
			return nil, fmt.Errorf("--cluster-key-file %s: not hex: %v", keyFile, err)
		}
		if err := node.CheckKey(key); err != nil {
			return nil, fmt.Errorf("--cluster-key-file %s: %v", keyFile, err)
		}
		o.key = key
	}
	return o, nil
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
		if !ok || !validID(id) {
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

func validID(id string) bool {
	if len(id) == 0 || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// lineWriter collects the node's records and flushes them on a timer, so
// a reader tailing the file sees them within flushEvery.
type lineWriter struct {
	mu  sync.Mutex
	w   *bufio.Writer
	err error
}

func (l *lineWriter) write(line []byte) {
	l.mu.Lock()
	if l.err == nil {
		_, l.err = l.w.Write(line)
	}
	l.mu.Unlock()
}

func (l *lineWriter) flush() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err == nil {
		l.err = l.w.Flush()
	}
	return l.err
}

func run(args []string, stdout, stderr *os.File, sigs <-chan os.Signal) int {
	o, err := parseFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return exitf(stderr, 2, "%v", err)
	}
	peers := []string{o.id}
	for id := range o.book {
		if id != o.id {
			peers = append(peers, id)
		}
	}
	slices.Sort(peers)
	cfg, ferrs := swimcfg.Parse(o.kindConfig, peers)
	if len(ferrs) > 0 {
		for _, e := range ferrs {
			fmt.Fprintf(stderr, "swimd: %s\n", e)
		}
		return 2
	}

	// The clock: wall-clock anchored at start, monotonic after it.
	t0 := time.Now()
	if o.startUnixNs == 0 {
		o.startUnixNs = t0.UnixNano()
	}
	offset := t0.UnixNano() - o.startUnixNs
	clock := func() int64 { return offset + int64(time.Since(t0)) }

	conn, err := node.Listen(o.bind, o.netns)
	if err != nil {
		return exitf(stderr, 1, "%v", err)
	}
	out := stdout
	if o.events != "-" {
		f, err := os.OpenFile(o.events, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if err != nil {
			conn.Close()
			return exitf(stderr, 1, "--events: %v", err)
		}
		defer f.Close()
		out = f
	}
	lw := &lineWriter{w: bufio.NewWriterSize(out, 64<<10)}

	root := rng.New(o.seed)
	label := "kind"
	if o.life > 0 {
		label = fmt.Sprintf("kind/life=%d", o.life)
	}
	period := int64(o.tick)
	first := o.firstTickNs
	if first < 0 {
		first = clock() + int64(root.Host(o.id, "tick").Below(uint64(period)))
	}
	n, err := node.New(node.Config{
		ID: o.id, Peers: peers, Swim: cfg, Start: swimcfg.Start(o.state),
		Rand: root.Host(o.id, label), Conn: conn, Key: o.key, Clock: clock,
		TickPeriodNs: period, FirstTickNs: first, Out: lw.write, Book: o.book,
	})
	if err != nil {
		conn.Close()
		return exitf(stderr, 2, "%v", err)
	}
	n.Start()
	// A supervisor (package live) waits for this line before it signals.
	fmt.Fprintf(stderr, "swimd: %s ready on %s\n", o.id, n.Addr())

	snaps := 0
	snapshot := func() error {
		data := n.Snapshot()
		if data == nil {
			return nil
		}
		path := filepath.Join(o.snapDir, strconv.Itoa(snaps)+".json")
		snaps++
		return writeNew(path, data)
	}
	var snapTick <-chan time.Time
	if o.snapEvery > 0 {
		t := time.NewTicker(o.snapEvery)
		defer t.Stop()
		snapTick = t.C
	}
	if o.snapDir != "" {
		if err := os.MkdirAll(o.snapDir, 0o777); err != nil {
			n.Stop()
			return exitf(stderr, 1, "--snapshot-dir: %v", err)
		}
	}
	flush := time.NewTicker(flushEvery)
	defer flush.Stop()
	deadline := time.NewTimer(o.duration)
	defer deadline.Stop()
	code := 0
loop:
	for {
		select {
		case s := <-sigs:
			if s == syscall.SIGUSR1 {
				if o.snapDir == "" {
					fmt.Fprintln(stderr, "swimd: SIGUSR1: no --snapshot-dir, snapshot not written")
				} else if err := snapshot(); err != nil {
					fmt.Fprintf(stderr, "swimd: snapshot: %v\n", err)
					code = 1
					break loop
				}
				continue
			}
			break loop
		case <-snapTick:
			if err := snapshot(); err != nil {
				fmt.Fprintf(stderr, "swimd: snapshot: %v\n", err)
				code = 1
				break loop
			}
		case <-flush.C:
			if err := lw.flush(); err != nil {
				fmt.Fprintf(stderr, "swimd: writing events: %v\n", err)
				code = 1
				break loop
			}
		case <-deadline.C:
			break loop
		}
	}
	if o.snapshotOnStop && code == 0 {
		if err := snapshot(); err != nil {
			fmt.Fprintf(stderr, "swimd: snapshot: %v\n", err)
			code = 1
		}
	}
	n.Stop()
	if err := lw.flush(); err != nil {
		return exitf(stderr, 1, "writing events: %v", err)
	}
	return code
}

// writeNew writes a file that must not exist yet, through a locked
// temporary linked into place (internal/outfile): a reader never sees it
// half written, and anything that appeared at the path meanwhile is kept.
func writeNew(path string, data []byte) error { return outfile.Write(path, data, false) }
