package rafthost

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/hosts/kindcfg"
)

// Planted bugs (kind_config.bug): each breaks one guarantee an oracle
// guards, so the oracle's planted-fault test shows it catches it
// (docs/raft.md, "Assertions"). They live in the adapter, never in etcd's
// code: the default, "", is etcd raft driven correctly.
const (
	BugNone = ""
	// BugApplyBeforeCommit applies entries to the state machine as soon
	// as they are written to the log, before raft says they are
	// committed: an entry a new leader later overwrites has been applied
	// (state_machine_safety).
	BugApplyBeforeCommit = "apply_before_commit"
	// BugVoteTwice answers every vote and pre-vote request with a grant,
	// without asking raft, so the host can vote for two candidates in one
	// term (election_safety).
	BugVoteTwice = "vote_twice"
	// BugCorruptEntry writes each put to the disk with its last byte
	// flipped — a storage layer that writes other bytes than it was
	// handed — so the host's log differs from the others' at an index
	// and term they share (log_matching).
	BugCorruptEntry = "corrupt_entry"
	// BugAckBeforeFsync sends a follower's acknowledgements before its
	// write is durable, as a leader may send its appends: a crash in the
	// fsync loses entries the leader counted as stored, and a member
	// without a committed entry can win an election
	// (leader_completeness).
	BugAckBeforeFsync = "ack_before_fsync"
	// BugStaleRead answers its clients' reads from the member's own
	// store at once, without raft's ReadIndex: a member cut off from the
	// cluster goes on serving what it last applied while the majority
	// commits newer puts (linearizable, alone).
	BugStaleRead = "stale_read"
)

// Bugs lists every planted bug.
var Bugs = []string{BugApplyBeforeCommit, BugVoteTwice, BugCorruptEntry, BugAckBeforeFsync, BugStaleRead}

// The defaults are etcd server's (server/etcdserver/raft.go and
// embed/config.go, v3.6), not the raft library's zero values: the kind
// exists to run what production runs.
const (
	defaultElectionTicks   = 10      // --election-timeout 1000 ms over a 100 ms tick
	defaultHeartbeatTicks  = 1       // --heartbeat-interval 100 ms
	defaultMaxSizePerMsg   = 1 << 20 // maxSizePerMsg
	defaultMaxInflightMsgs = 4096 / 8
	defaultSnapshotEntries = 10_000 // --snapshot-count
	defaultCatchUpEntries  = 5_000  // SnapshotCatchUpEntries
	// defaultMaxUncommitted bounds a leader that cannot commit (etcd
	// leaves it unlimited): every accepted scenario runs in bounded
	// memory, and 64 MiB of uncommitted proposals is far past any
	// scenario's interest.
	defaultMaxUncommitted = 64 << 20

	// maxLogBytes bounds what a member's disk (a MemoryStorage) can hold
	// between snapshots: snapshot_entries + catch_up_entries entries, each
	// a put of the largest key and value the config issues and
	// putOverhead bytes more (its request id, separators, the entry's
	// own fields).
	maxLogBytes = 1 << 30
	putOverhead = 64
	// maxMembersBytes bounds the same, summed over a scenario's members,
	// with each member's uncommitted tail: one run holds every member in
	// one process, so five members each within maxLogBytes could still
	// need five times it (docs/raft.md, "Memory"). 4 GiB still admits
	// three members with etcd's defaults and the largest value.
	maxMembersBytes = 4 << 30

	maxTime       = int64(1) << 50
	maxValueBytes = 1 << 16
	maxKeys       = 1 << 20
	maxTicks      = 1 << 20
)

// keys are the accepted kind_config keys.
var keys = []string{
	"election_ticks", "heartbeat_ticks", "pre_vote", "check_quorum",
	"max_size_per_msg_bytes", "max_inflight_msgs", "max_uncommitted_entries_bytes",
	"snapshot_entries", "catch_up_entries",
	"fsync_ns", "slow_disk", "campaign_at_ns",
	"proposals", "load", "bug", "transport", "read_only", "clients",
}

// Read-only options (kind_config.read_only): raft's ReadOnlyOption, how
// the leader confirms a ReadIndex.
const (
	// ReadOnlySafe confirms each ReadIndex with a round of heartbeats
	// a quorum acknowledges (etcd's choice).
	ReadOnlySafe = "safe"
	// ReadOnlyLeaseBased trusts the leader's lease instead, which raft
	// allows only with CheckQuorum.
	ReadOnlyLeaseBased = "lease_based"
)

