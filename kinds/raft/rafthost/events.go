package rafthost

import (
	"strconv"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/jsonw"
)

// The record types a raft host writes (docs/raft.md, "Events"). Each is
// a struct whose AppendJSON lists its members, in a fixed order, to the
// one encoder they share (jsonw.Object); Events below holds one
// prototype of each with every member set. The declarations look alike,
// a struct, a Type and a chain a record, and differ in their members.
const (
	tNodeStart     = "node_start"
	tRoleChange    = "role_change"
	tLeaderChange  = "leader_change"
	tHardState     = "hard_state"
	tVote          = "vote"
	tLogAppend     = "log_append"
	tApply         = "apply"
	tProposal      = "proposal"
	tPropDropped   = "proposal_dropped"
	tSnapTaken     = "snapshot_taken"
	tSnapInstalled = "snapshot_installed"
	tSent          = "message_sent"
	tReceived      = "message_received"
	tDiskWrite     = "disk_write"
	tPanic         = "raft_panic"
	tClientInvoke  = "client_invoke"
	tClientReturn  = "client_return"
	tReadIndex     = "read_index"
	tReadState     = "read_state"

	// engineTag is the kind_tag of the engine's records: its mutation
	// records (tMutation, explain.go) are what catches_up_after_heal
	// follows partitions and kills by.
	engineTag = "engine"
)

// eventPrototypes is the kind's hosts.Records: one of each type, every member
// set, so the debugger knows every field a breakpoint may name.
func eventPrototypes() []hosts.Event {
	return []hosts.Event{
		&nodeStart{disk: diskRecovered, term: 1, vote: "a", commit: 1, applied: 1, last: 1},
		&roleChange{term: 1, from: "follower", to: "leader", lead: "a"},
		&leaderChange{term: 1, lead: "a", prev: "b"},
		&hardState{term: 1, vote: "a", commit: 1},
		&vote{term: 1, candidate: "a", pre: true},
		&logAppend{first: 1, last: 1, truncated: true, terms: []uint64{1}, chains: []uint64{1}},
		&apply{index: 1, term: 1, chain: 1, op: opPut, req: "a#1", key: "k", value: "v"},
		&proposalEv{req: "a#1", to: "b", key: "k", bytes: 1},
		&dropped{req: "a#1", reason: "no_leader"},
		&snapTaken{index: 1, term: 1, compacted: 1},
		&snapInstalled{index: 1, term: 1, chain: 1, from: "a"},
		&msgEvent{typ: tSent, peer: "a", message: "MsgApp", sender: "b", id: 1, bytes: 1, term: 1, index: 1, logTerm: 1, commit: 1, entries: 1, reject: true},
		// A receive with no id writes every member a send does.
		&msgEvent{typ: tReceived, peer: "a", message: "MsgApp", bytes: 1, term: 1, index: 1, logTerm: 1, commit: 1, entries: 1, reject: true},
		&diskWrite{entries: 1, hardState: true, fsyncNs: 1, ticksMissed: 1},
		&panicked{text: "x", during: "tick"},
		&clientInvoke{client: "a.c0", req: "a#1", op: clientPut, key: "c0", value: "a#1"},
		&clientReturn{client: "a.c0", req: "a#1", result: resultOK, value: "a#1", reason: "timeout"},
		&readIndexEv{id: 1, reads: 1, retry: true},
		&readStateEv{id: 1, index: 1, taken: true},
	}
}

// Disk origins a node_start names.
const (
	diskEmpty     = "empty"     // a fresh disk: the first life, or one after preserve_state = false
	diskRecovered = "recovered" // a restart with preserve_state = true: the log, HardState and state machine survived
)

// Apply ops.
const (
	opPut  = "put"
	opNoop = "noop" // a new leader's empty entry
	opConf = "conf"
)

// nodeStart is a life's start (or a restart's): what the disk held.
type nodeStart struct {
	disk                  string
	term                  uint64
	vote                  string
	commit, applied, last uint64
	// What the disk holds, for the oracles to judge from state: the
	// chain at last, the voters of its configuration, and the digest of
	// its store (state_machine_safety, leader_completeness,
	// catches_up_after_heal).
	lastChain uint64
	voters    int
	state     uint64
}

func (*nodeStart) Type() string { return tNodeStart }
func (e *nodeStart) AppendJSON(b []byte) []byte {
	return jsonw.Open(b, tNodeStart).Str("disk", e.disk).Uint("term", e.term).Str("vote", e.vote).
		Uint("commit", e.commit).Uint("applied", e.applied).Uint("last_index", e.last).
		Hex64("last_chain", e.lastChain).Uint("voters", uint64(e.voters)).Hex64("state", e.state).End()
}

// roleChange is the node's raft state changing (follower, pre_candidate,
// candidate, leader), at the call that changed it.
type roleChange struct {
	term           uint64
	from, to, lead string
}

func (*roleChange) Type() string { return tRoleChange }
func (e *roleChange) AppendJSON(b []byte) []byte {
	return jsonw.Open(b, tRoleChange).Uint("term", e.term).Str("from", e.from).Str("to", e.to).Str("lead", e.lead).End()
}

