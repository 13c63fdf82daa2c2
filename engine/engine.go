// Package engine is the single-threaded discrete-event core of spec §4: it
// owns the virtual clock, the (time, seq) queue and the host table, asks the
// network where messages go and the hosts what they do, and emits every
// record of the run in pop order.
//
// The engine is a stepping machine: Step pops exactly one queue entry and
// dispatches it. Run, the terminal stepper and --batch are all loops over
// Step, and Checkpoint/Restore plus Timeline give reverse execution by
// re-running from the seed, which is the recording.
package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"math"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/checked"
	"github.com/detsim/detsim/network"
	"github.com/detsim/detsim/rng"
	"github.com/detsim/detsim/scenarios"
)

// Sink receives every record the run emits, in emission order. The engine
// hands over built records; what the sink does with them (serialise, hash,
// write, nothing) is its business. Event payloads must not be retained
// past the call unless copied.
type Sink interface {
	Event(at int64, hostID string, kindTag string, ev hosts.Event)
	Snapshot(at int64, hostID string, seq int, data []byte)
}

// Options configure a run. The zero value records nothing to disk and
// keeps the running digest, which is what the stepper wants.
type Options struct {
	// Writer, when set, receives every serialised record (batch runs).
	Writer RecordWriter
	// Monitor, when set, observes every event record and answers whether
	// every assertion is resolved (early termination, §4.8) — the streaming
	// evaluator.
	Monitor Monitor
	// Sink, when set, replaces serialisation entirely: records are built
	// and handed to it, with no digest and no Writer. Benchmarks use it to
	// measure the engine alone.
	Sink Sink
	// Headless, when set, builds records and never serialises them: no
	// digest, no Writer, no Tap, no MaxBytes (New refuses them). The
	// Monitor, which must be a TypedMonitor, is handed each record as the
	// value its host built. Sweeps judge their seeds this way and rerun a
	// seed with serialisation only when its digest is wanted
	// (docs/BENCHMARKS.md, "Judging typed records").
	Headless bool
	// JudgeBuilt, when set with a Monitor that is a BuiltMonitor, hands
	// the Monitor each record as the value its host built beside the
	// JSON serialised for the Writer, instead of the JSON alone: a batch
	// run judges its assertions so while it writes the bundle, rather
	// than reading events.ndjson back (docs/BENCHMARKS.md, "The bundle:
	// a few files, hashed once").
	JudgeBuilt bool
	// Tap, when set, sees every serialised event record: its 1-based line
	// number in events.ndjson and the line itself (valid only during the
	// call). It is outside the checkpointed state: a run is deterministic,
	// so line n always has the same bytes, and a viewer may cache lines by
	// number across Restore.
	Tap func(line int64, at int64, b []byte)
	// MaxRecords and MaxBytes, when positive, cap the run's output: the
	// run ends (Truncated) at the end of the step whose records bring the
	// event and snapshot records emitted to MaxRecords, or their bytes
	// (events.ndjson lines plus snapshot files) to MaxBytes. A step is
	// never cut in half, so a run may pass a cap by what one step emits.
	MaxRecords, MaxBytes int64
}

// RecordWriter is the part of the bundle writer the engine uses. It
// takes snapshots too when it is a SnapshotRecordWriter (the bundle
// writer) or has WriteSnapshot(hostID string, seq int, data []byte) error.
type RecordWriter interface {
	WriteEventLine(line []byte) error
}

// EventLinesWriter is a RecordWriter that also takes many whole lines in
// one call (the bundle writer): the engine then hands over its buffer of
// serialised records each time it hashes them, not each line as it is
// made, so a full buffer reaches the file in one system call. The last
// batch goes to it when Digest or EventsSHA256 is asked for: read Err
// after that, not only Run's error.
type EventLinesWriter interface {
	RecordWriter
	WriteEventLines(b []byte, lines int64) error
}

// FoldingWriter is an EventLinesWriter that takes folded lines
// (bundle.AppendFoldedEventLineAt): a hosts.Folded event is written as
// one line standing for its records (docs/bundle.md, "Folded lines"),
// and WriteFoldedLines is told how many records the lines hold.
type FoldingWriter interface {
	EventLinesWriter
	WriteFoldedLines(b []byte, lines, records int64) error
}

// SnapshotRecordWriter is a RecordWriter that writes each snapshot as the
// digest's record (header and bytes, due at the request's at_ns) and
// hashes the records as it writes them: the engine takes that hash for
// its digest rather than hashing every snapshot byte a second time
// (docs/bundle.md).
type SnapshotRecordWriter interface {
	WriteSnapshotAt(hostID string, seq int, atNs int64, data []byte) error
	SnapshotsSHA256() []byte
}

// snapshotFileWriter is a RecordWriter that takes snapshots without their
// time, and leaves the digest to the engine (tests' writers).
type snapshotFileWriter interface {
	WriteSnapshot(hostID string, seq int, data []byte) error
}

// hostState says whether a host is running.
type hostState uint8

const (
	hostDown    hostState = iota // declared "down" and never started
	hostRunning                  // ticking and receiving (unless halted)
	hostKilled                   // stopped by PeerKill
)

func (s hostState) String() string {
	switch s {
	case hostDown:
		return "down"
	case hostRunning:
		return "running"
	case hostKilled:
		return "killed"
	}
	return "?"
}

