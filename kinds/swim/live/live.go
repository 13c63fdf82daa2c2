// Package live runs every peer of a SWIM scenario as a real node — the
// kinds/swim/swim state machine on a UDP socket on 127.0.0.1, the wall clock and
// real timers — with the scenario's links applied by a user-space shaper
// at each sender (the simulator's own network package deciding each
// datagram's fate and arrival time) and its mutations applied at their
// times, and writes a bundle with the simulator's layout and schema
// (docs/live.md, docs/calibration.md).
//
// Peers run in-process by default (one goroutine loop and one socket per
// peer), or as kinds/swim/cmd/swimd child processes (Config.Swimd), their datagrams
// then passing through one proxy socket per directed edge that the shaper
// owns.
//
// The package is outside the determinism fence by design: it reads the
// clock, starts goroutines and does socket I/O. Nothing fenced imports it.
package live

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/netip"
	"sync/atomic"
	"time"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/bundle/verdict"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/spool"
	"github.com/detsim/detsim/internal/supervise"
	"github.com/detsim/detsim/kinds/swim/swim"
	"github.com/detsim/detsim/kinds/swim/swimcfg"
	"github.com/detsim/detsim/network"
	"github.com/detsim/detsim/rng"
	"github.com/detsim/detsim/scenarios"
)

// Config says where a live run goes and how it runs.
type Config struct {
	// Out is the bundle directory, as for a batch run: missing, or a
	// bundle, which is replaced.
	Out string
	// Version is the simulator's commit, recorded in the manifest.
	Version string
	// MaxDuration caps the run's real duration below the scenario's
	// duration_ns; the bundle is then marked interrupted. 0 means
	// DefaultMaxDuration. A live run is real time: a 10-minute scenario
	// takes 10 minutes.
	MaxDuration time.Duration
	// Swimd, when set, is the path of a swimd binary: every peer runs as
	// its own child process (the CLI's --procs). SwimdArgs go before the
	// daemon's own arguments: ["swimd"] when Swimd is detsim itself.
	Swimd     string
	SwimdArgs []string
	// ClusterKey is the nodes' cluster key (16-64 bytes): every datagram
	// carries a sequence number and an HMAC tag over both, and each
	// node takes a sender's sequence number once (kinds/swim/live/node). Nil: a
	// fresh random 32-byte key made for the run and never written
	// anywhere but, with Swimd, a 0600 file in the run's own temporary
	// directory. A live run is never unauthenticated.
	ClusterKey []byte
	// Progress, when set, is called from Run's goroutine about every
	// ProgressEvery (default 1 s) and once at the end.
	Progress      func(Progress)
	ProgressEvery time.Duration
	// MaxRecords stops the run, marked interrupted, once the nodes have
	// written this many records. 0 means DefaultMaxRecords.
	MaxRecords int64
}

// Defaults.
const (
	DefaultMaxDuration = 10 * time.Minute
	DefaultMaxRecords  = supervise.DefaultMaxRecords
	// MaxPeers bounds a live run: one socket (and, with Swimd, one
	// process and n-1 proxy sockets) per peer on one machine.
	MaxPeers = 64
)

// Progress is one progress report.
type Progress = supervise.Progress

// Result is what a finished live run reports.
type Result struct {
	Out         string
	EndNs       int64  // the run's end, ns since its start
	Interrupted string // why it ended before the scenario's end, or ""
	Records     int64  // lines in events.ndjson
	// Late is how many records the nodes wrote after the end instant,
	// while being stopped; they are not in the bundle.
	Late     int64
	Digest   string
	Verdicts []verdict.Verdict
	Manifest bundle.Manifest
}

// Run runs sc live and writes its bundle to cfg.Out. Every peer must be of
// the swim kind. Cancelling ctx ends the run early with a complete,
// verifiable bundle marked interrupted. reg validates the peers' kinds.
func Run(ctx context.Context, sc *scenarios.Scenario, reg *hosts.Registry, cfg Config) (*Result, error) {
	if err := check(sc, reg, cfg); err != nil {
		return nil, &InputError{Err: err}
	}
	if cfg.ClusterKey == nil {
		cfg.ClusterKey = make([]byte, 32)
		if _, err := rand.Read(cfg.ClusterKey); err != nil {
			return nil, fmt.Errorf("live: making the run's cluster key: %w", err)
		}
	}
	w, spoolDir, err := supervise.Begin(cfg.Out, spoolPrefix)
	if err != nil {
		return nil, err
	}
	defer w.Abort()
	defer spoolDir.Remove()
	work := spoolDir.Path

	r, err := newRun(sc, cfg, w, work)
	if err != nil {
		return nil, err
	}
	end, interrupted, runErr := r.execute(ctx)
	r.teardown()
	if runErr != nil {
		return nil, runErr
	}
	return r.finish(end, interrupted)
}

// spoolPrefix names the temporary directory the nodes' records wait in.
const spoolPrefix = "detsim-live"