// Read retry policies (kind_config.clients.retry): the request id a
// ReadIndex retried after read_retry_ns carries (docs/raft.md, "Clients").
const (
	// RetryFresh retries with a new id, as etcd's server does since
	// etcd-io/etcd#21399.
	RetryFresh = "fresh"
	// RetryReuse retries with the same id, as etcd's server did before
	// it: an answer to the first attempt is taken for the retry's.
	RetryReuse = "reuse"
)

// Client defaults: etcd's (server/etcdserver/v3_server.go: a ReadIndex
// unanswered for readIndexRetryTime is sent again; clientv3's requests
// time out with the server's request timeout).
const (
	defaultReadRetry     = 500_000_000
	defaultClientTimeout = 5_000_000_000
	maxClients           = 64
)

// Transports (kind_config.transport): how raft messages leave a member
// (docs/raft.md, "The transport").
const (
	// TransportStream is etcd's rafthttp: a reliable, ordered stream per
	// pair of members, lost on a partition or a restart and dialled again
	// at the next message (the network's reliable path).
	TransportStream = "stream"
	// TransportDatagram sends each message as one datagram: lossy, and a
	// MsgApp or MsgSnap over 65 507 bytes is refused as too_large.
	TransportDatagram = "datagram"
)

// config is one peer's kind_config, read once and never written: clones
// and lives share it.
type config struct {
	electionTicks, heartbeatTicks int
	preVote, checkQuorum          bool
	maxSizePerMsg                 uint64
	maxInflightMsgs               int
	maxUncommitted                uint64
	snapshotEntries               uint64
	catchUpEntries                uint64
	fsyncNs                       int64
	slowDisk                      []slowWindow
	campaignAt                    int64 // -1: never
	proposals                     []proposal
	load                          *load
	bug                           string
	stream                        bool // transport = "stream"
	leaseReads                    bool // read_only = "lease_based"
	clients                       *clients
	testBug                       string // planted.go: set by New from testBugs, never by a scenario
}

// clients are count sequential clients beside the member, each issuing
// an operation every ns after its last one returned, from from until
// until: a put or (readsPercent of them) a linearizable read, on one of
// keys keys shared by every member's clients (docs/raft.md, "Clients").
type clients struct {
	from, until, every int64
	count, keys        int64
	readsPercent       int64
	timeout, readRetry int64
	reuse              bool // retry = "reuse"
}

// slowWindow is a time during which every durable write takes fsyncNs.
type slowWindow struct{ from, until, fsyncNs int64 }

// proposal is one client request on the peer's timeline: put key=value,
// sent at at to member to (the peer itself when to is empty).
type proposal struct {
	at         int64
	key, value string
	to         string
}

// load is a steady stream of puts: one every every ns in [from, until),
// over keys keys, each value valueBytes long, sent to member to.
type load struct {
	from, until, every int64
	keys, valueBytes   int64
	to                 string
}

func validate(m map[string]any, peers []string) []hosts.FieldError {
	_, errs := parse(m, peers)
	return errs
}

// validateMembers bounds what the members can hold together (Kind's
// ValidatePeers): each keeps its own snapshot_entries + catch_up_entries
// entries, but every entry may be any client's put — raft replicates
// each member's puts into every log — and an uncommitted tail as large as
// any member's max_uncommitted_entries_bytes, since a follower holds
// what its leader has not committed.
func validateMembers(members []hosts.PeerConfig, peers []string) []hosts.FieldError {
	cfgs := make([]*config, len(members))
	var put, uncommitted uint64
	for i, m := range members {
		c, errs := parse(m.Config, peers)
		if len(errs) > 0 {
			return nil // Validate has reported them
		}
		cfgs[i] = c
		put = max(put, c.largestPut())
		uncommitted = max(uncommitted, c.maxUncommitted)
	}
	var entries uint64
	for _, c := range cfgs {
		entries += c.snapshotEntries + c.catchUpEntries
	}
	logs := entries * (put + putOverhead)
	tails := uint64(len(members)) * uncommitted
	if logs+tails <= maxMembersBytes {
		return nil
	}
	return []hosts.FieldError{{Field: "kind_config.snapshot_entries",
		Msg: fmt.Sprintf("summed over the %d raft members, snapshot_entries with catch_up_entries (%d entries) of up to %d bytes (the largest put of any member's client and %d), %d bytes, and %d uncommitted tails of up to %d bytes (the largest max_uncommitted_entries_bytes), %d bytes, total %d bytes, over the %d (4 GiB) the members may keep together",
			len(members), entries, put+putOverhead, putOverhead, logs, len(members), uncommitted, tails, logs+tails, uint64(maxMembersBytes))}}
}

