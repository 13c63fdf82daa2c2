// Package rafthost is the raft host kind: etcd's raft
// (go.etcd.io/raft/v3), unchanged, behind the simulator's host
// interface, driven the way etcd's server drives it. Each peer is a
// RawNode over a disk that survives a crash (disk.go), a small
// replicated key-value state machine, and a client issuing the puts of
// its kind_config's timeline. Messages travel in raftpb's own wire form
// (codec.go), by default on a reliable ordered stream per pair of
// members as etcd's rafthttp sends them (sendAction, failed); the randomized election timeouts etcd draws from
// crypto/rand come from the host's substream (entropy.go, the fence's one
// exception); a panic inside raft becomes a raft_panic record and a
// halted host, never a crashed run. A clone is rebuilt by replaying the
// host's inputs (replay.go): etcd's RawNode has no copy.
//
// The kind's records, assertions, library and viewers are declared
// here too (docs/raft.md); nothing outside kinds/raft/rafthost names them.
package rafthost

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"slices"

	etcd "github.com/detsim/detsim/kinds/raft/rafthost/raftseam"
	pb "github.com/detsim/detsim/kinds/raft/rafthost/raftseam/raftpb"

	"github.com/detsim/detsim/causal"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/hosts/pane"
	"github.com/detsim/detsim/rng"
)

// Tag is the kind tag of raft hosts and their records.
const Tag = "raft"

// Kind is the raft host kind. initial_state: "member" (a voter of the
// cluster of every declared peer, with an empty disk) or "down" (not
// running until a PeerResurrect, which starts it as a member).
var Kind hosts.Kind = kind{}

// kind is the raft kind: the runtime, its records and how they are
// drawn (viewers.go), its assertions (oracle.go), the explanation of a
// host's state (explain.go), the stepper's pane (pane.go) and its
// library (library.go).
type kind struct{}

var (
	states     = []string{"member", "down"}
	prototypes = eventPrototypes()
)

// One-line answers to the contract's small interfaces, alike in shape to
// every kind's: the values are raft's.
func (kind) Tag() string          { return Tag }
func (kind) States() []string     { return states }
func (kind) DownState() string    { return "down" }
func (kind) RestartState() string { return "member" }
func (kind) Codec() hosts.Codec   { return codec{} }

func (kind) Validate(config map[string]any, peers []string) []hosts.FieldError {
	return validate(config, peers)
}

// ValidatePeers: what each member's config bounds, the members could
// still hold many times over together.
func (kind) ValidatePeers(members []hosts.PeerConfig, peers []string) []hosts.FieldError {
	return validateMembers(members, peers)
}

func (kind) New(id string, config map[string]any, state string, peers []string, r *rng.Stream) hosts.Host {
	return newHost(id, config, state, peers, r)
}

func (kind) Describe(b []byte) string       { return describe(b) }
func (kind) Events() []hosts.Event          { return prototypes }
func (kind) Summary(snapshot []byte) string { return summary(snapshot) }
func (kind) Watches() []hosts.Watch         { return watches }
func (kind) Series() []hosts.Series         { return series }
func (kind) Marks() []hosts.Mark            { return marks }
func (kind) Views() *hosts.Views            { return nil }
func (kind) Band() *hosts.Band              { return band }
func (kind) History() *hosts.History        { return clientHistory }
func (kind) Assertions() *hosts.Assertions  { return family }
func (kind) Explainer() causal.Explainer    { return explainer{} }
func (kind) Pane(in pane.Input) []pane.Line { return drawPane(in) }
func (kind) Library() fs.FS                 { return library }

// maxKeptEvents is the most values of one callBlock a host keeps room
// for between calls.
const maxKeptEvents = 256

// callBlock holds one type of a call's records (or their numbers) in
// blocks, so that they are not allocated one by one: the records of the
// run's most frequent types were most of what the adapter allocated. The
// engine serialises and judges a call's records before the host's next
// call and keeps none of them past that (engine.Sink), so every call
// starts over in the same block (reset).
type callBlock[T any] struct{ s []T }

// reset starts a call: the last call's values were read before it.
func (b *callBlock[T]) reset() {
	if cap(b.s) > maxKeptEvents {
		b.s = nil
	}
	b.s = b.s[:0]
}

