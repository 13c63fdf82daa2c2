package bench

import (
	"cmp"
	"crypto/sha256"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/bundle/verdict"
	"github.com/detsim/detsim/engine"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/kinds/swim/bench/mlevents"
	"github.com/detsim/detsim/network"
	"github.com/detsim/detsim/rng"
	"github.com/detsim/detsim/scenarios"
	"github.com/hashicorp/memberlist"
)

// The witness: hashicorp/memberlist nodes, one per peer of a swim
// scenario, run inside a testing/synctest bubble on the scenario's links.
// Every datagram memberlist writes is offered to detsim's own
// network.Network (built from the scenario exactly as engine.New and the
// live shaper build it: the scenario's seed, its links, its mutations at
// their times), which answers with an arrival time or a drop; the
// datagram is delivered by a timer at that virtual instant. What the
// nodes do is written as a bundle in detsim's event schema
// (docs/calibration.md, "memberlist as an outside witness", has the
// mapping and what it leaves out).

// witness is one run.
type witness struct {
	sc     *scenarios.Scenario
	ids    []string
	index  map[string]int
	cfgs   []mlevents.Settings
	policy map[[2]int]network.Policy
	epoch  time.Time
	kick   chan struct{}
	final  chan chan struct{}

	streams atomic.Int64

	mu      sync.Mutex
	net     *network.Network
	last    int64
	held    map[uint64]*wheld
	recs    []wrec
	closed  bool
	nodes   []*wnode
	lives   []int
	running []bool
	ghost   []bool   // killed, but left running behind a cut network: a later PeerResurrect keeps its state
	down    []string // per peer: drop reason of deliveries while not running
	cut     map[[2]int]bool
	snaps   []bundle.DigestSnapshot
	errs    []string
	full    int64 // deliveries lost to a full inbound queue (none expected)
}

// wrec is one record, encoded when the run is over.
type wrec struct {
	t    int64
	host int // -1: null
	tag  string
	ev   hosts.Event
}

// wheld is a datagram waiting for its arrival time.
type wheld struct {
	from, to int
	sender   *wnode
	data     []byte
	msg      mlevents.Msg
	kind     string
	at       int64
	dialed   bool
	cut      bool
	timer    *time.Timer
}

func newWitness(sc *scenarios.Scenario) (*witness, error) {
	w := &witness{sc: sc, index: map[string]int{}, policy: map[[2]int]network.Policy{}, held: map[uint64]*wheld{},
		cut: map[[2]int]bool{}}
	for i, p := range sc.Peers {
		w.ids = append(w.ids, p.ID)
		w.index[p.ID] = i
	}
	for _, p := range sc.Peers {
		if p.Kind != "swim" {
			return nil, fmt.Errorf("witness: peer %q is of kind %q; memberlist stands in for swim peers only", p.ID, p.Kind)
		}
		cfg, errs := mlevents.ParseConfig(p.KindConfig, w.ids)
		if len(errs) > 0 {
			return nil, fmt.Errorf("witness: peer %q: %v", p.ID, errs[0])
		}
		w.cfgs = append(w.cfgs, cfg)
	}
	for _, l := range sc.Edges() {
		w.policy[[2]int{w.index[l.From], w.index[l.To]}] = l.Policy
	}
	n := len(w.ids)
	w.nodes, w.lives, w.running, w.ghost = make([]*wnode, n), make([]int, n), make([]bool, n), make([]bool, n)
	w.down = make([]string, n)
	for i := range n {
		w.down[i] = "peer_down"
	}
	root := rng.New(sc.Seed)
	if sc.FullMesh {
		w.net = network.NewMesh(w.ids, sc.DefaultLink, root)
	} else {
		w.net = network.New(w.ids, sc.Links, root)
	}
	return w, nil
}

// clock is virtual ns since the run's start.
func (w *witness) clock() int64 { return int64(time.Since(w.epoch)) }

// now is the time of the next network question, never before the last.
// Call with mu held.
func (w *witness) now() int64 {
	w.last = max(w.last, w.clock())
	return w.last
}