// kindRT is what the engine reads of a host kind, resolved once per kind
// when the engine is built: the kind's runtime (hosts.Kind) and the
// optional interfaces the engine asks for (hosts.Restartable,
// hosts.Canceller, hosts.Describer), so the paths that run per message
// read fields rather than call methods.
type kindRT struct {
	hosts.Kind
	tag   string
	codec hosts.Codec
	// spare holds values the codec's Handoff returned whose delivery is
	// over, for its next Handoff to build in (hosts.HandingCodec).
	spare         []any
	down, restart string          // "" for a kind that is not Restartable
	cancellable   bool            // its hosts accept a *hosts.Cancel
	describe      hosts.Describer // nil when the kind names no messages
}

func newKindRT(k hosts.Kind) *kindRT {
	rt := &kindRT{Kind: k, tag: k.Tag(), codec: k.Codec(), cancellable: hosts.IsCancellable(k)}
	rt.down, rt.restart = hosts.DownStates(k)
	rt.describe, _ = k.(hosts.Describer)
	return rt
}

// slot is one row of the host table.
type slot struct {
	id         string
	decl       *scenarios.Peer
	kind       *kindRT
	h          hosts.Host // nil until first started
	period     int64
	ticks      *rng.Stream // first-tick offsets, one draw per life
	lives      int         // fresh hosts built so far
	gen        uint32      // bumped on kill and restart: older queue entries go stale
	state      hostState
	tickHalted bool
	recvHalted bool
	decodeErrs int64
	fault      fault
	// due is the host's TickDue as last asked (hosts.Dozer): no Tick
	// before it does anything. It holds until the host's next call,
	// which resets it to "ask again": math.MinInt64, below any instant a
	// tick can be scheduled at.
	due int64
}

// Engine runs one scenario. It is not safe for concurrent use: one
// goroutine owns it at a time.
type Engine struct {
	sc     *scenarios.Scenario
	root   rng.Root
	peers  []string       // sorted ids; index = host index
	index  map[string]int // id → host index (point lookups only)
	byAddr byAddr         // the same, for the engine's own id strings (peers.go)
	opts   Options
	// envelopes[i] are host i's record envelopes under its kind's tag
	// and under "engine"; nullEnvelope is the engine's own, bound to no
	// host. Encoded once: a run writes millions of records.
	envelopes    [][2]bundle.Envelope
	nullEnvelope bundle.Envelope

	st state

	pending []byte // serialised records not yet hashed; see flushDigest
	// dial and cache are the network notes' records, reused (notes).
	dial  dialStart
	cache cacheStateChange
	// lines is the Writer when it takes records in batches: pending goes
	// to it whole at each flush, holding unwritten records, rather than
	// a line at a time; flushAt is the size of pending that flushes.
	lines     EventLinesWriter
	unwritten int64
	// fold says a hosts.Folded event is serialised as one folded line:
	// there is no Writer, or one that takes them (folds). unfolded counts
	// the records pending's folded lines stand for beyond one each.
	fold     bool
	folds    FoldingWriter
	unfolded int64
	scratch  []byte // a folded record's own line, for a Tap or a Monitor
	flushAt  int
	slabs    slabs // wire bytes of queued messages; see slab.go

	// The messages handed to Recv, reused call after call (hosts must
	// not keep the pointers).
	delivery   hosts.Delivery
	timer      hosts.TimerFired
	sendFailed hosts.SendFailed
	cancel     hosts.Cancel
	err        error // first writer error; ends the run

	// reuse[i] is host i's codec when it is a hosts.ReusingCodec, and
	// decoded[i] the value its last delivery was decoded into, filled
	// again by the next. Neither is state: the value is dead between
	// calls, so a checkpoint neither copies nor shares it.
	reuse   []hosts.ReusingCodec
	decoded []any
	// sizing[i] is host i's codec when it is a hosts.SizingCodec.
	sizing []hosts.SizingCodec
	// handing[i] is host i's codec when it is a hosts.HandingCodec and
	// the run is headless: nothing reads its messages' bytes, so they are
	// handed over as values.
	handing []hosts.HandingCodec
}

// state is everything Checkpoint copies.
type state struct {
	now      int64
	steps    int64 // entries dispatched
	seq      uint64
	q        queue
	wires    wires                         // bytes of queued deliveries (entries hold slots)
	cut      map[uint64]network.DropReason // deliveries invalidated in flight
	hosts    []slot
	net      *network.Network
	digest   hash.Hash // SHA-256 of events.ndjson's bytes so far
	snapHash hash.Hash // SHA-256 of the snapshot records so far
	records  int64     // event records emitted = lines of events.ndjson
	snaps    int64     // snapshot records emitted
	bytes    int64     // bytes of every record emitted: lines and snapshot data
	done     bool
	early    bool // ended by early termination
	capped   bool // ended by Options.MaxRecords or MaxBytes
	monitor  Monitor
	lastKind entryKind
	lastHost int32
}

// Monitor is the streaming side of the assertion evaluator (spec §10.4).
type Monitor interface {
	// Observe sees every event record: its 1-based line in events.ndjson,
	// its envelope fields and its payload JSON.
	Observe(line int64, at int64, hostID, kindTag, typ string, payload []byte)
	// Resolved reports whether every assertion's verdict is determined.
	Resolved() bool
	// Clone deep-copies the monitor for a checkpoint.
	Clone() Monitor
}

// TypedMonitor is a Monitor that can judge a record from the value its
// host built, with no JSON (Options.Headless).
type TypedMonitor interface {
	Monitor
	// ObserveEvent sees every event record as Observe does, its payload
	// the built value (valid only during the call).
	ObserveEvent(line int64, at int64, hostID, kindTag string, ev hosts.Event)
}