// room makes room for n more values.
func (b *callBlock[T]) room(n int) {
	if cap(b.s)-len(b.s) < n {
		// A new block, never a grown one: the values already handed out
		// point into the old block, which the engine has not read yet.
		b.s = make([]T, 0, max(16, 2*cap(b.s), n))
	}
}

// take returns n zero values of the block, their capacity n.
func (b *callBlock[T]) take(n int) []T {
	b.room(n)
	k := len(b.s)
	b.s = b.s[:k+n]
	v := b.s[k : k+n : k+n]
	clear(v)
	return v
}

// add returns a place in the block holding v (written once, not cleared
// first as take's are).
func (b *callBlock[T]) add(v T) *T {
	b.room(1)
	b.s = append(b.s, v)
	return &b.s[len(b.s)-1]
}

// Timer tokens: the top byte says what the timer is for.
const (
	tokClient = uint64(1) << 56 // the client's next put is due
	tokDisk   = uint64(2) << 56 // the durable write with this sequence number completed
	// tokRequest: the clients of kind_config.clients have something due
	// (clients.go); the low bits are the arming's generation.
	tokRequest = uint64(3) << 56
	tokMask    = uint64(0xff) << 56
)

// host is one raft peer.
type host struct {
	id    string
	self  uint64   // raft id: position in peers + 1
	peers []string // every declared peer, sorted; shared, never written
	cfg   *config
	// elect serves etcd's election draws (entropy.go); elect0 is it as
	// New made it, for a clone to replay from.
	elect, elect0 *rng.Stream

	in   inputLog // every call since New, for clones (replay.go)
	lazy bool     // a clone not rebuilt yet

	d    *disk // survives a restart with preserve_state
	node *etcd.RawNode

	// What the node was at the last look (observe), to record changes.
	role etcd.StateType
	lead uint64
	term uint64
	hard hardState // the last durable term and vote recorded
	// The role and leader as of the last Ready raft handed over (its
	// prevSoftSt), and whether a look at the node waits for the next
	// Ready (observeSoon).
	readyRole  etcd.StateType
	readyLead  uint64
	unobserved bool

	started   bool
	startedAt int64
	startNote *nodeStart // recorded at the life's first call
	campaign  bool       // campaign_at_ns still to come in this life
	dead      string     // raft panicked: the text; the host does nothing more until a restart
	// unsaid holds the raft_panic records of panics while a life began:
	// Started returns nothing, so they and the halt wait for the next call.
	unsaid []*panicked

	// The durable write in flight on a slow disk, and what its wait
	// blocked.
	write       *pendingWrite
	writes      uint64
	ticksMissed int
	snapTo      []bool // a MsgSnap was sent to peer i and not reported yet
	// open[i]: this life's stream to peer i is connected (transport
	// "stream"): the next message goes on it without a handshake.
	open []bool

	// The client: the next timeline proposal, the next load put, and the
	// time its timer is armed for (-1: none).
	nextProp  int
	loadSeq   int64
	timerAt   int64
	reqs      uint64 // requests issued, numbering them "<id>#<n>"
	msgs      uint64 // messages sent, numbering them "<id>#<n>"
	replaying bool   // rebuilding a clone: record and send nothing

	// The clients of kind_config.clients (clients.go): each client's
	// operation, the ReadIndex round in flight, the request ids issued
	// (never reset, so unique across lives), the time and generation of
	// their armed timer, and salt, drawn once from the host's client
	// substream, which every operation's choices derive from.
	cls     []client
	round   *readRound
	readIDs uint64
	reqAt   int64
	reqGen  uint64
	salt    uint64
	now     int64 // the call's time, for answers given deep inside it

	acts []hosts.Action
	// This call's records of the most frequent types, and the numbers
	// of its log_append records.
	msgEvents callBlock[msgEvent]
	applies   callBlock[apply]
	appends   callBlock[logAppend]
	proposals callBlock[proposalEv]
	nums      callBlock[uint64]
}

// pendingWrite is a Ready whose fsync has not completed.
type pendingWrite struct {
	rd      etcd.Ready
	sent    bool // its messages left before the write (a leader's do)
	fsyncNs int64
}