// parse reads a kind_config against the declared peers (sorted).
func parse(m map[string]any, peers []string) (*config, []hosts.FieldError) {
	r := &kindcfg.Reader{}
	t := kindcfg.Root(r, m)
	t.Keys(keys...)
	c := &config{
		electionTicks:   int(t.Int("election_ticks", defaultElectionTicks, 1, maxTicks)),
		heartbeatTicks:  int(t.Int("heartbeat_ticks", defaultHeartbeatTicks, 1, maxTicks)),
		preVote:         boolOr(t, "pre_vote", true),
		checkQuorum:     boolOr(t, "check_quorum", true),
		maxSizePerMsg:   uint64(t.Int("max_size_per_msg_bytes", defaultMaxSizePerMsg, 0, 1<<30)),
		maxInflightMsgs: int(t.Int("max_inflight_msgs", defaultMaxInflightMsgs, 1, 1<<16)),
		maxUncommitted:  uint64(t.Int("max_uncommitted_entries_bytes", defaultMaxUncommitted, 1, 1<<30)),
		snapshotEntries: uint64(t.Int("snapshot_entries", defaultSnapshotEntries, 1, 1<<30)),
		catchUpEntries:  uint64(t.Int("catch_up_entries", defaultCatchUpEntries, 0, 1<<30)),
		fsyncNs:         t.Int("fsync_ns", 0, 0, maxTime),
		campaignAt:      t.Int("campaign_at_ns", -1, 0, maxTime),
		bug:             t.OneOf("bug", BugNone, Bugs),
		stream:          t.OneOf("transport", TransportStream, []string{TransportStream, TransportDatagram}) == TransportStream,
		leaseReads:      t.OneOf("read_only", ReadOnlySafe, []string{ReadOnlySafe, ReadOnlyLeaseBased}) == ReadOnlyLeaseBased,
	}
	if c.leaseReads && !c.checkQuorum {
		// raft's Config.validate refuses it: without CheckQuorum a deposed
		// leader's lease would still answer ReadIndex, and no ReadIndex
		// the kind could serve would be linearizable.
		r.Add(t.Path("read_only"), "%q needs check_quorum = true (raft serves no ReadIndex without it)", ReadOnlyLeaseBased)
	}
	if ct, ok := t.Table("clients"); ok {
		c.clients = parseClients(ct)
	}
	if c.electionTicks <= c.heartbeatTicks {
		// etcd raft refuses it too (Config.validate), by panicking.
		r.Add(t.Path("election_ticks"), "must be greater than heartbeat_ticks (%d), got %d", c.heartbeatTicks, c.electionTicks)
	}
	for _, w := range t.Tables("slow_disk") {
		w.Keys("from_ns", "until_ns", "fsync_ns")
		sw := slowWindow{from: w.Int("from_ns", 0, 0, maxTime), until: w.Int("until_ns", maxTime, 0, maxTime), fsyncNs: w.Int("fsync_ns", -1, 0, maxTime)}
		if sw.fsyncNs < 0 {
			r.Add(w.Path("fsync_ns"), "is required")
		}
		if sw.until <= sw.from {
			r.Add(w.Path("until_ns"), "must be after from_ns (%d), got %d", sw.from, sw.until)
		}
		c.slowDisk = append(c.slowDisk, sw)
	}
	for _, p := range t.Tables("proposals") {
		p.Keys("at_ns", "key", "value", "to")
		pr := proposal{at: p.Int("at_ns", -1, 0, maxTime), key: p.Str("key", ""), value: p.Str("value", ""), to: member(p, peers)}
		if pr.at < 0 {
			r.Add(p.Path("at_ns"), "is required")
		}
		switch {
		case pr.key == "":
			r.Add(p.Path("key"), "must be a non-empty string")
		case strings.IndexByte(pr.key, 0) >= 0:
			r.Add(p.Path("key"), "must not contain NUL (a put's entry separates its fields with it)")
		case isClientKey(pr.key):
			// Any member's clients may read it: a put outside their
			// history would make a correct read look wrong.
			r.Add(p.Path("key"), "%q is a clients' key (c0, c1, …): the linearizability check would not know this put", pr.key)
		}
		if len(pr.value) > maxValueBytes {
			r.Add(p.Path("value"), "must be at most %d bytes, got %d", maxValueBytes, len(pr.value))
		}
		c.proposals = append(c.proposals, pr)
	}
	if !slices.IsSortedFunc(c.proposals, func(a, b proposal) int { return cmp.Compare(a.at, b.at) }) {
		r.Add(t.Path("proposals"), "must be in at_ns order")
	}
	if l, ok := t.Table("load"); ok {
		l.Keys("from_ns", "until_ns", "every_ns", "keys", "value_bytes", "to")
		c.load = &load{
			from:       l.Int("from_ns", 0, 0, maxTime),
			until:      l.Int("until_ns", maxTime, 0, maxTime),
			every:      l.Int("every_ns", -1, 1_000, maxTime),
			keys:       l.Int("keys", 16, 1, maxKeys),
			valueBytes: l.Int("value_bytes", 16, 0, maxValueBytes),
			to:         member(l, peers),
		}
		if c.load.every < 0 && !l.Has("every_ns") {
			r.Add(l.Path("every_ns"), "is required")
		}
		if c.load.until <= c.load.from {
			r.Add(l.Path("until_ns"), "must be after from_ns (%d), got %d", c.load.from, c.load.until)
		}
	}
	if n, b := c.snapshotEntries+c.catchUpEntries, c.largestPut()+putOverhead; n*b > maxLogBytes {
		r.Add(t.Path("snapshot_entries"), "with catch_up_entries (%d), %d entries of up to %d bytes (the largest put and %d) can be held between snapshots: %d bytes, over the %d (1 GiB) a member may keep; got %d",
			c.catchUpEntries, n, b, putOverhead, n*b, maxLogBytes, c.snapshotEntries)
	}
	return c, r.Errs
}