// record appends one record. Call with mu held. A killed node records
// nothing (a killed host emits nothing in detsim either).
func (w *witness) record(host int, t int64, tag string, ev hosts.Event) {
	if w.closed || t > w.sc.DurationNs {
		return
	}
	if host >= 0 && tag == "swim" && !w.running[host] {
		return
	}
	w.recs = append(w.recs, wrec{t: t, host: host, tag: tag, ev: ev})
}

func (w *witness) poke() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

func (w *witness) lookup(a memberlist.Address) (int, bool) {
	if i, ok := w.index[a.Name]; ok {
		return i, true
	}
	for i := range w.ids {
		if nodeAddress(i).String() == a.Addr {
			return i, true
		}
	}
	return 0, false
}

// oneWay is a stream write's delay on the link from → to: the base
// latency plus serialisation of n bytes at the link's bandwidth.
func (w *witness) oneWay(from, to, n int) time.Duration {
	p, ok := w.policy[[2]int{from, to}]
	if !ok {
		return 0
	}
	d := p.LatencyNs
	if p.BandwidthBps > 0 && n > 0 {
		d += int64(n) * 1_000_000_000 / p.BandwidthBps
	}
	return time.Duration(d)
}

func (w *witness) notes(t int64, notes []network.Note) {
	for _, n := range notes {
		from, to := w.ids[n.From], w.ids[n.To]
		switch n.Kind {
		case network.NoteDialStart:
			w.record(n.From, t, engine.RecordTag, engine.DialStartRecord(from, to))
		case network.NoteCacheChange:
			w.record(n.From, t, engine.RecordTag, engine.CacheStateChangeRecord(from, to, n.Transition, n.State))
		}
	}
}

// sendPacket offers one datagram of sender's to the network model.
func (w *witness) sendPacket(sender *wnode, to int, b []byte, m mlevents.Msg, health int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	from := sender.idx
	if w.closed || w.nodes[from] != sender || !w.running[from] {
		return // a stopped life, or a killed node: nothing leaves it
	}
	t := w.now()
	kind := sender.obs.PacketSent(t, w.ids[to], len(b), m, health)
	out, notes := w.net.Send(from, to, int64(len(b)), t)
	w.notes(t, notes)
	if !out.Arrived {
		w.record(from, t, engine.RecordTag, engine.DropOnSendRecord(w.ids[from], w.ids[to], out.Reason, 0))
		return
	}
	h := &wheld{from: from, to: to, sender: sender, data: append([]byte(nil), b...), msg: m, kind: kind, at: out.At, dialed: out.Dialed}
	w.held[out.ID] = h
	id := out.ID
	h.timer = time.AfterFunc(time.Duration(out.At-w.clock()), func() { w.deliver(id) })
}

// deliver hands a held datagram to its receiver at its arrival time.
func (w *witness) deliver(id uint64) {
	w.mu.Lock()
	h, ok := w.held[id]
	if !ok || w.closed {
		w.mu.Unlock()
		return
	}
	delete(w.held, id)
	t := w.now()
	from, to := w.ids[h.from], w.ids[h.to]
	if h.cut {
		w.record(h.from, t, engine.RecordTag, engine.DialOutcomeRecord(from, to, false))
		w.mu.Unlock()
		return
	}
	if h.dialed {
		w.record(h.from, t, engine.RecordTag, engine.DialOutcomeRecord(from, to, true))
	}
	dest := w.nodes[h.to]
	if !w.running[h.to] || dest == nil {
		w.record(h.to, t, engine.RecordTag, engine.DropOnDeliveryRecord(from, to, w.down[h.to], 0))
		w.mu.Unlock()
		return
	}
	dest.obs.PacketReceived(t, from, len(h.data), h.msg, h.kind)
	w.mu.Unlock()
	select {
	case dest.packetCh <- &memberlist.Packet{Buf: h.data, From: nodeAddress(h.from), Timestamp: time.Now()}:
	default:
		w.mu.Lock()
		w.full++
		w.mu.Unlock()
	}
	w.poke()
}