func newHost(id string, config map[string]any, _ string, peers []string, r *rng.Stream) hosts.Host {
	cfg, errs := parse(config, peers)
	if len(errs) > 0 {
		panic(fmt.Sprintf("rafthost: %s: config the loader accepted does not parse: %v", id, errs))
	}
	if bug, ok := testBugs[id]; ok {
		c := *cfg
		c.testBug = bug
		cfg = &c
	}
	install()
	elect := r.Fork("election")
	h := &host{id: id, peers: peers, cfg: cfg, elect: elect, elect0: elect.Clone(), timerAt: -1, reqAt: -1,
		salt: r.Fork("client").Uint64()}
	h.self = uint64(slices.Index(peers, id)) + 1
	h.snapTo = make([]bool, len(peers))
	h.open = make([]bool, len(peers))
	return h
}

func (h *host) ID() string   { return h.id }
func (h *host) Kind() string { return Tag }

// peer is the declared id of raft id r ("" for none or an unknown id).
func (h *host) peer(r uint64) string {
	if r == 0 || r > uint64(len(h.peers)) {
		return ""
	}
	return h.peers[r-1]
}

func (h *host) Tick(now int64) []hosts.Action {
	return h.call(input{op: opTick, now: now})
}

func (h *host) Recv(m hosts.Message, now int64) []hosts.Action {
	switch m := m.(type) {
	case *hosts.Delivery:
		// The inbound is the engine's to reuse (codec.DecodeInto): its
		// message and bytes are taken, never the inbound.
		in := m.Payload.(*inbound)
		from, _ := slices.BinarySearch(h.peers, m.From)
		return h.call(input{op: opDeliver, now: now, peer: from, id: m.ID, wire: in.wire, msg: in.msg})
	case *hosts.TimerFired:
		return h.call(input{op: opTimer, now: now, id: m.Token})
	case *hosts.SendFailed:
		to, _ := slices.BinarySearch(h.peers, m.To)
		in := input{op: opFailed, now: now, peer: to}
		if m.Reason == "buffer_full" {
			in.id = failKeepsStream
		}
		return h.call(in)
	}
	panic(fmt.Sprintf("rafthost: %s: unknown message %T", h.id, m))
}

// Started is hosts.Restarter: a life begins (resumed false), or the
// process restarts over the same disk (resumed true).
func (h *host) Started(now int64, resumed bool) {
	h.call(input{op: opStart, now: now, resumed: resumed})
	h.acts = h.acts[:0] // it records nothing itself: node_start waits for the first call
}

// call logs one input and runs it.
func (h *host) call(in input) []hosts.Action {
	h.rebuild()
	h.in.add(in)
	h.acts = h.acts[:0]
	h.msgEvents.reset()
	h.applies.reset()
	h.appends.reset()
	h.proposals.reset()
	h.nums.reset()
	h.now = in.now
	h.run(in)
	h.stepCheck()
	return h.acts
}

// run handles one input; a panic inside it (etcd raft's, on an invariant
// it found broken, or the adapter's) is recorded and stops the host, as
// a crashed process would stop, until a restart starts it again: the run
// goes on.
func (h *host) run(in input) {
	if in.op != opStart && len(h.unsaid) > 0 {
		h.sayUnsaid()
	}
	if h.dead != "" && in.op != opStart { // a restart starts afresh, and may panic again
		return
	}
	defer func() {
		if r := recover(); r != nil {
			h.stepCheck() // a refused election draw is the run's failure, not the member's panic
			h.died(in, r)
		}
	}()
	if in.op != opStart && !h.started {
		// A host driven without hosts.Restarter (a test calling New and
		// Tick) starts at its first call.
		h.start(in.now, false)
	}
	if h.startNote != nil && in.op != opStart {
		h.record(h.startNote)
		h.startNote = nil
	}
	switch in.op {
	case opStart:
		h.start(in.now, in.resumed)
	case opTick:
		h.tick(in.now)
	case opDeliver:
		h.deliver(in)
	case opTimer:
		h.timer(in.now, in.id)
	case opFailed:
		h.failed(in.peer, in.id == failKeepsStream)
	}
	if in.op != opStart { // Started's actions go nowhere: its work waits for the first call
		h.observeSoon()
		h.drain(in.now)
		h.armClient(in.now)
		h.armRequests(in.now)
	}
}

