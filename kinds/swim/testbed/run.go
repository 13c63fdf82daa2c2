package testbed

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/bundle/verdict"
	"github.com/detsim/detsim/engine"
	"github.com/detsim/detsim/internal/daemon"
	"github.com/detsim/detsim/internal/spool"
	"github.com/detsim/detsim/internal/supervise"
	"github.com/detsim/detsim/network"
	"github.com/detsim/detsim/scenarios"
)

// Config says where a testbed run goes and how it runs.
type Config struct {
	// Out is the bundle directory: missing, or a bundle, which is
	// replaced (as for a batch run).
	Out string
	// Version is the simulator's commit, recorded in the manifest.
	Version string
	// Impl is ImplSwimd or ImplMemberlist; Daemon the path of its binary
	// (kinds/swim/cmd/swimd, or kinds/swim/bench/cmd/memberlistd), and DaemonArgs what goes
	// before the daemon's own arguments: ["swimd"] when Daemon is detsim
	// itself, which runs swimd in that mode.
	Impl, Daemon string
	DaemonArgs   []string
	// MaxDuration caps the run's real duration below the scenario's
	// duration_ns (then the bundle is marked interrupted); 0 means
	// DefaultMaxDuration.
	MaxDuration time.Duration
	// StartMargin is how far ahead the run puts its start instant when
	// it starts its daemons (docs/testbed.md, "How a run starts"); 0
	// means DefaultStartMargin.
	StartMargin time.Duration
	// MaxRecords stops the run, marked interrupted, once the daemons have
	// written this many records; 0 means DefaultMaxRecords.
	MaxRecords int64
	// Progress, when set, is called about every ProgressEvery (default
	// 1 s) and once at the end.
	Progress      func(Progress)
	ProgressEvery time.Duration
}

// Defaults.
const (
	DefaultMaxDuration = 15 * time.Minute
	DefaultMaxRecords  = supervise.DefaultMaxRecords
)

// LoadEvery is how often a run samples the machine's load.
const LoadEvery = time.Second

// Progress is one progress report.
type Progress = supervise.Progress

// Result is what a finished testbed run reports.
type Result struct {
	Out         string
	EndNs       int64
	Interrupted string
	Records     int64
	Late        int64 // records the daemons wrote after the end instant, left out
	Digest      string
	Verdicts    []verdict.Verdict
	Manifest    bundle.Manifest
	// HeldDropped is how many packets the delay line dropped because it
	// held MaxHeldBytes; WireFull how many it dropped because a
	// serialised edge's queue was full (the FIFO behind a wire); Foreign
	// how many it passed that were not between two peers.
	HeldDropped, WireFull, Foreign int64
	// Unreachable is how many ICMP destination-unreachable packets
	// passed between peers until the run's end (not while its daemons
	// are stopped after it): datagrams that met no bound socket, as a
	// killed peer's do. With the start barrier none is from start-up
	// (docs/testbed.md, "How a run starts").
	Unreachable int64
	// Swept is what the sweep before this run removed, and left.
	Swept Swept
	// SetupNs and TeardownNs are how long building and removing the
	// kernel network took.
	SetupNs, TeardownNs int64
	// Lateness, Load and Marked are the manifest's record of the run's
	// own error (docs/testbed.md, "The testbed's own error").
	Lateness bundle.TestbedLateness
	Load     *bundle.TestbedLoad
	Marked   string
}

// InputError is a scenario, a machine or an output path the testbed
// cannot take: the CLI's exit 2.
type InputError = supervise.InputError

// spoolPrefix names the temporary directory the daemons' records wait in.
const spoolPrefix = "detsim-testbed"

// run is one testbed run's state.
type run struct {
	plan       *Plan
	cfg        Config
	w          *bundle.Writer
	work       string
	net        *Net
	epoch      time.Time
	end        int64
	daemonSeed uint64
	records    atomic.Int64
	events     *spool.Sink // this process's own records (mutations)
	sources    []string
	peers      *daemons
	line       *delayLine
	load       *bundle.TestbedLoad // while execute ran
	margin     time.Duration       // the epoch's distance when chosen
	readyNs    int64               // from choosing the epoch to the last daemon's ready line

	// mu guards the link state the mutations change, and the timers
	// that end loss bursts and pauses.
	mu     sync.Mutex
	cut    map[[2]int]bool
	burst  []int64 // per edge: the LossBurst ppm in force, or -1
	timers []*time.Timer
}

