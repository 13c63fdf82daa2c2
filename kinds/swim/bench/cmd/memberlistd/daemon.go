package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net/netip"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/memberlist"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/kinds/swim/bench/mlevents"
	"github.com/detsim/detsim/kinds/swim/daemoncli"
)

// How the daemon follows memberlist, which tells it of no change of view
// (mlevents.ReadView): the view is read a moment after anything happened
// (a datagram or stream message in, a log line, a delegate call), and at
// least every sampleEvery. A log line explains a change seen up to
// contextWindow later (memberlist logs a failed probe just before it
// marks the member suspect, on another goroutine than the sampler's).
const (
	sampleEvery   = 100 * time.Millisecond
	settle        = 5 * time.Millisecond
	contextWindow = 500 * time.Millisecond
	// encodeLag keeps the newest records unencoded at a flush: an
	// indirect probe_sent gains its intermediaries as memberlist sends
	// its ping_reqs, one at a time (mlevents.NewObserver).
	encodeLag = 20 * time.Millisecond
)

func parseFlags(args []string, stderr io.Writer) (*daemoncli.Flags, error) {
	f := &daemoncli.Flags{}
	err := f.Parse("memberlistd", args, stderr, func(fs *flag.FlagSet) {
		fs.Lookup("state").Usage = `initial state: "member" (joins every --peers member at start) or "joining" (joins its seeds; default when --seeds is given)`
		fs.Lookup("kind-config").Usage = "TOML file of the swim kind's kind_config keys (docs/swim.md), mapped onto memberlist.Config (kinds/swim/bench/README.md); a key memberlist has no equivalent for is refused"
		fs.Lookup("cluster-key-file").Usage = "refused: memberlist's keyring encrypts with AES-GCM, which swimd's HMAC key is not (kinds/swim/bench/README.md)"
	})
	if err != nil {
		return nil, err
	}
	if f.KeyFile != "" {
		return nil, errors.New("--cluster-key-file: memberlistd has no cluster key: memberlist's keyring encrypts every message (AES-GCM, 16/24/32-byte keys), while swimd's key only tags datagrams (HMAC, 16-64 bytes); the two would not be the same run")
	}
	return f, nil
}

// daemon is one memberlist node's records: every record is stamped and
// queued under mu, so each file is in nondecreasing virtual_time_ns
// whichever of memberlist's goroutines reports it.
type daemon struct {
	id     string
	netns  string
	byAddr map[netip.AddrPort]string // --peers, reversed
	byIP   map[netip.Addr]string     // the IPs only one member has
	clock  func() int64
	lw     *daemoncli.LineWriter
	env    bundle.Envelope
	stderr io.Writer
	ml     atomic.Pointer[memberlist.Memberlist]
	kick   chan struct{}

	mu      sync.Mutex
	obs     *mlevents.Observer
	pending []record // emitted, not yet encoded
	last    int64
	closed  bool
	line    []byte
}

type record struct {
	t  int64
	ev hosts.Event
}

func newDaemon(f *daemoncli.Flags, probeIntervalNs int64, lw *daemoncli.LineWriter, stderr io.Writer) *daemon {
	d := &daemon{id: f.ID, netns: f.Netns, byAddr: map[netip.AddrPort]string{}, byIP: map[netip.Addr]string{},
		clock: daemoncli.Clock(f.StartUnixNs), lw: lw, env: bundle.NewEnvelope(f.ID, "swim"), stderr: stderr,
		kick: make(chan struct{}, 1)}
	d.obs = mlevents.NewObserver(f.ID, probeIntervalNs, d.emit)
	book := map[string]netip.AddrPort{f.ID: f.Bind}
	for id, a := range f.Book {
		book[id] = a
	}
	members := map[netip.Addr]int{}
	for _, a := range book {
		members[a.Addr()]++
	}
	for id, a := range book {
		d.byAddr[a] = id
		if members[a.Addr()] == 1 {
			d.byIP[a.Addr()] = id
		}
	}
	return d
}

// now is the time of a record, never before the last one. Call with mu
// held.
func (d *daemon) now() int64 {
	d.last = max(d.last, d.clock())
	return d.last
}