// died records a panic and halts the host: no more ticks or deliveries.
func (h *host) died(in input, r any) {
	if h.unobserved {
		// The look observeSoon deferred, which the old order made before
		// the HasReady or Ready that panicked: neither changes the role
		// or the leader, so this one sees what that one would have.
		h.unobserved = false
		h.observe()
	}
	h.dead = fmt.Sprint(r)
	if h.dead == "" {
		h.dead = "panic"
	}
	ev := &panicked{text: h.dead, during: in.describe(h)}
	if in.op == opStart {
		// Started's actions go nowhere: the record and the halt wait for
		// the next call (sayUnsaid).
		h.unsaid = append(h.unsaid, ev)
		return
	}
	h.record(ev)
	if !h.replaying {
		h.acts = append(h.acts, hosts.HaltAction())
	}
}

// sayUnsaid records the panics of a start, at the first call after it,
// and halts the host if it is still dead.
func (h *host) sayUnsaid() {
	for _, ev := range h.unsaid {
		h.record(ev)
	}
	h.unsaid = nil
	if h.dead != "" && !h.replaying {
		h.acts = append(h.acts, hosts.HaltAction())
	}
}

// start begins a life over the host's disk: a fresh one for a new life,
// the same one after a restart (resumed), when everything the process
// held in memory is gone: the node's role, its leader, its in-flight
// write, its client's place, and a panic that stopped it.
func (h *host) start(now int64, resumed bool) {
	h.dead = ""
	cause := diskEmpty
	if resumed && h.d != nil {
		cause = diskRecovered
		if h.cfg.testBug == testBugLoseTail {
			hs, _, _ := h.d.ms.InitialState()
			h.d.dropAbove(hs.GetCommit())
		}
	} else {
		voters := make([]uint64, len(h.peers))
		for i := range voters {
			voters[i] = uint64(i) + 1
		}
		h.d = newDisk(voters)
	}
	h.started, h.startedAt = true, now
	h.write, h.ticksMissed = nil, 0
	clear(h.snapTo)
	clear(h.open) // a new process holds no connection
	h.timerAt = -1
	h.campaign = h.cfg.campaignAt >= now
	h.nextProp, _ = slices.BinarySearchFunc(h.cfg.proposals, now, func(p proposal, t int64) int { return cmp.Compare(p.at, t) })
	h.loadSeq = h.cfg.load.firstAt(now)
	h.startClients(now)
	h.node = nil
	h.newNode()
	st := h.node.BasicStatus()
	h.role, h.lead, h.term = st.RaftState, st.Lead, st.GetTerm()
	h.readyRole, h.readyLead, h.unobserved = h.role, h.lead, false // a new RawNode's prevSoftSt
	h.hard = hardState{term: st.GetTerm(), vote: h.peer(st.GetVote()), commit: st.GetCommit()}
	h.startNote = &nodeStart{disk: cause, term: st.GetTerm(), vote: h.peer(st.GetVote()), commit: st.GetCommit(), applied: h.d.applied,
		last: h.d.last(), lastChain: h.d.chainAt(h.d.last()), voters: len(h.d.conf.GetVoters()), state: h.d.state}
}

// newNode builds the RawNode over the disk, with etcd's configuration.
func (h *host) newNode() {
	c := &etcd.Config{
		ID:                        h.self,
		ElectionTick:              h.cfg.electionTicks,
		HeartbeatTick:             h.cfg.heartbeatTicks,
		Storage:                   h.d.ms,
		Applied:                   h.d.applied,
		MaxSizePerMsg:             h.cfg.maxSizePerMsg,
		MaxInflightMsgs:           h.cfg.maxInflightMsgs,
		MaxUncommittedEntriesSize: h.cfg.maxUncommitted,
		MaxCommittedSizePerReady:  h.cfg.maxSizePerMsg, // etcd server sets it so
		CheckQuorum:               h.cfg.checkQuorum,
		PreVote:                   h.cfg.preVote,
		Logger:                    logger{},
	}
	if h.cfg.leaseReads {
		c.ReadOnlyOption = etcd.ReadOnlyLeaseBased
	}
	if h.cfg.testBug == testBugUnlockedDraw {
		var err error
		h.node, err = etcd.NewRawNode(c) // planted.go: the election draw outside host.locked
		if err != nil {
			panic(err)
		}
		return
	}
	if err := h.locked(rawNew, c); err != nil {
		panic(err)
	}
}