// Run runs sc's peers on the kernel testbed and writes its bundle to
// cfg.Out. Cancelling ctx ends the run early with a complete bundle marked
// interrupted; every namespace, link and rule it made is removed before
// it returns, whatever happened.
func Run(ctx context.Context, sc *scenarios.Scenario, cfg Config) (*Result, error) {
	plan, err := NewPlan(sc, cfg.Impl)
	if err != nil {
		return nil, &InputError{Err: err}
	}
	if err := Preflight(); err != nil {
		return nil, &InputError{Err: err}
	}
	if _, err := os.Stat(cfg.Daemon); err != nil {
		return nil, &InputError{Err: fmt.Errorf("testbed: the %s binary: %w", cfg.Impl, err)}
	}
	w, spoolDir, err := supervise.Begin(cfg.Out, spoolPrefix)
	if err != nil {
		return nil, err
	}
	defer w.Abort()
	defer spoolDir.Remove()

	r := &run{plan: plan, cfg: cfg, w: w, work: spoolDir.Path, cut: map[[2]int]bool{}}
	var capped bool
	var maxDur time.Duration
	r.end, capped, maxDur = supervise.End(sc, cfg.MaxDuration, DefaultMaxDuration)
	var seed [8]byte
	rand.Read(seed[:])
	r.daemonSeed = binary.LittleEndian.Uint64(seed[:]) >> 1 // a scenario seed's range
	r.burst = make([]int64, len(plan.Edges))
	for k := range r.burst {
		r.burst[k] = -1
	}

	setup := time.Now()
	if r.net, err = Build(plan); err != nil {
		return nil, err
	}
	res := &Result{Swept: r.net.Swept, SetupNs: int64(time.Since(setup))}
	defer func() {
		if r.net != nil {
			r.net.Close()
		}
	}()
	if r.events, err = spool.NewSink(r.spoolPath("testbed"), &r.records); err != nil {
		return nil, err
	}
	r.sources = append(r.sources, r.events.Path())
	r.peers = &daemons{r: r, kids: make([]*daemon.Child, len(plan.IDs)), lives: make([]int, len(plan.IDs))}
	if err := r.peers.writeKindConfigs(); err != nil {
		return nil, err
	}

	// The start barrier (docs/testbed.md, "How a run starts"): the
	// run's clock starts a margin from now, by when every daemon up at
	// t = 0 has bound its socket and waits, silent, for the instant.
	r.margin = cfg.StartMargin
	if r.margin <= 0 {
		r.margin = DefaultStartMargin(sc)
	}
	r.epoch = time.Now().Add(r.margin)
	if r.line, err = startDelayLine(r.net.TUN, plan, r.clock, filepath.Join(r.work, "delays.tsv")); err != nil {
		return nil, err
	}
	load := startLoadSampler(LoadEvery)
	end, interrupted, runErr := r.execute(ctx, capped, maxDur)
	// Counted before the daemons stop: stopping them one by one makes
	// the datagrams still in the delay line meet closed sockets, which
	// says nothing about the run.
	res.Unreachable = r.line.unreachables()
	r.load = load.stop(runtime.NumCPU())
	r.stopTimers()
	r.peers.close()
	dropped, wireFull, foreign, lineErr := r.line.stop()
	r.events.Close()
	teardown := time.Now()
	netErr := r.net.Close()
	r.net = nil
	res.TeardownNs = int64(time.Since(teardown))
	switch {
	case runErr != nil:
		return nil, runErr
	case lineErr != nil:
		return nil, lineErr
	case netErr != nil:
		return nil, netErr
	}
	res.HeldDropped, res.WireFull, res.Foreign = dropped, wireFull, foreign
	return r.finish(res, end, interrupted)
}

func (r *run) clock() int64 { return int64(time.Since(r.epoch)) }

func (r *run) spoolPath(name string) string { return filepath.Join(r.work, name+".ndjson") }