// leaderChange is the leader the node follows changing ("" for none).
type leaderChange struct {
	term       uint64
	lead, prev string
}

func (*leaderChange) Type() string { return tLeaderChange }
func (e *leaderChange) AppendJSON(b []byte) []byte {
	return jsonw.Open(b, tLeaderChange).Uint("term", e.term).Str("lead", e.lead).Str("prev", e.prev).End()
}

// hardState is a durable write that changed the term or the vote.
type hardState struct {
	term   uint64
	vote   string
	commit uint64
}

// As every record here, a struct, a Type and one jsonw chain, alike in shape
// on purpose (the const block's comment).
func (*hardState) Type() string { return tHardState }
func (e *hardState) AppendJSON(b []byte) []byte {
	return jsonw.Open(b, tHardState).Uint("term", e.term).Str("vote", e.vote).Uint("commit", e.commit).End()
}

// vote is a granted vote (pre true: a pre-vote) the node sends.
type vote struct {
	term      uint64
	candidate string
	pre       bool
}

func (*vote) Type() string { return tVote }
func (e *vote) AppendJSON(b []byte) []byte {
	return jsonw.Open(b, tVote).Uint("term", e.term).Str("candidate", e.candidate).Bool("pre", e.pre).End()
}

// logAppend is entries written to the node's log: [first, last], the
// term and prefix chain of each, and whether they replaced a suffix.
type logAppend struct {
	first, last uint64
	truncated   bool
	terms       []uint64
	chains      []uint64
}

func (*logAppend) Type() string { return tLogAppend }
func (e *logAppend) AppendJSON(b []byte) []byte {
	return jsonw.Open(b, tLogAppend).Uint("first", e.first).Uint("last", e.last).Bool("truncated", e.truncated).
		Uints("terms", e.terms).Hex64s("chains", e.chains).End()
}

// apply is one committed entry applied to the key-value state machine:
// cmd is the digest of the command applied (commandDigest), state that
// of the whole store after it (stateDigest).
type apply struct {
	index, term, chain uint64
	op, req, key       string
	value              string
	cmd, state         uint64
}

func (*apply) Type() string { return tApply }
func (e *apply) AppendJSON(b []byte) []byte {
	return jsonw.Open(b, tApply).Uint("index", e.index).Uint("term", e.term).Hex64("chain", e.chain).
		Str("op", e.op).Str("req", e.req).Str("key", e.key).Str("value", e.value).
		Hex64("cmd", e.cmd).Hex64("state", e.state).End()
}

// proposalEv is a client request the peer's client issued: to the peer
// itself or, over the network, to member to.
type proposalEv struct {
	req, to, key string
	bytes        int
}

func (*proposalEv) Type() string { return tProposal }
func (e *proposalEv) AppendJSON(b []byte) []byte {
	return jsonw.Open(b, tProposal).Str("req", e.req).Str("to", e.to).Str("key", e.key).Uint("bytes", uint64(e.bytes)).End()
}

// dropped is a proposal raft refused at this node (ErrProposalDropped).
type dropped struct{ req, reason string }

func (*dropped) Type() string { return tPropDropped }
func (e *dropped) AppendJSON(b []byte) []byte {
	return jsonw.Open(b, tPropDropped).Str("req", e.req).Str("reason", e.reason).End()
}

// snapTaken is a snapshot of the state machine at index, and the log
// compacted below compacted.
type snapTaken struct{ index, term, compacted uint64 }

func (*snapTaken) Type() string { return tSnapTaken }
func (e *snapTaken) AppendJSON(b []byte) []byte {
	return jsonw.Open(b, tSnapTaken).Uint("index", e.index).Uint("term", e.term).Uint("compacted", e.compacted).End()
}

// snapInstalled is a leader's snapshot installed in place of the log:
// the log now starts after index, whose chain the snapshot carried.
type snapInstalled struct {
	index, term, chain uint64
	from               string
}

func (*snapInstalled) Type() string { return tSnapInstalled }
func (e *snapInstalled) AppendJSON(b []byte) []byte {
	return jsonw.Open(b, tSnapInstalled).Uint("index", e.index).Uint("term", e.term).Hex64("chain", e.chain).Str("from", e.from).End()
}

// msgEvent is message_sent or message_received: a raft message and what
// it carries. A send writes the fields the message has (a heartbeat has
// no index, only a rejection says reject); a receive names the message
// (peer, kind, id, bytes), whose send says the rest, except a receive
// without an id (a transport that did not hand it over), which writes
// it all. The id is "<sender>#<n>", the sender's n-th message.
type msgEvent struct {
	typ, peer, message   string
	sender               string
	id                   uint64
	bytes                int
	term, index, logTerm uint64
	commit               uint64
	entries              int
	reject               bool
}

func (e *msgEvent) Type() string { return e.typ }