// parseClients reads kind_config.clients.
func parseClients(t kindcfg.T) *clients {
	t.Keys("from_ns", "until_ns", "every_ns", "count", "keys", "reads_percent", "timeout_ns", "read_retry_ns", "retry")
	c := &clients{
		from:         t.Int("from_ns", 0, 0, maxTime),
		until:        t.Int("until_ns", maxTime, 0, maxTime),
		every:        t.Int("every_ns", -1, 1_000, maxTime),
		count:        t.Int("count", 1, 1, maxClients),
		keys:         t.Int("keys", 4, 1, maxKeys),
		readsPercent: t.Int("reads_percent", 50, 0, 100),
		timeout:      t.Int("timeout_ns", defaultClientTimeout, 1_000, maxTime),
		readRetry:    t.Int("read_retry_ns", defaultReadRetry, 1_000, maxTime),
		reuse:        t.OneOf("retry", RetryFresh, []string{RetryFresh, RetryReuse}) == RetryReuse,
	}
	if c.every < 0 && !t.Has("every_ns") {
		t.R.Add(t.Path("every_ns"), "is required")
	}
	if c.until <= c.from {
		t.R.Add(t.Path("until_ns"), "must be after from_ns (%d), got %d", c.from, c.until)
	}
	return c
}

// largestPut is the most bytes of key and value one of the client's
// puts carries (a load's keys, "k" and at most 7 digits, are within
// putOverhead).
func (c *config) largestPut() uint64 {
	var b uint64
	for _, p := range c.proposals {
		b = max(b, uint64(len(p.key)+len(p.value)))
	}
	if c.load != nil && c.load.valueBytes > 0 {
		b = max(b, uint64(c.load.valueBytes))
	}
	// A client's put is its key and its request id, within putOverhead.
	return b
}

// member reads the `to` of a proposal or load: a declared peer, "" for
// the peer itself.
func member(t kindcfg.T, peers []string) string {
	to := t.Str("to", "")
	if t.Has("to") {
		if _, found := slices.BinarySearch(peers, to); !found {
			t.R.Add(t.Path("to"), "%s", fmt.Sprintf("%q is not a declared peer", to))
		}
	}
	return to
}

// boolOr reads a boolean, def when absent.
func boolOr(t kindcfg.T, key string, def bool) bool {
	if !t.Has(key) {
		return def
	}
	return t.Bool(key)
}

// fsyncAt is how long a durable write started at now takes.
func (c *config) fsyncAt(now int64) int64 {
	d := c.fsyncNs
	for _, w := range c.slowDisk {
		if now >= w.from && now < w.until {
			d = max(d, w.fsyncNs)
		}
	}
	return d
}