func (r *run) tickPeriod(i int) int64 {
	if p := r.plan.Scenario.Peers[i].TickPeriodNs; p > 0 {
		return p
	}
	return r.plan.Scenario.TickPeriodNs
}

// execute starts the peers, applies the timeline at its times and stops
// at the end, at a cap, on cancellation or when a daemon dies
// (internal/supervise, the loop live runs too).
func (r *run) execute(ctx context.Context, capped bool, maxDur time.Duration) (int64, string, error) {
	sc := r.plan.Scenario
	for i, p := range sc.Peers {
		if p.InitialState == "down" {
			continue
		}
		if err := r.peers.start(i, p.InitialState); err != nil {
			return 0, "", err
		}
	}
	// Every daemon has said it is bound (daemon.Start waits for the
	// line); one that said so after the start instant may have missed
	// another's first datagram, so the run would record its own
	// start-up: refuse it rather than record that.
	late := r.clock()
	r.readyNs = int64(r.margin) + late
	if late >= 0 {
		return 0, "", fmt.Errorf("testbed: the daemons took %v to bind their sockets, past the start margin of %v (%d ns late): the machine is too loaded to start this run's %d daemons before its clock starts (docs/testbed.md, \"How a run starts\")",
			time.Duration(r.readyNs).Round(time.Millisecond), r.margin, late, startsAtZero(sc))
	}
	if stop, why := r.awaitEpoch(ctx); why != "" {
		return stop, why, nil
	}
	loop := supervise.Loop{
		Scenario: sc, End: r.end, Capped: capped, MaxDuration: maxDur,
		Clock: r.clock, Records: &r.records, MaxRecords: r.cfg.MaxRecords,
		Progress: r.cfg.Progress, ProgressEvery: r.cfg.ProgressEvery,
		Apply: func(it scenarios.Scheduled) (string, error) { return "", r.apply(it) },
		Watch: func(now int64) string {
			if i, how := r.peers.crashed(); i >= 0 {
				return fmt.Sprintf("peer %s's daemon exited by itself after %d ns: %s", r.plan.IDs[i], now, how)
			}
			return ""
		},
	}
	return loop.Run(ctx)
}

// DefaultStartMargin is how far ahead a run puts its start instant when
// it starts sc's daemons: time for every daemon up at t = 0 to start and
// bind, generous for a loaded machine (up to about half a second each
// was seen, docs/calibration.md, "False alarms").
func DefaultStartMargin(sc *scenarios.Scenario) time.Duration {
	return 2*time.Second + time.Duration(startsAtZero(sc))*500*time.Millisecond
}

// startsAtZero is how many peers' daemons are up at t = 0.
func startsAtZero(sc *scenarios.Scenario) int {
	n := 0
	for _, p := range sc.Peers {
		if p.InitialState != "down" {
			n++
		}
	}
	return n
}

// awaitEpoch waits for the start instant, watching for a daemon that
// dies or a cancellation meanwhile: then it returns the run's end (0)
// and why.
func (r *run) awaitEpoch(ctx context.Context) (int64, string) {
	at := time.NewTimer(time.Until(r.epoch))
	defer at.Stop()
	watch := time.NewTicker(50 * time.Millisecond)
	defer watch.Stop()
	for {
		select {
		case <-at.C:
			return 0, ""
		case <-ctx.Done():
			return 0, fmt.Sprintf("cancelled before the start instant (%v)", context.Cause(ctx))
		case <-watch.C:
			if i, how := r.peers.crashed(); i >= 0 {
				return 0, fmt.Sprintf("peer %s's daemon exited by itself before the start instant: %s", r.plan.IDs[i], how)
			}
		}
	}
}

// record writes one of this process's own records (a mutation) at t.
func (r *run) record(t int64, m *network.Mutation, index int) {
	line := bundle.AppendEventLineWith(nil, t, bundle.NewEnvelope("", engine.RecordTag), engine.MutationRecord(index, m))
	r.events.Write(line)
}