// The raft calls host.locked makes, and the argument each takes.
const (
	rawNew         = iota // *etcd.Config
	rawTick               // nil
	rawStep               // *pb.Message
	rawPropose            // []byte
	rawAdvance            // nil
	rawCampaign           // nil
	rawConf               // pb.ConfChangeI
	rawUnreachable        // uint64: the peer's raft id
	rawSnapFinish         // uint64
	rawSnapFailure        // uint64
	rawReadIndex          // []byte: the request id
)

// locked makes one call into etcd's raft while holding the lock that
// lets the installed crypto/rand.Reader serve this host's election draws
// (entropy.go). Every call that can reach resetRandomizedElectionTimeout
// goes through here; entropy.go finds this function by name on the
// reading goroutine's stack.
//
//go:noinline
func (h *host) locked(op int, arg any) (err error) {
	enter(h)
	defer leave()
	switch op {
	case rawNew:
		h.node, err = etcd.NewRawNode(arg.(*etcd.Config))
	case rawTick:
		h.node.Tick()
	case rawStep:
		err = h.node.Step(arg.(*pb.Message))
	case rawPropose:
		err = h.node.Propose(arg.([]byte))
	case rawAdvance:
		h.node.Advance(etcd.Ready{})
	case rawCampaign:
		err = h.node.Campaign()
	case rawConf:
		h.node.ApplyConfChange(arg.(pb.ConfChangeI))
	case rawUnreachable:
		h.node.ReportUnreachable(arg.(uint64))
	case rawSnapFinish:
		h.node.ReportSnapshot(arg.(uint64), etcd.SnapshotFinish)
	case rawSnapFailure:
		h.node.ReportSnapshot(arg.(uint64), etcd.SnapshotFailure)
	case rawReadIndex:
		h.node.ReadIndex(arg.([]byte))
	}
	return err
}

func (h *host) tick(now int64) {
	if h.write != nil {
		// etcd's raftNode loop is inside the save: its ticker's ticks
		// wait, and all but one are lost.
		h.ticksMissed++
		return
	}
	h.reportSnapshots()
	_ = h.locked(rawTick, nil)
	if h.campaign && now >= h.cfg.campaignAt {
		h.campaign = false
		_ = h.locked(rawCampaign, nil)
	}
}