// streamSent records a stream write as a message and returns its delay;
// false when nothing should arrive (the run is over, or the writer's
// node is no longer running).
func (w *witness) streamSent(c *wconn, b []byte) (time.Duration, bool) {
	kind := mlevents.StreamKind(mlevents.Decode(b), c.dialer)
	from, to := c.local.idx, c.remote.idx
	delay := w.oneWay(from, to, len(b))
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || w.nodes[from] != c.local || !w.running[from] {
		return 0, false
	}
	t := w.now()
	c.local.obs.StreamSent(t, w.ids[to], kind, len(b))
	n := len(b)
	time.AfterFunc(delay, func() {
		w.mu.Lock()
		if w.nodes[to] == c.remote && w.running[to] {
			c.remote.obs.StreamReceived(w.now(), w.ids[from], kind, n)
		}
		w.mu.Unlock()
		w.poke()
	})
	return delay, true
}

// logWriter reads one life's log lines (memberlist writes one line per
// Write): the probe and suspicion outcomes and refutations it reports.
type logWriter struct {
	w *witness
	n *wnode
}

func (l *logWriter) Write(p []byte) (int, error) {
	l.w.logLine(l.n, string(p))
	return len(p), nil
}

func (w *witness) logLine(n *wnode, line string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || w.nodes[n.idx] != n {
		return
	}
	t := w.now()
	if strings.Contains(line, "[ERR]") {
		w.errs = append(w.errs, fmt.Sprintf("%s at %.3fs: %s", n.name, float64(t)/1e9, strings.TrimSpace(line)))
	}
	n.obs.LogLine(t, line)
	w.poke()
}

// delegates: every callback is a moment the view may have changed.
type wdelegate struct {
	w *witness
	n *wnode
}

func (d wdelegate) NotifyJoin(*memberlist.Node)   { d.w.poke() }
func (d wdelegate) NotifyLeave(*memberlist.Node)  { d.w.poke() }
func (d wdelegate) NotifyUpdate(*memberlist.Node) { d.w.poke() }

// NotifyMerge marks a push/pull merge: the changes it makes are "join".
func (d wdelegate) NotifyMerge([]*memberlist.Node) error {
	d.w.mu.Lock()
	if d.w.nodes[d.n.idx] == d.n {
		d.n.obs.Merged(d.w.now())
	}
	d.w.mu.Unlock()
	d.w.poke()
	return nil
}

// sampler records every change of any node's view. It wakes whenever
// anything happened (a delivery, a stream arrival, a log line, a delegate
// callback), waits until every goroutine of the bubble is blocked — all
// that virtual instant's work is done, and time cannot move on while it
// runs — and compares each view with the last one recorded.
func (w *witness) sampler() {
	for {
		select {
		case <-w.kick:
			synctest.Wait()
			w.sample()
		case done := <-w.final:
			synctest.Wait()
			w.sample()
			close(done)
			return
		}
	}
}