// apply carries out one timeline item at its time.
func (r *run) apply(it scenarios.Scheduled) error {
	p := r.plan
	if it.Snapshot {
		for i, id := range p.IDs {
			if !r.peers.running(i) {
				continue
			}
			data, err := r.peers.kids[i].Snapshot()
			if err != nil {
				return fmt.Errorf("testbed: %w", err)
			}
			if err := r.w.WriteSnapshotAt(id, it.Index, it.At, data); err != nil {
				return err
			}
		}
		return nil
	}
	m := &p.Scenario.Mutations[it.Index]
	now := r.clock()
	r.record(now, m, it.Index)
	switch m.Kind {
	case network.Partition:
		var cuts [][2]int
		for _, a := range m.PeersA {
			for _, b := range m.PeersB {
				cuts = append(cuts, [2]int{p.Index(a), p.Index(b)}, [2]int{p.Index(b), p.Index(a)})
			}
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		for _, c := range cuts {
			k := p.EdgeOf(c[0], c[1])
			if k < 0 || r.cut[c] {
				continue
			}
			r.cut[c] = true
			if err := r.setIngress(k); err != nil {
				return err
			}
		}
	case network.Heal:
		r.mu.Lock()
		defer r.mu.Unlock()
		cut := r.cut
		r.cut = map[[2]int]bool{}
		keys := make([][2]int, 0, len(cut))
		for c := range cut {
			keys = append(keys, c)
		}
		sort.Slice(keys, func(i, j int) bool {
			return keys[i][0] < keys[j][0] || keys[i][0] == keys[j][0] && keys[i][1] < keys[j][1]
		})
		for _, c := range keys {
			if err := r.setIngress(p.EdgeOf(c[0], c[1])); err != nil {
				return err
			}
		}
	case network.LossBurst:
		r.mu.Lock()
		defer r.mu.Unlock()
		for _, k := range r.edgesOf(m.Links) {
			r.burst[k] = m.ProbPPM
			if err := r.setIngress(k); err != nil {
				return err
			}
			k := k
			r.after(m.At+m.DurationNs, func() error {
				r.burst[k] = -1
				return r.setIngress(k)
			})
		}
	case network.LatencySpike:
		for _, k := range r.edgesOf(m.Links) {
			r.line.spike(k, m.FactorX100, m.At+m.DurationNs)
		}
	case network.RelayBuffer:
		for _, k := range r.edgesOf(m.Links) {
			r.line.floor(k, m.FloorNs, m.At+m.DurationNs)
		}
	case network.PeerKill:
		r.peers.stop(p.Index(m.Peer))
	case network.PeerResurrect:
		i := p.Index(m.Peer)
		r.peers.stop(i)
		state := p.Scenario.Peers[i].InitialState
		if state == "down" {
			state = "joining"
		}
		return r.peers.start(i, state)
	case network.PeerPause:
		i := p.Index(m.Peer)
		if err := r.peers.pause(i, true); err != nil {
			return fmt.Errorf("testbed: pausing %s: %w", m.Peer, err)
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		r.after(m.At+m.DurationNs, func() error { return r.peers.pause(i, false) })
	}
	return nil
}

// edgesOf maps a mutation's links to plan edges, leaving out undeclared
// ones (the network model ignores those too).
func (r *run) edgesOf(links []network.Edge) []int {
	var out []int
	for _, l := range links {
		if k := r.plan.EdgeOf(r.plan.Index(l.From), r.plan.Index(l.To)); k >= 0 {
			out = append(out, k)
		}
	}
	return out
}

// setIngress writes edge k's chain from the state in force. Call with
// mu held.
func (r *run) setIngress(k int) error {
	e := r.plan.Edges[k]
	ppm := e.LossPPM
	if r.burst[k] >= 0 {
		ppm = r.burst[k]
	}
	if err := r.net.SetIngress(e.From, e.To, r.cut[[2]int{e.From, e.To}], ppm); err != nil {
		return fmt.Errorf("testbed: %w", err)
	}
	return nil
}

// after runs f at run time atNs (a burst's or a pause's end), under mu.
// Its error is kept and ends nothing: the next mutation or the run's end
// reports the state as it is. Call with mu held.
func (r *run) after(atNs int64, f func() error) {
	t := time.AfterFunc(time.Duration(max(atNs-r.clock(), 0)), func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.timers == nil {
			return // stopped
		}
		if err := f(); err != nil {
			fmt.Fprintf(os.Stderr, "testbed: at %d ns: %v\n", atNs, err)
		}
	})
	r.timers = append(r.timers, t)
}

func (r *run) stopTimers() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, t := range r.timers {
		t.Stop()
	}
	r.timers = nil
}