// Alike in shape to other kinds' hand-written records (echo's event): the
// members are raft's.
func (e *msgEvent) AppendJSON(b []byte) []byte {
	// The type, the peer ids (scenarios' [A-Za-z0-9_-]) and raftpb's
	// message names have nothing to escape: appended as they are, the
	// run's most frequent record takes a third less time
	// (BenchmarkMsgEvent_AppendJSON; TestMsgEvent_UnescapedIsEscaped).
	b = append(b, `{"type":"`...)
	b = append(b, e.typ...)
	b = append(b, `","peer":"`...)
	b = append(b, e.peer...)
	b = append(b, `","message":"`...)
	b = append(b, e.message...)
	return e.appendRest(append(b, '"'))
}

// appendRest writes the members after message.
func (e *msgEvent) appendRest(b []byte) []byte {
	if e.id != 0 {
		b = append(b, `,"id":"`...)
		b = append(b, e.sender...)
		b = append(b, '#')
		b = strconv.AppendUint(b, e.id, 10)
		b = append(b, '"')
	}
	b = jsonw.AppendUintField(b, "bytes", uint64(e.bytes))
	if e.typ == tReceived && e.id != 0 {
		return append(b, '}')
	}
	b = jsonw.AppendUintField(b, "term", e.term)
	if e.index != 0 || e.logTerm != 0 {
		b = jsonw.AppendUintField(b, "index", e.index)
		b = jsonw.AppendUintField(b, "log_term", e.logTerm)
	}
	if e.commit != 0 {
		b = jsonw.AppendUintField(b, "commit", e.commit)
	}
	if e.entries != 0 {
		b = jsonw.AppendUintField(b, "entries", uint64(e.entries))
	}
	if e.reject {
		b = jsonw.AppendBoolField(b, "reject", true)
	}
	return append(b, '}')
}

// diskWrite is a durable write that took time (fsync_ns > 0): its
// entries, whether it held a HardState, how long it took, and the ticks
// that fell due while it blocked the node's loop (etcd's raftNode does
// not tick during a save; one late tick is delivered after it).
type diskWrite struct {
	entries     int
	hardState   bool
	fsyncNs     int64
	ticksMissed int
}

func (*diskWrite) Type() string { return tDiskWrite }
func (e *diskWrite) AppendJSON(b []byte) []byte {
	return jsonw.Open(b, tDiskWrite).Uint("entries", uint64(e.entries)).Bool("hard_state", e.hardState).
		Uint("fsync_ns", uint64(e.fsyncNs)).Uint("ticks_missed", uint64(e.ticksMissed)).End()
}

// panicked is etcd raft (or the adapter) panicking inside a call: the
// host stops there, and the run goes on without it.
type panicked struct{ text, during string }

func (*panicked) Type() string { return tPanic }
func (e *panicked) AppendJSON(b []byte) []byte {
	return jsonw.Open(b, tPanic).Str("panic", e.text).Str("during", e.during).End()
}

// Client operations and results (docs/raft.md, "Clients").
const (
	clientPut  = "put"
	clientRead = "read"

	resultOK      = "ok"
	resultFail    = "fail"    // it did not happen: raft refused the put, or the read was failed
	resultUnknown = "unknown" // no answer in time: a put may yet be applied
)

// clientInvoke is a client issuing an operation: a put of value (its
// request id) or a read of key.
type clientInvoke struct{ client, req, op, key, value string }

func (*clientInvoke) Type() string { return tClientInvoke }
func (e *clientInvoke) AppendJSON(b []byte) []byte {
	o := jsonw.Open(b, tClientInvoke).Str("client", e.client).Str("req", e.req).Str("op", e.op).Str("key", e.key)
	if e.op == clientPut {
		o = o.Str("value", e.value)
	}
	return o.End()
}

// clientReturn is the answer a client got: ok (a read's value with
// it), fail or unknown, and why for the last two.
type clientReturn struct{ client, req, result, value, reason string }

func (*clientReturn) Type() string { return tClientReturn }
func (e *clientReturn) AppendJSON(b []byte) []byte {
	o := jsonw.Open(b, tClientReturn).Str("client", e.client).Str("req", e.req).Str("result", e.result)
	if e.result == resultOK {
		o = o.Str("value", e.value)
	}
	if e.reason != "" {
		o = o.Str("reason", e.reason)
	}
	return o.End()
}

// readIndexEv is a ReadIndex round sent to raft (retry: sent again
// after read_retry_ns, with the id the retry policy gives).
type readIndexEv struct {
	id    uint64
	reads int
	retry bool
}

func (*readIndexEv) Type() string { return tReadIndex }
func (e *readIndexEv) AppendJSON(b []byte) []byte {
	return jsonw.Open(b, tReadIndex).Uint("id", e.id).Uint("reads", uint64(e.reads)).Bool("retry", e.retry).End()
}

// readStateEv is raft's ReadState for request id: its read index, and
// whether the round in flight took it (an answer for another id is
// ignored, as etcd ignores an out-of-date one).
type readStateEv struct {
	id, index uint64
	taken     bool
}

func (*readStateEv) Type() string { return tReadState }
func (e *readStateEv) AppendJSON(b []byte) []byte {
	return jsonw.Open(b, tReadState).Uint("id", e.id).Uint("index", e.index).Bool("taken", e.taken).End()
}