func (w *witness) sample() {
	type live struct {
		i int
		n *wnode
		m *memberlist.Memberlist
	}
	var ls []live
	w.mu.Lock()
	for i, n := range w.nodes {
		if n != nil && w.running[i] {
			if m := n.ml.Load(); m != nil {
				ls = append(ls, live{i, n, m})
			}
		}
	}
	w.mu.Unlock()
	views := make([]map[string]mlevents.View, len(ls))
	for k, l := range ls {
		views[k] = mlevents.ReadView(l.m)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	t := w.now()
	for k, l := range ls {
		if w.nodes[l.i] != l.n {
			continue
		}
		l.n.obs.Sample(t, views[k])
	}
	for _, n := range w.nodes {
		if n != nil {
			n.obs.ResetContext()
		}
	}
}

// config is memberlist's DefaultLANConfig with the peer's kind_config
// applied (mlevents: every key memberlist has an equivalent for), on the
// witness's transport, log reader and delegates.
func (w *witness) config(n *wnode) *memberlist.Config {
	conf := memberlist.DefaultLANConfig()
	w.cfgs[n.idx].Apply(conf, n.name)
	conf.Transport = n
	conf.LogOutput = &logWriter{w, n}
	conf.Events = wdelegate{w, n}
	conf.Merge = wdelegate{w, n}
	return conf
}

// start begins peer i's next life: a fresh memberlist, joined to every
// other peer ("member": it knows the cluster) or to its seeds
// ("joining"), retried every probe interval until one push/pull succeeds
// (memberlist joins once; retrying is its embedder's job, as Serf's
// retry_join does, and kinds/swim/swim's join_request is resent every probe
// interval the same way).
func (w *witness) start(tb testing.TB, i int, state string) {
	n := &wnode{w: w, idx: i, name: w.ids[i], addr: nodeAddress(i),
		packetCh: make(chan *memberlist.Packet, queueFor(len(w.ids))), streamCh: make(chan net.Conn, 64)}
	n.obs = mlevents.NewObserver(n.name, w.cfgs[i].Swim.ProbeIntervalNs, func(t int64, ev hosts.Event) { w.record(i, t, "swim", ev) })
	w.mu.Lock()
	w.lives[i]++
	w.nodes[i], w.running[i], w.ghost[i] = n, true, false
	w.mu.Unlock()
	m, err := memberlist.Create(w.config(n))
	if err != nil {
		tb.Fatalf("memberlist.Create(%s): %v", n.name, err)
	}
	n.ml.Store(m)
	w.poke()
	var targets []string
	if state == "joining" {
		for _, s := range w.cfgs[i].Swim.Seeds {
			if s != n.name {
				targets = append(targets, joinAddress(s, w.index[s]))
			}
		}
	} else {
		for j, id := range w.ids {
			if j != i {
				targets = append(targets, joinAddress(id, j))
			}
		}
	}
	if len(targets) == 0 {
		return
	}
	go func() {
		for {
			if _, err := m.Join(targets); err == nil {
				return
			}
			time.Sleep(time.Duration(w.cfgs[i].Swim.ProbeIntervalNs))
			w.mu.Lock()
			gone := w.closed || w.nodes[i] != n || !w.running[i]
			w.mu.Unlock()
			if gone {
				return
			}
		}
	}()
}

// stop ends peer i's life: its memberlist shuts down, its streams break.
func (w *witness) stop(i int) {
	w.mu.Lock()
	n := w.nodes[i]
	w.running[i], w.down[i] = false, "peer_killed"
	var conns []*wconn
	if n != nil {
		conns = n.conns
		n.conns = nil
	}
	w.mu.Unlock()
	for _, c := range conns {
		c.abort()
	}
	if n != nil {
		if m := n.ml.Load(); m != nil {
			m.Shutdown()
		}
	}
}

// preservedLater: the next mutation of peer i after mutation k is a
// PeerResurrect that keeps its state.
func (w *witness) preservedLater(i, k int) bool {
	for _, m := range w.sc.Mutations[k+1:] {
		if (m.Kind == network.PeerResurrect || m.Kind == network.PeerKill) && m.Peer == w.ids[i] {
			return m.Kind == network.PeerResurrect && m.PreserveState
		}
	}
	return false
}

// mutate applies mutation k at its time: the network model's part as the
// live shaper does it, and the peers' part. memberlist cannot be paused,
// so a PeerKill that a state-preserving PeerResurrect undoes leaves the
// node running behind a cut network (nothing in or out, nothing
// recorded) until it comes back.
func (w *witness) mutate(tb testing.TB, k int) {
	m := &w.sc.Mutations[k]
	w.mu.Lock()
	t := w.now()
	w.record(-1, t, engine.RecordTag, engine.MutationRecord(k, m))
	cut, notes := w.net.ApplyMutation(m, t)
	for _, c := range cut {
		h, ok := w.held[c.ID]
		if !ok || h.cut {
			continue
		}
		w.record(c.To, t, engine.RecordTag, engine.DropOnDeliveryRecord(w.ids[c.From], w.ids[c.To], c.Reason.String(), 0))
		if c.Dialed {
			h.cut = true
			continue
		}
		h.timer.Stop()
		delete(w.held, c.ID)
	}
	w.notes(t, notes)
	switch m.Kind {
	case network.Partition:
		for _, a := range m.PeersA {
			for _, b := range m.PeersB {
				w.cut[[2]int{w.index[a], w.index[b]}] = true
				w.cut[[2]int{w.index[b], w.index[a]}] = true
			}
		}
	case network.Heal:
		clear(w.cut)
	}
	w.mu.Unlock()
	switch m.Kind {
	case network.PeerKill:
		i := w.index[m.Peer]
		if w.preservedLater(i, k) {
			w.mu.Lock()
			w.running[i], w.ghost[i], w.down[i] = false, true, "peer_killed"
			w.mu.Unlock()
		} else {
			w.stop(i)
		}
	case network.PeerResurrect:
		i := w.index[m.Peer]
		w.mu.Lock()
		ghost := w.ghost[i]
		if ghost && m.PreserveState {
			w.running[i], w.ghost[i] = true, false
		}
		w.mu.Unlock()
		if ghost && m.PreserveState {
			w.poke()
			return
		}
		w.stop(i)
		state := w.sc.Peers[i].InitialState
		if state == "down" {
			state = "joining"
		}
		w.start(tb, i, state)
	}
}

// snapshot writes peer i's view as its tier-2 snapshot: memberlist's own
// state (the witness's shape, not kinds/swim/swim's).
func (w *witness) snapshot(seq int, at int64) {
	w.mu.Lock()
	var idx []int
	var ms []*memberlist.Memberlist
	for i, n := range w.nodes {
		if n != nil && w.running[i] {
			if m := n.ml.Load(); m != nil {
				idx, ms = append(idx, i), append(ms, m)
			}
		}
	}
	w.mu.Unlock()
	for k, m := range ms {
		data := mlevents.Snapshot(w.ids[idx[k]], m)
		w.mu.Lock()
		w.snaps = append(w.snaps, bundle.DigestSnapshot{Host: w.ids[idx[k]], Seq: seq, AtNs: at, Data: data})
		w.mu.Unlock()
	}
}

// run runs the scenario to its end inside the calling bubble, then stops
// every node and waits until every goroutine it started has returned.
func (w *witness) run(tb testing.TB) {
	tag := labelBubble()
	w.epoch = time.Now()
	// Made here, inside the bubble: only a bubble's own channels block
	// durably, so that time can advance past a goroutine waiting on them.
	w.kick, w.final = make(chan struct{}, 1), make(chan chan struct{})
	go w.sampler()
	for i, p := range w.sc.Peers {
		if p.InitialState != "down" {
			w.start(tb, i, p.InitialState)
		}
	}
	for _, it := range w.sc.Timeline() {
		if it.At > w.sc.DurationNs {
			break
		}
		time.Sleep(time.Duration(it.At - w.clock()))
		if it.Snapshot {
			w.snapshot(it.Index, it.At)
		} else {
			w.mutate(tb, it.Index)
		}
	}
	time.Sleep(time.Duration(w.sc.DurationNs - w.clock()))
	done := make(chan struct{})
	w.final <- done
	<-done
	w.mu.Lock()
	w.closed = true
	for id, h := range w.held {
		h.timer.Stop()
		delete(w.held, id)
	}
	w.mu.Unlock()
	for i := range w.ids {
		w.stop(i)
	}
	for waited := time.Duration(0); bubbleGoroutines(tag) > 1; waited += drainStep {
		if waited > drainLimit {
			tb.Fatalf("%d goroutines still running %v after shutdown", bubbleGoroutines(tag)-1, drainLimit)
		}
		time.Sleep(drainStep)
	}
}

// witnessResult is a finished witness run.
type witnessResult struct {
	Out      string
	Records  int
	Verdicts []verdict.Verdict
	Errors   []string // memberlist's [ERR] log lines
	Full     int64
	Final    []map[string]mlevents.View // every node's view at the end
}

// runWitness runs sc's peers as memberlist nodes in a synctest bubble and
// writes the witness bundle to out.
func runWitness(t *testing.T, sc *scenarios.Scenario, out string) *witnessResult {
	t.Helper()
	w, err := newWitness(sc)
	if err != nil {
		t.Fatal(err)
	}
	final := make([]map[string]mlevents.View, len(w.ids))
	synctest.Test(t, func(t *testing.T) {
		w.run(t)
		for i, n := range w.nodes {
			if n != nil {
				final[i] = n.obs.View()
			}
		}
	})
	res, err := w.write(out)
	if err != nil {
		t.Fatal(err)
	}
	res.Final = final
	return res
}

// write encodes the records and writes the bundle: events, snapshots,
// verdicts of the scenario's own assertions on memberlist's records, and
// a manifest of mode "witness".
func (w *witness) write(out string) (*witnessResult, error) {
	slices.SortStableFunc(w.recs, func(a, b wrec) int { return cmp.Compare(a.t, b.t) })
	bw, err := bundle.Create(out)
	if err != nil {
		return nil, err
	}
	defer bw.Abort()
	envs := map[[2]string]bundle.Envelope{}
	var line []byte
	for _, r := range w.recs {
		host := ""
		if r.host >= 0 {
			host = w.ids[r.host]
		}
		env, ok := envs[[2]string{host, r.tag}]
		if !ok {
			env = bundle.NewEnvelope(host, r.tag)
			envs[[2]string{host, r.tag}] = env
		}
		line = bundle.AppendEventLineWith(line[:0], r.t, env, r.ev)
		if err := bw.WriteEventLine(line); err != nil {
			return nil, err
		}
	}
	if err := bw.FlushEvents(); err != nil {
		return nil, err
	}
	// Written in emission order, as RunDigest orders them, so the digest
	// is the one a witness bundle always had.
	slices.SortFunc(w.snaps, func(a, b bundle.DigestSnapshot) int {
		return cmp.Or(cmp.Compare(a.AtNs, b.AtNs), cmp.Compare(a.Seq, b.Seq), cmp.Compare(a.Host, b.Host))
	})
	for _, s := range w.snaps {
		if err := bw.WriteSnapshotAt(s.Host, s.Seq, s.AtNs, s.Data); err != nil {
			return nil, err
		}
	}
	vs, err := verdict.EvaluateBundle(bw.Dir(), w.sc.Assertions, w.sc.DurationNs)
	if err != nil {
		return nil, err
	}
	sum, err := fileSHA256(bw.Dir() + "/" + bundle.EventsFile)
	if err != nil {
		return nil, err
	}
	m := bundle.Manifest{
		SimulatorVersion: "bench-witness (hashicorp/memberlist v0.7.0)",
		ScenarioPath:     w.sc.Path,
		ScenarioSHA256:   fmt.Sprintf("%x", w.sc.SourceSHA256),
		Seed:             w.sc.Seed,
		DurationNs:       w.sc.DurationNs,
		HostArch:         runtime.GOARCH,
		Digest:           bw.RunDigestOf(sum), // the snapshots in the order written
		Mode:             bundle.ModeWitness,
		Machine:          &bundle.Machine{GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, CPUs: runtime.NumCPU(), GoVersion: runtime.Version()},
		Substitutions: []string{
			"the hosts are hashicorp/memberlist v0.7.0 nodes, not kinds/swim/swim: DefaultLANConfig with every kind_config key memberlist has set from the scenario, in a testing/synctest bubble (virtual time; goroutine scheduling at one instant is not reproducible, so neither are the records)",
			"datagrams go through detsim's network model as in a simulated run; streams (memberlist's TCP: push/pull, fallback pings) are reliable, connect in one round trip of the link's base latency and arrive after the base latency plus serialisation at the link's bandwidth, outside the model (no jitter, loss, send buffer, dial penalty or queueing behind datagrams)",
			"state_transition records are memberlist's view (its nodeMap) read after every instant at which a node received something, logged something or called a delegate; reasons come from its log lines and push/pull merges; probe records from the datagrams and its log lines",
		},
	}
	if err := bw.Finish(m, w.sc.TOML(), verdict.Marshal(vs)); err != nil {
		return nil, err
	}
	return &witnessResult{Out: out, Records: len(w.recs), Verdicts: vs, Errors: w.errs, Full: w.full}, nil
}

// fileSHA256 is the raw SHA-256 of a file.
func fileSHA256(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return nil, err
	}
	return h.Sum(nil), nil
}