// InputError is a scenario or output path a live run cannot take: the
// CLI's exit 2, not a crash.
type InputError = supervise.InputError

// check refuses what a live run cannot do before anything is bound.
func check(sc *scenarios.Scenario, reg *hosts.Registry, cfg Config) error {
	if len(sc.Peers) > MaxPeers {
		return fmt.Errorf("live: %d peers; a live run holds at most %d", len(sc.Peers), MaxPeers)
	}
	ids := peerIDs(sc)
	for _, p := range sc.Peers {
		k, ok := reg.Lookup(p.Kind)
		if !ok || k.Tag() != "swim" {
			return fmt.Errorf("live: peer %q is of kind %q: a live run runs only swim peers", p.ID, p.Kind)
		}
		if _, errs := swimcfg.Parse(p.KindConfig, ids); len(errs) > 0 {
			return fmt.Errorf("live: peer %q: %v", p.ID, errs[0])
		}
	}
	if cfg.Swimd != "" {
		for _, m := range sc.Mutations {
			if m.Kind == network.PeerResurrect && m.PreserveState {
				return fmt.Errorf("live: mutation PeerResurrect of %q keeps its state (preserve_state = true), which a restarted swimd process cannot: run it in-process", m.Peer)
			}
		}
	}
	if cfg.ClusterKey != nil && (len(cfg.ClusterKey) < 16 || len(cfg.ClusterKey) > 64) {
		return errors.New("live: cluster key must be 16 to 64 bytes")
	}
	return nil
}

func peerIDs(sc *scenarios.Scenario) []string {
	ids := make([]string, len(sc.Peers))
	for i, p := range sc.Peers {
		ids[i] = p.ID
	}
	return ids
}

// run is one live run's state.
type run struct {
	sc      *scenarios.Scenario
	cfg     Config
	w       *bundle.Writer
	work    string // the spool directory
	ids     []string
	index   map[string]int
	root    rng.Root
	epoch   time.Time
	records atomic.Int64
	shaper  *shaper
	events  *spool.Sink // the shaper's records
	sources []string    // every spool file, merged at the end
	peers   peerSet
}

// peerSet runs the peers: in-process or as processes.
type peerSet interface {
	// start begins peer i's next life at now: fresh (initial state
	// state) or, with resume, continuing its previous state machine.
	start(i int, state string, resume bool) error
	// stop ends peer i's life and closes its socket.
	stop(i int)
	// snapshot returns peer i's tier-2 snapshot.
	snapshot(i int) ([]byte, error)
	// close stops everything still running.
	close()
	// addr is peer i's own port, fixed for the run.
	addr(i int) netip.AddrPort
}

func newRun(sc *scenarios.Scenario, cfg Config, w *bundle.Writer, work string) (*run, error) {
	r := &run{sc: sc, cfg: cfg, w: w, work: work, ids: peerIDs(sc), index: map[string]int{}, root: rng.New(sc.Seed)}
	for i, id := range r.ids {
		r.index[id] = i
	}
	var err error
	if r.events, err = spool.NewSink(r.spoolPath("shaper"), &r.records); err != nil {
		return nil, err
	}
	r.sources = append(r.sources, r.events.Path())
	var net *network.Network
	if sc.FullMesh {
		net = network.NewMesh(r.ids, sc.DefaultLink, r.root)
	} else {
		net = network.New(r.ids, sc.Links, r.root)
	}
	r.epoch = time.Now()
	r.shaper = newShaper(net, r.ids, r.clock, r.events)
	if cfg.Swimd != "" {
		r.peers, err = newProcs(r)
	} else {
		r.peers, err = newInProcess(r)
	}
	if err != nil {
		r.events.Close()
		return nil, err
	}
	return r, nil
}

// clock is nanoseconds since the run's start instant, on the monotonic
// clock.
func (r *run) clock() int64 { return int64(time.Since(r.epoch)) }

func (r *run) spoolPath(name string) string { return r.work + "/" + name + ".ndjson" }

// tickPeriod is peer i's tick period.
func (r *run) tickPeriod(i int) int64 {
	if p := r.sc.Peers[i].TickPeriodNs; p > 0 {
		return p
	}
	return r.sc.TickPeriodNs
}

// execute starts the peers, applies the schedule at its times and stops
// at the end, at the cap or on cancellation (internal/supervise, the
// loop testbed runs too). It returns the end instant and, if the run
// ended before the scenario's end, why.
func (r *run) execute(ctx context.Context) (int64, string, error) {
	end, capped, maxDur := supervise.End(r.sc, r.cfg.MaxDuration, DefaultMaxDuration)
	for i, p := range r.sc.Peers {
		if p.InitialState == "down" {
			continue
		}
		if stop := r.startPeer(i, p.InitialState, false); stop != "" {
			return r.clock(), stop, nil
		}
	}
	loop := supervise.Loop{
		Scenario: r.sc, End: end, Capped: capped, MaxDuration: maxDur,
		Clock: r.clock, Records: &r.records, MaxRecords: r.cfg.MaxRecords,
		Progress: r.cfg.Progress, ProgressEvery: r.cfg.ProgressEvery,
		Apply: r.apply,
	}
	return loop.Run(ctx)
}