// emit queues one record; call with mu held (the observer's calls are).
func (d *daemon) emit(t int64, ev hosts.Event) {
	if !d.closed {
		d.pending = append(d.pending, record{t, ev})
	}
}

// observe runs fn on the observer at a time stamped under the lock.
func (d *daemon) observe(fn func(t int64, o *mlevents.Observer)) {
	d.mu.Lock()
	if !d.closed {
		fn(d.now(), d.obs)
	}
	d.mu.Unlock()
}

// poke wakes the sampler: memberlist's view may have changed.
func (d *daemon) poke() {
	select {
	case d.kick <- struct{}{}:
	default:
	}
}

// encode writes the queued records stamped up to upTo as lines. Call with
// mu held.
func (d *daemon) encode(upTo int64) {
	n := 0
	for _, r := range d.pending {
		if r.t > upTo {
			break
		}
		d.line = bundle.AppendEventLineWith(d.line[:0], r.t, d.env, r.ev)
		d.lw.Write(d.line)
		n++
	}
	d.pending = append(d.pending[:0], d.pending[n:]...)
}

// flush writes out every record older than encodeLag.
func (d *daemon) flush() error {
	d.mu.Lock()
	d.encode(d.now() - int64(encodeLag))
	d.mu.Unlock()
	return d.lw.Flush()
}

// finish writes out every record and records nothing more.
func (d *daemon) finish() error {
	d.mu.Lock()
	d.encode(1<<63 - 1)
	d.closed = true
	d.mu.Unlock()
	return d.lw.Flush()
}

// sample records every change of memberlist's view since the last.
func (d *daemon) sample() {
	m := d.ml.Load()
	if m == nil {
		return
	}
	v := mlevents.ReadView(m) // memberlist's lock, never under ours
	d.observe(func(t int64, o *mlevents.Observer) {
		o.Sample(t, v)
		o.ExpireContext(t - int64(contextWindow))
	})
}

// sampler samples a moment after every poke and every sampleEvery, and
// once more when stop closes, then closes done.
func (d *daemon) sampler(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	tick := time.NewTicker(sampleEvery)
	defer tick.Stop()
	for {
		select {
		case <-d.kick:
			// Let memberlist finish what it just logged or received.
			t := time.NewTimer(settle)
			select {
			case <-t.C:
			case <-stop:
				t.Stop()
			}
		case <-tick.C:
		case <-stop:
			d.sample()
			return
		}
		d.sample()
	}
}

// join joins memberlist to targets ("id/IP:port"), retried every
// interval until one push/pull succeeds or stop closes: memberlist joins
// once, and retrying is its embedder's job (as Serf's retry_join; the
// witness and kinds/swim/swim's join_request retry the same way).
func join(m *memberlist.Memberlist, targets []string, interval time.Duration, stop <-chan struct{}) {
	if len(targets) == 0 {
		return
	}
	for {
		if _, err := m.Join(targets); err == nil {
			return
		}
		t := time.NewTimer(interval)
		select {
		case <-t.C:
		case <-stop:
			t.Stop()
			return
		}
	}
}

// joinTargets are the members a start joins: every other --peers member
// ("member": it knows the cluster, as a kinds/swim/swim member starts knowing
// every declared peer alive), or its seeds ("joining").
func joinTargets(f *daemoncli.Flags, s mlevents.Settings) []string {
	ids := s.Swim.Seeds
	if f.State == "member" {
		ids = f.Peers()
	}
	var out []string
	for _, id := range ids {
		if a, ok := f.Book[id]; ok && id != f.ID {
			out = append(out, id+"/"+a.String())
		}
	}
	return out
}

// logSink reads memberlist's log lines (one per Write) for the observer,
// and passes its errors on to stderr, where a supervisor keeps them.
type logSink struct{ d *daemon }