// BuiltMonitor is a Monitor that judges a record from the value its
// host built and the JSON serialised for it, together
// (Options.JudgeBuilt).
type BuiltMonitor interface {
	Monitor
	// ObserveBuilt sees every event record as Observe does, with the
	// built value besides its payload (both valid only during the
	// call).
	ObserveBuilt(line int64, at int64, hostID, kindTag string, ev hosts.Event, payload []byte)
}

// New builds an engine for sc, validating that every peer's kind is in reg.
// The queue is pre-populated as spec §4.1 says: one Tick per running host
// at its seed-derived offset, one Mutation per scenario mutation, one
// Snapshot per snapshot request, and Terminate at duration_ns, in that
// enqueue order.
func New(sc *scenarios.Scenario, reg *hosts.Registry, opts Options) (*Engine, error) {
	e := &Engine{
		sc:      sc,
		root:    rng.New(sc.Seed),
		index:   make(map[string]int, len(sc.Peers)),
		opts:    opts,
		flushAt: pendingFlush,
		slabs:   newSlabs(),
	}
	kinds := map[string]*kindRT{}
	for i := range sc.Peers {
		p := &sc.Peers[i]
		if i > 0 && sc.Peers[i-1].ID >= p.ID {
			return nil, fmt.Errorf("engine: peers not sorted by id at %q", p.ID)
		}
		k, ok := kinds[p.Kind]
		if !ok {
			hk, found := reg.Lookup(p.Kind)
			if !found {
				return nil, fmt.Errorf("engine: peer %q: unknown host kind %q", p.ID, p.Kind)
			}
			k = newKindRT(hk)
			kinds[p.Kind] = k
		}
		period := p.TickPeriodNs
		if period <= 0 {
			period = sc.TickPeriodNs
		}
		if period <= 0 {
			return nil, fmt.Errorf("engine: peer %q: tick period must be positive", p.ID)
		}
		e.peers = append(e.peers, p.ID)
		e.index[p.ID] = i
		buf := p.RecvBufferBytes
		if buf <= 0 {
			buf = scenarios.DefaultRecvBufferBytes
		}
		e.st.hosts = append(e.st.hosts, slot{
			id: p.ID, decl: p, kind: k, period: period,
			ticks: e.root.Tick(p.ID),
			fault: fault{cost: p.RecvCostNs, bufLimit: buf},
		})
	}
	if lw, ok := opts.Writer.(EventLinesWriter); ok {
		e.lines, e.flushAt = lw, writeFlush
	}
	e.folds, _ = opts.Writer.(FoldingWriter)
	e.fold = !opts.Headless && opts.Sink == nil && (opts.Writer == nil || e.folds != nil)
	switch {
	case opts.Headless: // a headless run serialises nothing
	case e.lines != nil:
		e.pending = takeBatch(e.flushAt + 4096)
	default:
		e.pending = make([]byte, 0, e.flushAt+4096)
	}
	e.byAddr = newByAddr(e.peers)
	e.reuse, e.decoded = make([]hosts.ReusingCodec, len(e.st.hosts)), make([]any, len(e.st.hosts))
	e.sizing = make([]hosts.SizingCodec, len(e.st.hosts))
	e.handing = make([]hosts.HandingCodec, len(e.st.hosts))
	for i := range e.st.hosts {
		e.reuse[i], _ = e.st.hosts[i].kind.codec.(hosts.ReusingCodec)
		e.sizing[i], _ = e.st.hosts[i].kind.codec.(hosts.SizingCodec)
		if opts.Headless {
			e.handing[i], _ = e.st.hosts[i].kind.codec.(hosts.HandingCodec)
		}
	}
	e.nullEnvelope = bundle.NewEnvelope("", engineTag)
	for _, s := range e.st.hosts {
		e.envelopes = append(e.envelopes, [2]bundle.Envelope{bundle.NewEnvelope(s.id, s.kind.tag), bundle.NewEnvelope(s.id, engineTag)})
	}
	switch {
	case sc.FullMesh:
		e.st.net = network.NewMesh(e.peers, sc.DefaultLink, e.root)
	case sc.Graph != nil:
		e.st.net = network.NewGraph(e.peers, *sc.Graph, e.root)
	default:
		e.st.net = network.New(e.peers, sc.Links, e.root)
	}
	e.st.cut = map[uint64]network.DropReason{}
	if opts.Headless {
		if _, ok := opts.Monitor.(TypedMonitor); !ok || opts.Sink != nil || opts.Writer != nil || opts.Tap != nil || opts.MaxBytes > 0 {
			return nil, errors.New("engine: a headless run needs a TypedMonitor and no Sink, Writer, Tap or MaxBytes: it serialises nothing")
		}
	}
	if opts.Sink == nil && !opts.Headless {
		e.st.digest, e.st.snapHash = sha256.New(), sha256.New()
	}
	e.st.monitor = opts.Monitor
	for i := range e.st.hosts {
		s := &e.st.hosts[i]
		if s.decl.InitialState != s.kind.down {
			e.start(int32(i), s.decl.InitialState, 0)
		}
	}
	for i := range sc.Mutations {
		e.push(entry{at: sc.Mutations[i].At, kind: kindMutation, aux: uint64(i), host: -1})
	}
	for i, at := range sc.Snapshots {
		e.push(entry{at: at, kind: kindSnapshot, aux: uint64(i), host: -1})
	}
	e.push(entry{at: sc.DurationNs, kind: kindTerminate, host: -1})
	return e, nil
}