// reportSnapshots tells raft that the snapshots sent since the last tick
// arrived: the network would have said by now if one had not (a
// SendFailed is queued at the instant of the send).
func (h *host) reportSnapshots() {
	for i, pending := range h.snapTo {
		if pending {
			h.snapTo[i] = false
			_ = h.locked(rawSnapFinish, uint64(i)+1)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func (h *host) deliver(in input) {
	m := in.msg
	if m == nil { // replaying: raft may have changed the first decode
		var err error
		if m, err = decode(in.wire); err != nil {
			panic("rafthost: replayed delivery does not decode: " + err.Error())
		}
	}
	h.noteMessage(tReceived, h.peers[in.peer], m, in.id, len(in.wire))
	if m.GetFrom() != uint64(in.peer)+1 {
		// A sender naming another member is a forged or corrupted
		// message; raft would believe it.
		return
	}
	t := m.GetType()
	if h.cfg.bug == BugVoteTwice && (t == pb.MsgVote || t == pb.MsgPreVote) {
		h.grantAnyway(m)
		return
	}
	err := h.locked(rawStep, m)
	if t == pb.MsgProp && errors.Is(err, etcd.ErrProposalDropped) {
		for _, e := range m.GetEntries() {
			req, _, _, _ := decodeCommand(e.GetData())
			h.record(&dropped{req: req, reason: h.dropReason()})
		}
	}
}

// dropReason says why raft dropped a proposal at this node.
func (h *host) dropReason() string {
	switch {
	case h.lead == 0:
		return "no_leader"
	case h.role == etcd.StateLeader:
		return "leader_refused" // a transfer in progress, or the uncommitted limit
	}
	return "not_forwarded"
}

// grantAnyway is the vote_twice bug: a vote request answered with a
// grant, raft never asked.
func (h *host) grantAnyway(m *pb.Message) {
	resp := pb.MsgVoteResp
	if m.GetType() == pb.MsgPreVote {
		resp = pb.MsgPreVoteResp
	}
	h.send(pb.NewVoteResp(resp, h.self, m.GetFrom(), m.GetTerm()))
}

func (h *host) timer(now int64, token uint64) {
	switch token & tokMask {
	case tokClient:
		h.timerAt = -1
		h.issue(now)
	case tokRequest:
		h.requestTimer(now, token)
	case tokDisk:
		if w := h.write; w != nil && token&^tokMask == h.writes {
			h.write = nil
			h.finish(w.rd, w.sent, w.fsyncNs)
			if h.ticksMissed > 0 {
				h.ticksMissed = 0
				h.reportSnapshots()
				_ = h.locked(rawTick, nil)
			}
		}
	}
}

// failKeepsStream, as a failed send's input id (its reason
// "buffer_full", docs/events.md), says the connection
// outlived the refusal: the socket's buffer was full, and the message
// alone was dropped, as rafthttp drops a message its full stream buffer
// cannot take without closing the stream.
const failKeepsStream = 1

// failed is the network refusing a send to peer to (partitioned, no
// route, lost, too large, the send buffer full): raft hears the peer is
// unreachable, as etcd's rafthttp reports a message its stream or
// pipeline could not send (peer.send, streamWriter.run), and a snapshot
// to it failed (snapshotSender.send). On a stream the connection is lost
// unless keep: the next message dials again.
func (h *host) failed(to int, keep bool) {
	if !keep {
		h.open[to] = false
	}
	if h.snapTo[to] {
		h.snapTo[to] = false
		_ = h.locked(rawSnapFailure, uint64(to)+1)
	}
	_ = h.locked(rawUnreachable, uint64(to)+1)
}

// observe records what the last raft call changed of the node's role,
// leader and term, at the call that changed it (a Ready shows only the
// last of several changes).
func (h *host) observe() {
	st := h.node.BasicStatus()
	if st.RaftState != h.role {
		h.record(&roleChange{term: st.GetTerm(), from: roleName(h.role), to: roleName(st.RaftState), lead: h.peer(st.Lead)})
	}
	if st.Lead != h.lead {
		h.record(&leaderChange{term: st.GetTerm(), lead: h.peer(st.Lead), prev: h.peer(h.lead)})
		h.leaderChanged(h.now)
	}
	h.role, h.lead, h.term = st.RaftState, st.Lead, st.GetTerm()
}

// observeSoon is observe, made at the next Ready when that sees the
// same: BasicStatus allocates a HardState each call (etcd's v3.7), and a
// look after every call and every Ready was 4 % of a run. raft
// hands a Ready's SoftState over when the role or leader differ from
// the last Ready's, and HasReady is true then; so when the host's view
// is that last Ready's, a change shows as the next Ready's SoftState,
// and no Ready means no change. Nothing is recorded between here and
// that Ready (drain), so the records and their order are observe's.
// Otherwise (the view differs from the last Ready's, or a slow write
// holds the Readys back) it looks now.
func (h *host) observeSoon() {
	if observeEagerly || h.write != nil || h.role != h.readyRole || h.lead != h.readyLead {
		h.observe()
		return
	}
	h.unobserved = true
}

// observeEagerly makes observeSoon look every time, as the host did
// before it: a test holds the two to the same records.
var observeEagerly = false

// roleName is a raft state as records write it.
func roleName(s etcd.StateType) string {
	switch s {
	case etcd.StateFollower:
		return "follower"
	case etcd.StateCandidate:
		return "candidate"
	case etcd.StateLeader:
		return "leader"
	case etcd.StatePreCandidate:
		return "pre_candidate"
	}
	return "unknown"
}

// drain handles Readys until raft has none, or one waits on a slow
// fsync. It follows etcd's raftNode loop (server/etcdserver/raft.go): a
// leader sends its messages before saving (raft thesis §10.2.1), a
// follower after; entries and the HardState are saved, committed
// entries applied, then Advance.
func (h *host) drain(now int64) {
	for h.write == nil && h.node.HasReady() {
		rd := h.node.Ready()
		if ss := rd.SoftState; ss != nil {
			h.readyRole, h.readyLead = ss.RaftState, ss.Lead
			if h.unobserved {
				h.unobserved = false
				h.observe()
			}
		}
		h.unobserved = false
		h.readStates(rd.ReadStates, now)
		leader := h.role == etcd.StateLeader || h.cfg.bug == BugAckBeforeFsync
		if leader {
			h.sendAll(rd.Messages)
		}
		durable := len(rd.Entries) > 0 || rd.MustSync || !etcd.IsEmptySnap(rd.Snapshot)
		if d := h.cfg.fsyncAt(now); durable && d > 0 {
			h.writes++
			h.write = &pendingWrite{rd: rd, sent: leader, fsyncNs: d}
			h.arm(now+d, tokDisk|h.writes)
			return
		}
		h.finish(rd, leader, 0)
		h.observeSoon()
	}
	h.unobserved = false // no Ready: the role and leader are the last Ready's, which the host saw
}

// finish completes a Ready once its write is durable.
func (h *host) finish(rd etcd.Ready, sent bool, fsyncNs int64) {
	h.persist(rd)
	if !sent {
		h.sendAll(rd.Messages)
	}
	h.applyAll(rd.CommittedEntries)
	h.serveReads(h.now)
	_ = h.locked(rawAdvance, nil)
	if fsyncNs > 0 {
		h.record(&diskWrite{entries: len(rd.Entries), hardState: rd.HardState != nil, fsyncNs: fsyncNs, ticksMissed: h.ticksMissed})
	}
}

// persist writes a Ready's snapshot, entries and HardState to the disk.
func (h *host) persist(rd etcd.Ready) {
	if !etcd.IsEmptySnap(rd.Snapshot) {
		if err := h.d.install(rd.Snapshot); err != nil {
			panic("rafthost: installing a snapshot: " + err.Error())
		}
		md := rd.Snapshot.GetMetadata()
		h.record(&snapInstalled{index: md.GetIndex(), term: md.GetTerm(), chain: h.d.chainAt(md.GetIndex()), from: h.peer(h.lead)})
	}
	if len(rd.Entries) > 0 {
		ents := rd.Entries
		if h.cfg.bug == BugCorruptEntry {
			ents = corrupted(ents)
		}
		ents, truncated := h.d.append(ents)
		if len(ents) > 0 {
			ev := h.appends.add(logAppend{first: ents[0].GetIndex(), last: ents[len(ents)-1].GetIndex(), truncated: truncated})
			if !h.replaying {
				ev.terms, ev.chains = h.nums.take(len(ents)), h.nums.take(len(ents))
				for i, e := range ents {
					ev.terms[i], ev.chains[i] = e.GetTerm(), h.d.chainAt(e.GetIndex())
				}
			}
			h.record(ev)
			if h.cfg.bug == BugApplyBeforeCommit {
				h.applyAll(ents)
			}
		}
	}
	if hs := rd.HardState; hs != nil && !etcd.IsEmptyHardState(hs) {
		if err := h.d.ms.SetHardState(hs); err != nil {
			panic("rafthost: hard state: " + err.Error())
		}
		if v := h.peer(hs.GetVote()); hs.GetTerm() != h.hard.term || v != h.hard.vote {
			h.hard = hardState{term: hs.GetTerm(), vote: v, commit: hs.GetCommit()}
			h.record(&hardState{term: hs.GetTerm(), vote: v, commit: hs.GetCommit()})
		}
	}
}

// corrupted is the corrupt_entry bug: copies of ents, each put's last
// byte flipped (raft's own entries are left alone).
func corrupted(ents []*pb.Entry) []*pb.Entry {
	out := make([]*pb.Entry, len(ents))
	for i, e := range ents {
		out[i] = e
		if d := e.GetData(); e.GetType() == pb.EntryNormal && len(d) > 0 {
			c := pb.CloneEntry(e)
			c.Data[len(c.Data)-1] ^= 1
			out[i] = c
		}
	}
	return out
}

// applyAll applies entries to the state machine, skipping what it
// already applied (a restart's replay, or the planted bug's early
// apply), and takes a snapshot every snapshot_entries.
func (h *host) applyAll(ents []*pb.Entry) {
	from := h.d.applied
	if h.cfg.testBug == testBugReverseApply && len(ents) > 1 {
		ents = slices.Clone(ents)
		slices.Reverse(ents)
	}
	for _, e := range ents {
		i := e.GetIndex()
		if i <= from || h.cfg.testBug == testBugStopApplying && i > stopApplyingAt {
			continue
		}
		ev := h.applies.add(apply{index: i, term: e.GetTerm(), chain: h.d.chainAt(i), cmd: commandDigest(e)})
		switch e.GetType() {
		case pb.EntryNormal:
			if len(e.GetData()) == 0 {
				ev.op = opNoop
				break
			}
			ev.op = opPut
			var ok bool
			if ev.req, ev.key, ev.value, ok = decodeCommand(e.GetData()); !ok {
				panic(fmt.Sprintf("rafthost: entry %d is not a put", i))
			}
			h.d.put(ev.key, ev.value)
		default:
			// No scenario proposes a configuration change; applying one is
			// still what etcd does with a committed one.
			ev.op = opConf
			if cc, err := confChange(e); err == nil {
				_ = h.locked(rawConf, cc)
			}
		}
		h.d.applied = max(h.d.applied, i)
		ev.state = h.d.state
		h.record(ev)
		if ev.op == opPut && h.cls != nil {
			h.putApplied(ev.req, h.now)
		}
	}
	if h.d.applied-h.d.base >= h.cfg.snapshotEntries {
		term, compacted := h.d.snapshot(h.cfg.catchUpEntries)
		h.record(&snapTaken{index: h.d.applied, term: term, compacted: compacted})
	}
}

// sendAll sends a Ready's messages.
func (h *host) sendAll(msgs []*pb.Message) {
	for _, m := range msgs {
		h.send(m)
	}
}

// send records a message and hands it to the network.
func (h *host) send(m *pb.Message) {
	to := m.GetTo()
	if to == 0 || to > uint64(len(h.peers)) || to == h.self {
		panic(fmt.Sprintf("rafthost: %s: raft sent %s to %d", h.id, m.GetType(), to))
	}
	h.msgs++
	t := m.GetType()
	if t == pb.MsgSnap {
		h.snapTo[to-1] = true
	}
	dial := h.cfg.stream && !h.open[to-1]
	if h.cfg.stream {
		h.open[to-1] = true
	}
	if h.replaying {
		return
	}
	if (t == pb.MsgVoteResp || t == pb.MsgPreVoteResp) && !m.GetReject() {
		h.record(&vote{term: m.GetTerm(), candidate: h.peer(to), pre: t == pb.MsgPreVoteResp})
	}
	h.noteMessage(tSent, h.peer(to), m, h.msgs, pb.Size(m))
	h.acts = append(h.acts, h.sendAction(h.peer(to), m, dial))
}

// sendAction is how a message leaves (docs/raft.md, "The transport"): as a
// datagram, or on the stream to its peer, dialling it first when this
// life holds none (the handshake's round trip). A message on an open
// stream is the network's reliable send without a handshake, the one
// hosts.ReplyReliable asks for: the network keeps no connections, only
// the order and timing of what a stream carries.
func (h *host) sendAction(to string, m *pb.Message, dial bool) hosts.Action {
	switch {
	case !h.cfg.stream:
		return hosts.SendID(to, m, h.msgs)
	case dial:
		return hosts.SendReliable(to, m, h.msgs)
	}
	return hosts.ReplyReliable(to, m, h.msgs)
}

// noteMessage records message_sent or message_received.
func (h *host) noteMessage(typ, peer string, m *pb.Message, id uint64, bytes int) {
	if h.replaying {
		return
	}
	ev := h.msgEvents.add(msgEvent{typ: typ, peer: peer, message: pb.TypeName(m.GetType()), sender: h.id, id: id, bytes: bytes,
		term: m.GetTerm(), index: m.GetIndex(), logTerm: m.GetLogTerm(), commit: m.GetCommit(),
		entries: len(m.GetEntries()), reject: m.GetReject()})
	if typ == tReceived {
		ev.sender = peer
	}
	h.record(ev)
}

// record appends an event action (nothing while replaying).
func (h *host) record(ev hosts.Event) {
	if h.replaying {
		return
	}
	h.acts = append(h.acts, hosts.Record(ev))
}

// arm schedules a timer.
func (h *host) arm(at int64, token uint64) {
	if h.replaying {
		return
	}
	h.acts = append(h.acts, hosts.Timer(at, token))
}

// Snapshot is the host's state as the bundle's snapshots and the
// stepper's raft pane show it (snapshot.go).
func (h *host) Snapshot() []byte {
	h.rebuild()
	return h.appendSnapshot(nil)
}

// Clone is a host that rebuilds this one's state by replaying its inputs
// when it is first used (replay.go).
func (h *host) Clone() hosts.Host {
	return h.lazyClone()
}