func (l logSink) Write(p []byte) (int, error) {
	line := string(p)
	l.d.observe(func(t int64, o *mlevents.Observer) { o.LogLine(t, line) })
	if strings.Contains(line, "[ERR]") {
		fmt.Fprintf(l.d.stderr, "memberlistd: %s: %s\n", l.d.id, strings.TrimSpace(line))
	}
	l.d.poke()
	return len(p), nil
}

// The delegates: each callback is a moment the view may have changed.
func (d *daemon) NotifyJoin(*memberlist.Node)   { d.poke() }
func (d *daemon) NotifyLeave(*memberlist.Node)  { d.poke() }
func (d *daemon) NotifyUpdate(*memberlist.Node) { d.poke() }

// NotifyMerge marks a push/pull merge: the changes it makes are "join".
func (d *daemon) NotifyMerge([]*memberlist.Node) error {
	d.observe(func(t int64, o *mlevents.Observer) { o.Merged(t) })
	d.poke()
	return nil
}

// run opens as swimd's Run does, alike in shape: both parse their flags with
// kinds/swim/daemoncli, and what follows is each daemon's own.
func run(args []string, stdout, stderr io.Writer, sigs <-chan os.Signal) int {
	f, err := parseFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return exitf(stderr, 2, "%v", err)
	}
	settings, ferrs := mlevents.ParseConfig(f.KindConfig, f.Peers())
	if len(ferrs) > 0 {
		for _, e := range ferrs {
			fmt.Fprintf(stderr, "memberlistd: %s\n", e)
		}
		return 2
	}
	out, closeOut, err := daemoncli.OpenEvents(f.Events, stdout)
	if err != nil {
		return exitf(stderr, 1, "%v", err)
	}
	defer closeOut()
	lw := daemoncli.NewLineWriter(out)
	d := newDaemon(f, settings.Swim.ProbeIntervalNs, lw, stderr)
	logger := log.New(logSink{d}, "", log.LstdFlags|log.Lmicroseconds)

	tr, err := newTransport(d, f.Bind, logger)
	if err != nil {
		return exitf(stderr, 1, "%v", err)
	}
	conf := memberlist.DefaultLANConfig()
	settings.Apply(conf, f.ID)
	conf.Transport = tr
	conf.Logger = logger
	conf.AdvertiseAddr, conf.AdvertisePort = tr.addr.Addr().String(), int(tr.addr.Port())
	conf.Events = d
	conf.Merge = d
	m, err := memberlist.Create(conf)
	if err != nil {
		tr.Shutdown()
		return exitf(stderr, 1, "memberlist: %v", err)
	}
	d.ml.Store(m)
	// A supervisor (package live, the testbed) waits for this line: the
	// sockets are bound, and memberlist, alone so far, sends nothing
	// until it joins at the start instant (daemoncli.Loop).
	fmt.Fprintf(stderr, "memberlistd: %s ready on %s\n", f.ID, tr.addr)

	stopJoin, stopSampler, sampled := make(chan struct{}), make(chan struct{}), make(chan struct{})
	start := func() {
		d.sample() // the start-up view, memberlist alone: its own entry is "initial"
		go d.sampler(stopSampler, sampled)
		// The joiner is not waited for: a dial in progress may take memberlist's
		// TCPTimeout, longer than a supervisor waits for an exit, and whatever
		// it does after finish is not recorded.
		go join(m, joinTargets(f, settings), conf.ProbeInterval, stopJoin)
	}
	started := false
	code := daemoncli.Loop{Name: "memberlistd", Stderr: stderr, Sigs: sigs, Flags: f,
		Snapshot: func() []byte { return mlevents.Snapshot(f.ID, m) }, Flush: d.flush,
		Start: func() { started = true; start() }}.Run()
	if !started {
		close(sampled) // no sampler ran
	}
	close(stopJoin)
	// Shutdown, not Leave: a PeerKill is a process stopping, which the
	// others must find out by probing; a Leave would tell them first.
	if err := m.Shutdown(); err != nil {
		fmt.Fprintf(stderr, "memberlistd: shutdown: %v\n", err)
	}
	close(stopSampler)
	<-sampled
	if err := d.finish(); err != nil {
		return exitf(stderr, 1, "writing events: %v", err)
	}
	return code
}