// start begins a fresh life of host i in the given initial state and
// schedules its first tick at now plus a seed-derived offset in
// [0, period), so peers never tick in lock-step (§4.3).
func (e *Engine) start(i int32, initial string, now int64) {
	s := &e.st.hosts[i]
	// A second life must not replay the first one's draws (DESIGN §4).
	r := e.root.Life(s.id, s.lives)
	s.lives++
	prev := s.h
	s.h = s.kind.New(s.id, s.decl.KindConfig, initial, e.peers, r)
	// A fresh life finds on disk what its previous life had written
	// (hosts.Durable, docs/decisions.md "Durable state across lives").
	if old, ok := prev.(hosts.Durable); ok {
		if fresh, ok := s.h.(hosts.Durable); ok {
			fresh.Recover(old.Durable())
		}
	}
	if r, ok := s.h.(hosts.Restarter); ok {
		r.Started(now, false)
	}
	e.revive(i, now)
}

// revive marks host i running in a new generation and schedules its next
// first tick. Entries queued for an older generation become stale.
func (e *Engine) revive(i int32, now int64) {
	s := &e.st.hosts[i]
	s.gen++
	s.state = hostRunning
	s.due = math.MinInt64 // a new life, or Started told it it resumed
	s.tickHalted, s.recvHalted = false, false
	off := int64(s.ticks.Below(uint64(s.period)))
	e.push(entry{at: checked.Add(now, off), kind: kindTick, host: i, gen: s.gen})
	if f := &s.fault; f.paused || f.serving || len(f.inbox) > 0 {
		// Only a restart of a running host (never from a scenario: the
		// loader rejects it) gets here: the new life is not paused and
		// takes over what waits.
		f.clear()
		if len(f.inbox) > 0 {
			e.startService(i)
		}
	}
}

func (e *Engine) push(en entry) {
	en.seq = e.st.seq
	e.st.seq++
	e.st.q.push(en)
}

// add is push for the hot paths: it queues an entry due at at, of kind
// for host, and returns it for the caller to fill the rest in place
// before calling up on the heap it went in, e.st.q.of(kind) (heap4.add).
func (e *Engine) add(at int64, kind entryKind, host int32) *entry {
	en := e.st.q.of(kind).add()
	en.at, en.seq, en.kind, en.host = at, e.st.seq, kind, host
	e.st.seq++
	return en
}

// StepInfo describes the entry one Step dispatched.
type StepInfo struct {
	Index   int64  // 1-based count of dispatched entries after this step
	At      int64  // its virtual time
	Kind    string // Tick, Deliver, Timer, SendFailed, Mutation, Snapshot, Terminate
	Host    string // the host it was for, "" if none
	Records int64  // event records it emitted
	Done    bool   // the run is over (Terminate popped, or early termination)
}

// Done reports whether the run has ended.
func (e *Engine) Done() bool { return e.st.done }

// Err returns the first error writing records, which ends the run.
func (e *Engine) Err() error { return e.err }

// Now is the virtual time of the last dispatched entry.
func (e *Engine) Now() int64 { return e.st.now }

// Index is the number of entries dispatched so far.
func (e *Engine) Index() int64 { return e.st.steps }

// Records is the number of event records emitted so far.
func (e *Engine) Records() int64 { return e.st.records }

// Truncated reports whether the run ended at Options.MaxRecords or
// MaxBytes, before its scenario's end.
func (e *Engine) Truncated() bool { return e.st.capped }

// Snapshots is the number of snapshot records (files) emitted so far.
func (e *Engine) Snapshots() int64 { return e.st.snaps }

// Bytes is the number of bytes of every record emitted so far: event
// lines and snapshot data, what the bundle's events.ndjson and snapshot
// files hold.
func (e *Engine) Bytes() int64 { return e.st.bytes }

// overCap reports whether the output has reached a cap of Options.
func (e *Engine) overCap() bool {
	o := &e.opts
	return o.MaxRecords > 0 && e.st.records+e.st.snaps >= o.MaxRecords ||
		o.MaxBytes > 0 && e.st.bytes >= o.MaxBytes
}

// EarlyTerminated reports whether the run ended because every assertion
// resolved (§4.8) rather than at duration_ns.
func (e *Engine) EarlyTerminated() bool { return e.st.early }

// Monitor returns the engine's streaming evaluator (nil if none). After a
// Restore it is the checkpoint's copy, so fetch it again rather than keep it.
func (e *Engine) Monitor() Monitor { return e.st.monitor }

// Scenario returns the scenario the engine runs.
func (e *Engine) Scenario() *scenarios.Scenario { return e.sc }