// finish merges the records, copies the delay log in, evaluates the
// assertions and writes the manifest.
func (r *run) finish(res *Result, end int64, interrupted string) (*Result, error) {
	// A daemon that died before it wrote anything left no file.
	var sources []string
	for _, src := range r.sources {
		if _, err := os.Stat(src); err == nil {
			sources = append(sources, src)
		}
	}
	sc := r.plan.Scenario
	j, err := supervise.Judge(r.w, sources, sc, end, interrupted, "testbed")
	if err != nil {
		return nil, err
	}
	if err := r.w.CopyTestbedFile("delays.tsv", filepath.Join(r.work, "delays.tsv")); err != nil {
		return nil, err
	}
	edges := r.plan.Realised()
	lateness := r.line.lateness(edges)
	m := supervise.Manifest(sc, r.cfg.Version, bundle.ModeTestbed, end, interrupted, j)
	m.Testbed = &bundle.Testbed{
		Kernel: kernelRelease(), Impl: r.plan.Impl, DaemonSeed: r.daemonSeed,
		DelayLine:  "a TUN device in the router namespace read by detsim: per-packet delay = latency + N(0, jitter²) from crypto/rand, clamped at 0, packets may overtake; every draw in testbed/delays.tsv",
		Edges:      edges,
		Unobserved: Unobserved(r.plan.Impl),
		Lateness:   &lateness,
		Load:       r.load,
		Marked:     LatenessMark(lateness),
		Start:      &bundle.TestbedStart{MarginNs: int64(r.margin), ReadyNs: r.readyNs},
	}
	final, err := supervise.Finish(r.w, r.cfg.Out, m, sc, j)
	if err != nil {
		return nil, err
	}
	res.Out, res.EndNs, res.Interrupted, res.Records, res.Late = r.cfg.Out, end, interrupted, final.Records, j.Late
	res.Digest, res.Verdicts, res.Manifest = j.Digest, j.Verdicts, final
	res.Lateness, res.Load, res.Marked = lateness, r.load, m.Testbed.Marked
	return res, nil
}

// Unobserved is what the simulator records that a testbed run of impl
// cannot: the network model's own records, which no daemon sees and the
// kernel does not report, and the message fields the daemons cannot know.
func Unobserved(impl string) []bundle.Unobserved {
	out := []bundle.Unobserved{
		{What: "engine/cache_state_change", Why: "UDP on a kernel has no connection cache"},
		{What: "engine/dial_start", Why: "UDP on a kernel has no connection to dial"},
		{What: "engine/dial_outcome", Why: "UDP on a kernel has no connection to dial"},
		{What: "engine/drop_on_send", Why: "the kernel drops a datagram that finds no route or a full queue without a record; the sender sees at most an error it counts"},
		{What: "engine/drop_on_delivery", Why: "nftables drops packets (loss, partitions) at the receiver's ingress without a record"},
		{What: "swim/message_received event.id", Why: "the sender's message id is not on the wire, so the receiver cannot record it"},
		{What: "engine/delivery_queued", Why: "a datagram for a paused (SIGSTOPped) daemon waits in its socket buffer, which no one records"},
		{What: "engine/host_resumed", Why: "the daemons do not record their own SIGCONT"},
		{What: "swim/broadcast_queue", Why: "the simulator's adapter (kinds/swim/swimhost) writes the queue's depth; the daemons do not"},
	}
	if impl == ImplMemberlist {
		out = append(out,
			bundle.Unobserved{What: "swim/message_sent event.id", Why: "memberlist does not number its messages"},
			bundle.Unobserved{What: "swim/message_sent event.seq", Why: "memberlist does not number its messages"},
			bundle.Unobserved{What: "swim/message_received event.seq", Why: "memberlist does not number its messages"})
	}
	return out
}

// kernelRelease is uname's release and version.
func kernelRelease() string {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return "unknown"
	}
	return strings.TrimRight(string(u.Release[:]), "\x00") + " " + strings.TrimRight(string(u.Version[:]), "\x00")
}