// apply carries out one scheduled item. stop, when not "", ends the run
// there (a peer that could not begin its next life).
func (r *run) apply(it scenarios.Scheduled) (stop string, err error) {
	if it.Snapshot {
		for i := range r.ids {
			if !r.shaperRunning(i) {
				continue
			}
			data, err := r.peers.snapshot(i)
			if err != nil {
				return "", err
			}
			if err := r.w.WriteSnapshotAt(r.ids[i], it.Index, it.At, data); err != nil {
				return "", err
			}
		}
		return "", nil
	}
	m := &r.sc.Mutations[it.Index]
	r.shaper.mutate(it.Index, m)
	switch m.Kind {
	case network.PeerKill:
		i := r.index[m.Peer]
		if r.shaperRunning(i) {
			r.shaper.setRunning(i, false, netipZero, nil)
			r.peers.stop(i)
		}
		if afterKill != nil {
			afterKill(r.ids[i], r.peers.addr(i))
		}
	case network.PeerResurrect:
		i := r.index[m.Peer]
		if r.shaperRunning(i) {
			r.peers.stop(i) // the engine restarts a running peer too
			r.shaper.setRunning(i, false, netipZero, nil)
		}
		state := r.sc.Peers[i].InitialState
		if state == "down" {
			state = "joining"
		}
		return r.startPeer(i, state, m.PreserveState), nil
	}
	return "", nil
}

// startPeer begins peer i's next life. A life that cannot begin — its
// port taken by another process while the peer was down, a swimd that
// exits before its ready line — ends at once with a peer_start_failed
// record, and the run stops there: its bundle is complete and verifies,
// marked interrupted with why (before, the whole run was lost: exit 3, no
// bundle). It stops rather than run on without the peer because the
// scenario says the peer is running from here on, and a bundle whose
// scenario.toml says so must have its snapshots (detsim verify). The
// returned reason is "" when the life began.
func (r *run) startPeer(i int, state string, resume bool) string {
	err := r.peers.start(i, state, resume)
	if err == nil {
		if afterStart != nil {
			afterStart(r.ids[i], r.peers.addr(i))
		}
		return ""
	}
	reason := r.shaper.startFailed(i, err)
	return fmt.Sprintf("peer %s could not begin its next life (%s): %v", r.ids[i], reason, err)
}

// afterKill and afterStart, when set (tests only), are called once a
// PeerKill has stopped a peer, with the port the peer will come back on,
// and once a peer's life has begun, with the port it listens on.
var afterKill, afterStart func(peer string, port netip.AddrPort)

func (r *run) shaperRunning(i int) bool {
	r.shaper.mu.Lock()
	defer r.shaper.mu.Unlock()
	return r.shaper.running[i]
}

// teardown stops the peers and the shaper and closes every spool file.
func (r *run) teardown() {
	r.peers.close()
	r.shaper.close()
	r.events.Close()
}

// finish merges the records, evaluates the assertions and writes the
// manifest.
func (r *run) finish(end int64, interrupted string) (*Result, error) {
	j, err := supervise.Judge(r.w, r.sources, r.sc, end, interrupted, "live")
	if err != nil {
		return nil, err
	}
	m := supervise.Manifest(r.sc, r.cfg.Version, bundle.ModeLive, end, interrupted, j)
	m.Substitutions = []string{r.executorSubstitution()}
	final, err := supervise.Finish(r.w, r.cfg.Out, m, r.sc, j)
	if err != nil {
		return nil, err
	}
	return &Result{Out: r.cfg.Out, EndNs: end, Interrupted: interrupted, Records: final.Records, Late: j.Late,
		Digest: j.Digest, Verdicts: j.Verdicts, Manifest: final}, nil
}

func (r *run) executorSubstitution() string {
	how := "in one process, one goroutine and one UDP socket per peer"
	if r.cfg.Swimd != "" {
		how = "as swimd processes, one per peer, each datagram through a shaper proxy socket per directed edge"
	}
	return "the engine is replaced by real nodes on 127.0.0.1 (" + how + "; every datagram authenticated with a cluster key and its sequence number checked once, kinds/swim/live/node); links are applied by a user-space shaper asking detsim's network model for each datagram's fate and holding it on a real timer, so records of the same run differ from run to run, and from the simulator's"
}

// startSwim builds the state machine of peer i's next life, or returns
// the previous one to resume.
func (r *run) newSwim(i int, state string, lives int) (swim.Config, swim.Start, swim.Rand) {
	p := &r.sc.Peers[i]
	cfg, _ := swimcfg.Parse(p.KindConfig, r.ids) // checked in check
	return cfg, swimcfg.Start(state), r.root.Life(p.ID, lives)
}