// Digest is the hex SHA-256 of two SHA-256 sums, concatenated: that of
// every event's events.ndjson line so far (EventsSHA256), and that of the
// snapshot records so far, each a header line
// {"snapshot":"snapshots/<host>/<seq>.json","virtual_time_ns":T,"bytes":N}
// followed by its bytes. It covers every record of the run. Empty when a
// Sink replaced serialisation.
func (e *Engine) Digest() string {
	if e.st.digest == nil {
		return ""
	}
	e.flushDigest()
	h := sha256.New()
	h.Write(e.st.digest.Sum(nil))
	if sw, ok := e.opts.Writer.(SnapshotRecordWriter); ok {
		h.Write(sw.SnapshotsSHA256())
	} else {
		h.Write(e.st.snapHash.Sum(nil))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// EventsSHA256 is the hex SHA-256 of events.ndjson as written so far: the
// bundle writer takes it rather than hashing the same bytes a second time.
func (e *Engine) EventsSHA256() string {
	if e.st.digest == nil {
		return ""
	}
	e.flushDigest()
	return hex.EncodeToString(e.st.digest.Sum(nil))
}

// Step pops exactly one live queue entry, advances the clock to it and
// dispatches it. Entries made stale by a kill or restart (a dead host's
// tick or timer, a cut delivery with nothing left to report) are discarded
// on the way without counting as a step. Step on a finished run does
// nothing and reports Done.
func (e *Engine) Step() StepInfo {
	var en entry
	before := e.st.records
	if !e.next(&en) {
		return StepInfo{Index: e.st.steps, At: e.st.now, Done: true}
	}
	var host string
	if en.host >= 0 {
		host = e.peers[en.host]
	}
	// One literal returned, not a variable filled and then copied
	// out: the copy stalled on its own stores (docs/BENCHMARKS.md,
	// "The engine near its floor").
	return StepInfo{Index: e.st.steps, At: en.at, Kind: en.kind.String(), Host: host, Records: e.st.records - before, Done: e.st.done}
}

// next is Step without its StepInfo: it dispatches the next live entry,
// which it leaves in en, and reports whether there was one (if not, the
// run is done).
func (e *Engine) next(en *entry) bool {
	for !e.st.done {
		h := e.st.q.head()
		if h == nil {
			break
		}
		if h == &e.st.q.ticks && e.snooze(en) {
			// Nothing the checks below read has changed since the step
			// before passed them: a snoozed tick emits nothing and calls
			// nobody.
			e.st.lastKind, e.st.lastHost = en.kind, en.host
			return true
		}
		*en = h.pop()
		if e.stale(en) {
			continue
		}
		e.st.now = en.at
		e.st.steps++
		e.dispatch(en)
		e.st.lastKind, e.st.lastHost = en.kind, en.host
		if !e.st.done && e.sc.EarlyTerminate && e.st.monitor != nil && e.st.monitor.Resolved() {
			e.st.done, e.st.early = true, true
		}
		if !e.st.done && e.overCap() {
			e.st.done, e.st.capped = true, true
		}
		if e.err != nil {
			e.st.done = true
		}
		return true
	}
	e.st.done = true
	return false
}

// Run steps until the run ends and returns the first record-writing error.
func (e *Engine) Run() error {
	var en entry
	for e.next(&en) {
	}
	return e.err
}

// RunTo steps until the run ends or Index reaches steps, and reports
// whether the run ended. It is RunUntil for a caller that looks only
// every so many steps, without a StepInfo and a call per step (a
// sweep's seeds: docs/BENCHMARKS.md, "A sweep does only what a seed
// needs").
func (e *Engine) RunTo(steps int64) bool {
	var en entry
	for e.st.steps < steps && e.next(&en) {
	}
	return e.st.done
}

// RunUntil steps until the run ends or stop returns true after a step.
func (e *Engine) RunUntil(stop func(StepInfo) bool) StepInfo {
	var info StepInfo
	for !e.st.done {
		info = e.Step()
		if stop(info) {
			break
		}
	}
	return info
}

// stale reports whether en should vanish without being a step: it belongs
// to an older generation of its host, or it is a cut delivery whose drop
// was already recorded and which paid no dial to report.
func (e *Engine) stale(en *entry) bool {
	switch en.kind {
	case kindTick, kindTimer, kindSendFailed:
		s := &e.st.hosts[en.host]
		return en.gen != s.gen || s.state != hostRunning
	case kindProcess, kindResume:
		return e.staleFault(en)
	case kindDeliver:
		if e.isCut(en) && !en.dialed {
			delete(e.st.cut, en.aux)
			e.release(en)
			return true
		}
	}
	return false
}

// isCut reports whether delivery en was cut in flight. Mutations that
// cut are rare, so the map is nearly always empty, and asking its length
// first spares every delivery two calls into it.
func (e *Engine) isCut(en *entry) bool {
	if len(e.st.cut) == 0 {
		return false
	}
	_, cut := e.st.cut[en.aux]
	return cut
}

func (e *Engine) dispatch(en *entry) {
	switch en.kind {
	case kindTick:
		e.dispatchTick(en)
	case kindDeliver:
		e.dispatchDeliver(en)
	case kindTimer:
		s := &e.st.hosts[en.host]
		if s.fault.paused {
			s.fault.deferred = append(s.fault.deferred, *en)
			return
		}
		if !s.recvHalted {
			e.timer = hosts.TimerFired{Token: en.aux}
			e.actions(en.host, s.h.Recv(&e.timer, e.st.now), false)
		}
	case kindSendFailed:
		s := &e.st.hosts[en.host]
		if s.fault.paused {
			s.fault.deferred = append(s.fault.deferred, *en)
			return
		}
		if !s.recvHalted {
			e.sendFailed = hosts.SendFailed{To: e.peers[en.peer], Reason: network.DropReason(en.aux).String()}
			e.actions(en.host, s.h.Recv(&e.sendFailed, e.st.now), false)
		}
	case kindMutation:
		e.dispatchMutation(int(en.aux))
	case kindSnapshot:
		e.dispatchSnapshot(int(en.aux))
	case kindTerminate:
		e.st.done = true
	case kindProcess:
		e.dispatchProcess(en.host)
	case kindResume:
		e.dispatchResume(en.host)
	default:
		panic(fmt.Sprintf("engine: unknown queue entry kind %d", en.kind))
	}
}

// dispatchTick calls Tick unless the host halted its ticks, and always
// schedules the next one (§4.3).
func (e *Engine) dispatchTick(en *entry) {
	s := &e.st.hosts[en.host]
	if !s.tickHalted && !s.fault.paused && !e.dozing(s) { // a tick in a pause is skipped; the chain goes on
		e.actions(en.host, s.h.Tick(e.st.now), true)
	}
	s = &e.st.hosts[en.host] // actions never resize the table, but stay honest
	if s.gen == en.gen && s.state == hostRunning {
		e.add(checked.Add(e.st.now, s.period), kindTick, en.host).gen = s.gen
		e.st.q.ticks.up()
	}
}

// snooze is the step of the tick at the head of the queue (the top of
// its ticks heap, which the caller found to be the head) when its host
// is dozing (e.st.hosts[].due is past it), done in place: the entry,
// left in en as popped, becomes its successor (the next period, the next
// sequence number, as dispatchTick would push it) and sinks to its place
// among the other ticks. The queue then holds what the pop and the push
// would have left and pops in the same (time, seq) order; only the
// push's sift-up and the dispatch are spared, on the nine ticks in ten a
// SWIM sweep dozes through (docs/BENCHMARKS.md, "Dozing ticks"), and the
// sift is through the ticks alone ("Ticks in a heap of their own"). It
// reports false, having done nothing, for any other tick.
func (e *Engine) snooze(en *entry) bool {
	top := &e.st.q.ticks.items[0]
	s := &e.st.hosts[top.host]
	if top.gen != s.gen || s.state != hostRunning || top.at >= s.due {
		return false // stale, or perhaps awake: the ordinary path decides
	}
	*en = *top
	e.st.now = en.at
	e.st.steps++
	e.st.q.ticks.retime(checked.Add(en.at, s.period), e.st.seq)
	e.st.seq++
	return true
}

// dozing reports whether s's host says nothing is due now (hosts.Dozer):
// its Tick would do nothing, so it is not called.
func (e *Engine) dozing(s *slot) bool {
	if e.st.now < s.due {
		return true
	}
	d, ok := s.h.(hosts.Dozer)
	if !ok {
		return false
	}
	s.due = d.TickDue()
	return e.st.now < s.due
}

// dispatchDeliver reports a paid dial's outcome, then hands the message to
// a running host through its codec (§4.4), or, when the host is paused,
// busy with an earlier delivery or has a recv_cost_ns, puts it in the
// host's inbox (hold).
func (e *Engine) dispatchDeliver(en *entry) {
	from, to := e.peers[en.peer], e.peers[en.host]
	if e.isCut(en) {
		delete(e.st.cut, en.aux)
		e.release(en)
		e.emit(en.peer, engineTag, dialOutcome{from: from, to: to, ok: false})
		return
	}
	if en.dialed {
		e.emit(en.peer, engineTag, dialOutcome{from: from, to: to, ok: true})
	}
	s := &e.st.hosts[en.host]
	switch {
	case s.state != hostRunning:
		id := e.st.wires.id(en.wire)
		e.release(en)
		e.emit(en.host, engineTag, dropOnDelivery{from: from, to: to, reason: "peer_" + s.state.String(), id: id})
		return
	case s.recvHalted:
		id := e.st.wires.id(en.wire)
		e.release(en)
		e.emit(en.host, engineTag, dropOnDelivery{from: from, to: to, reason: "halted", id: id})
		return
	}
	if s.fault.engaged() {
		e.hold(en)
		return
	}
	e.handOver(en)
}

// release frees a delivery's wire bytes unread.
func (e *Engine) release(en *entry) {
	e.done(e.st.wires.take(en.wire))
}

// done frees what a delivery's message took once nobody reads it: its
// bytes' hold on their slab, or its value, kept for the sender's kind's
// next Handoff. Like the slabs, values are recycled only while no
// checkpoint may share them.
func (e *Engine) done(w wire) {
	if w.msg != nil {
		if e.slabs.recycle {
			w.kind.spare = append(w.kind.spare, w.msg)
		}
		return
	}
	e.slabs.release(w.slab)
}

// wireBytes is the message's bytes, encoded now if it was handed over as
// a value: for viewers, never in a run.
func (w *wire) wireBytes() []byte {
	if w.msg == nil {
		return w.bytes
	}
	b, err := w.kind.codec.Append(nil, w.msg)
	if err != nil {
		return nil // Handoff accepted what it came from, so this cannot be
	}
	return b
}

// handOver decodes a delivery and gives it to its (running) host.
func (e *Engine) handOver(en *entry) {
	w := e.st.wires.take(en.wire)
	id, data := w.id, w.bytes
	s := &e.st.hosts[en.host]
	from := e.peers[en.peer]
	var msg any
	var err error
	if w.msg != nil {
		// Handed over as a value: what decoding its bytes would give.
		msg = w.msg
	} else if rc := e.reuse[en.host]; rc != nil {
		msg, err = rc.DecodeInto(data, e.decoded[en.host])
		e.decoded[en.host] = msg
	} else {
		msg, err = s.kind.codec.Decode(data)
	}
	if err != nil {
		s.decodeErrs++
		e.emit(en.host, engineTag, decodeError{from: from, to: s.id, bytes: len(data), err: err.Error(), count: s.decodeErrs, id: id})
		e.done(w)
		return
	}
	// Field by field: a whole-struct assignment goes through a stack
	// temporary whose wide reload stalls on the narrow stores that built
	// it, 4 % of an echo event (docs/BENCHMARKS.md, "The engine near its
	// floor").
	d := &e.delivery
	d.From, d.Payload, d.ID, d.Reliable = from, msg, id, en.reliable
	e.actions(en.host, s.h.Recv(&e.delivery, e.st.now), false)
	// Decoders copy what they keep, and hosts keep no payload, so the
	// slab or the value is free once the host has seen the message.
	e.done(w)
}

// dispatchMutation records the mutation, applies it to the network, cuts
// the deliveries it invalidates and kills or restarts hosts (§4.5, §5.5).
func (e *Engine) dispatchMutation(i int) {
	m := &e.sc.Mutations[i]
	e.emit(-1, engineTag, mutationRecord{index: i, m: m})
	cut, notes := e.st.net.ApplyMutation(m, e.st.now)
	var queued map[uint64]uint64 // delivery id → message id, of the cut deliveries still queued
	if len(cut) > 0 {
		queued = e.queuedAmong(cut)
	}
	for _, c := range cut {
		// The network cannot know whether a delivery due exactly now
		// already popped; only the queue can say.
		id, ok := queued[c.ID]
		if c.At <= e.st.now && !ok {
			continue
		}
		e.st.cut[c.ID] = c.Reason
		e.emit(int32(c.To), engineTag, dropOnDelivery{from: e.peers[c.From], to: e.peers[c.To], reason: c.Reason.String(), id: id})
	}
	e.notes(notes)
	switch m.Kind {
	case network.PeerKill:
		hi := int32(e.index[m.Peer])
		s := &e.st.hosts[hi]
		if s.state == hostRunning {
			s.state = hostKilled
			s.gen++ // its queued ticks, timers, send failures and host-fault entries go stale
			e.dropInbox(hi, "peer_killed")
		}
	case network.PeerResurrect:
		hi := int32(e.index[m.Peer])
		s := &e.st.hosts[hi]
		if m.PreserveState && s.h != nil {
			if r, ok := s.h.(hosts.Restarter); ok {
				r.Started(e.st.now, true) // its process restarted; its disk is what it keeps
			}
			e.revive(hi, e.st.now)
			return
		}
		initial := s.decl.InitialState
		if initial == s.kind.down {
			initial = s.kind.restart
		}
		e.start(hi, initial, e.st.now)
	case network.PeerPause:
		e.pause(int32(e.index[m.Peer]), m.DurationNs)
	case network.Cancel:
		// Delivered at once, like a timer due now: the mutation's instant
		// falls between two of the host's calls (docs/decisions.md).
		hi := int32(e.index[m.Peer])
		s := &e.st.hosts[hi]
		if s.state == hostRunning && !s.recvHalted && s.kind.cancellable {
			e.actions(hi, s.h.Recv(&e.cancel, e.st.now), false)
		}
	}
}

// queuedAmong maps the delivery id of each cut delivery still in the
// queue to its message id. It scans the queue, so it is used only for a
// mutation that cuts deliveries: the records of the cut ones name their
// messages, and one due exactly at the mutation's instant is cut only if
// it has not popped yet. Its maps hold the cut deliveries, not the
// queue: a mutation on a 1000-peer run cuts a handful of a queue's
// hundreds of thousands.
func (e *Engine) queuedAmong(cut []network.Invalidated) map[uint64]uint64 {
	want := make(map[uint64]struct{}, len(cut))
	for _, c := range cut {
		want[c.ID] = struct{}{}
	}
	out := make(map[uint64]uint64, len(cut))
	for i := range e.st.q.rest.items { // no delivery is among the ticks
		if en := &e.st.q.rest.items[i]; en.kind == kindDeliver {
			if _, ok := want[en.aux]; ok {
				out[en.aux] = e.st.wires.id(en.wire)
			}
		}
	}
	return out
}

// dispatchSnapshot asks every running host for its snapshot, in host order.
func (e *Engine) dispatchSnapshot(seq int) {
	for i := range e.st.hosts {
		s := &e.st.hosts[i]
		if s.state != hostRunning {
			continue
		}
		e.snapshot(s.id, seq, s.h.Snapshot())
	}
}

// actions processes a host's returned actions in order (§4.6).
func (e *Engine) actions(hi int32, acts []hosts.Action, fromTick bool) {
	s := &e.st.hosts[hi]
	s.due = math.MinInt64 // every Tick and Recv comes through here
	for i := range acts {
		a := &acts[i]
		switch a.Kind() {
		case hosts.ActSend:
			e.send(hi, a.To(), a.Msg(), a.ID(), a.Transport())
		case hosts.ActRecord:
			e.emit(hi, s.kind.tag, a.Event())
		case hosts.ActTimer:
			at := a.At()
			if at < e.st.now {
				at = e.st.now
			}
			e.push(entry{at: at, kind: kindTimer, host: hi, gen: s.gen, aux: a.Token()})
		case hosts.ActHalt:
			s.tickHalted = true
			if !fromTick {
				s.recvHalted = true
			}
		default:
			// An action the engine cannot route is a host bug; silently
			// dropping it is what the simulator exists to catch (§3.2).
			panic(fmt.Sprintf("engine: host %q returned unknown action kind %d", s.id, a.Kind()))
		}
	}
	if len(acts) > trimAfter {
		if t, ok := s.h.(hosts.Trimmer); ok {
			t.Trim()
		}
	}
}

// trimAfter is the number of actions in one call above which the engine,
// once it has consumed them, lets a hosts.Trimmer release its buffers.
const trimAfter = 256

// send encodes a message, asks the network and either schedules the
// delivery or records the drop and queues SendFailed for the sender. id
// is the sender's message id (hosts.SendID), kept beside the bytes; via
// says whether it goes as a datagram or over a reliable stream.
func (e *Engine) send(hi int32, to string, msg any, id uint64, via hosts.Transport) {
	s := &e.st.hosts[hi]
	ti := e.byAddr.find(e.peers, to)
	if ti < 0 {
		var ok bool
		ti, ok = e.index[to]
		if !ok {
			// Hosts learn peers only from the declaration; a send to anyone
			// else is an action the engine cannot route.
			panic(fmt.Sprintf("engine: host %q sent to undeclared peer %q", s.id, to))
		}
	}
	if hc := e.handing[hi]; hc != nil {
		e.hand(hi, ti, hc, msg, id, via)
		return
	}
	room := 2048
	if sc := e.sizing[hi]; sc != nil {
		// Room for all of it, up to a slab: otherwise Append gives a
		// longer message an array of its own.
		room = min(max(room, sc.EncodedLen(msg)), slabSize)
	}
	e.slabs.room(room)
	start := len(e.slabs.cur)
	b, err := s.kind.codec.Append(e.slabs.cur[start:start], msg)
	if err != nil {
		panic(fmt.Sprintf("engine: host %q: encode %T: %v", s.id, msg, err))
	}
	slab := int32(-1) // it outgrew the slab and append gave it an array of its own
	if len(b) > 0 && &b[0] == &e.slabs.cur[start : start+1][0] {
		slab = e.slabs.claim(len(b)) // it fit
	}
	b = b[:len(b):len(b)]
	e.transmit(hi, ti, wire{bytes: b, id: id, size: int32(len(b)), slab: slab}, via)
}

// hand is send for a message handed over as a value (hosts.HandingCodec):
// the network charges its length and the receiver gets the value, with
// no bytes written or read between.
func (e *Engine) hand(hi int32, ti int, hc hosts.HandingCodec, msg any, id uint64, via hosts.Transport) {
	k := e.st.hosts[hi].kind
	var into any
	if n := len(k.spare); n > 0 {
		into, k.spare[n-1] = k.spare[n-1], nil
		k.spare = k.spare[:n-1]
	}
	v, size, err := hc.Handoff(msg, into)
	if err != nil {
		panic(fmt.Sprintf("engine: host %q: encode %T: %v", e.st.hosts[hi].id, msg, err))
	}
	e.transmit(hi, ti, wire{msg: v, kind: k, id: id, size: int32(size), slab: -1}, via)
}

// transmit offers host hi's message w to the network on the edge to ti
// and either schedules the delivery or records the drop and queues
// SendFailed for the sender.
func (e *Engine) transmit(hi int32, ti int, w wire, via hosts.Transport) {
	var out network.Outcome
	var notes []network.Note
	if via == hosts.Datagram { // the common case, without offer's copy of the outcome
		out, notes = e.st.net.Send(int(hi), ti, int64(w.size), e.st.now)
	} else {
		out, notes = e.offer(hi, ti, int64(w.size), via)
	}
	e.notes(notes)
	if !out.Arrived {
		s := &e.st.hosts[hi]
		e.done(w)
		e.emit(hi, engineTag, dropOnSend{from: s.id, to: e.peers[ti], reason: out.Reason, id: w.id})
		e.push(entry{at: e.st.now, kind: kindSendFailed, host: hi, gen: s.gen, peer: int32(ti), aux: uint64(out.Reason)})
		return
	}
	en := e.add(out.At, kindDeliver, int32(ti))
	en.peer, en.aux, en.wire, en.dialed, en.reliable = hi, out.ID, e.st.wires.put(w), out.Dialed, via != hosts.Datagram
	e.st.q.rest.up()
}

// notes turns the network's side-channel notifications into events.
func (e *Engine) notes(notes []network.Note) {
	for _, n := range notes {
		from, to := e.peers[n.From], e.peers[n.To]
		// Without a Sink, what emit hands a record to (the serialiser,
		// a TypedMonitor, a BuiltMonitor) keeps nothing of it past the
		// call, so one value of each is reused: boxing a fresh one took
		// 28 % of what a 1000-peer run spent here (docs/BENCHMARKS.md,
		// "Buffers kept between runs").
		switch {
		case n.Kind == network.NoteDialStart && e.opts.Sink == nil:
			e.dial = dialStart{from: from, to: to}
			e.emit(int32(n.From), engineTag, &e.dial)
		case n.Kind == network.NoteDialStart:
			e.emit(int32(n.From), engineTag, dialStart{from: from, to: to})
		case n.Kind == network.NoteCacheChange && e.opts.Sink == nil:
			e.cache = cacheStateChange{from: from, to: to, transition: n.Transition, state: n.State}
			e.emit(int32(n.From), engineTag, &e.cache)
		case n.Kind == network.NoteCacheChange:
			e.emit(int32(n.From), engineTag, cacheStateChange{from: from, to: to, transition: n.Transition, state: n.State})
		default:
			panic(fmt.Sprintf("engine: unknown network note kind %d", n.Kind))
		}
	}
}
