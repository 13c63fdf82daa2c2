package swim

import (
	"iter"
	"math"
	"slices"
	"strings"
)

// Node is one member's SWIM state machine. It is not safe for concurrent
// use; a caller drives it from one loop.
//
// NB: the []Effect a method returns is reused by the node's next call;
// consume (or copy) it before calling the node again.
type Node struct {
	self    string
	selfIdx int32
	cfg     Config
	rand    Rand

	started    bool
	joined     bool
	nextJoinAt int64
	// nextPushPullAt is when the next anti-entropy pull is due.
	nextPushPullAt int64

	// members holds every member the node has heard of, in the order it
	// heard of them. Members are never removed: a dead member stays, so
	// that a stale alive cannot resurrect it and a newer one can.
	members []member
	// ids names members[:len(ids)], the members the node started with, in
	// id order; added names the rest, in the order they were learnt, and
	// addedByID lists their positions sorted by id. An id is looked up by
	// a binary search in each (no per-node map to build, clone or scan).
	// A member start's ids is the peers slice New was given, read and
	// never written, so a cluster's nodes share one copy of every name
	// and need no index of their own for it: at 10 000 peers a per-node
	// copy would be 1.6 GB and a per-node index 0.4 GB (docs/BENCHMARKS.md,
	// "Ten thousand peers").
	ids       []string
	added     []string
	addedByID []int32
	// extras holds the members' extra state, member.x being a position
	// plus one. Pointers, so that a *memberExtra stays valid while others
	// are added.
	extras []*memberExtra
	// memo holds, per memoSlot, a member position plus one that lookup
	// found last (0 for none): positions never change, so an entry stays
	// right and at worst misses.
	memo [memoSize]int32
	// accused counts members held suspect or dead, so that send can skip
	// the buddy-system lookup in the common case of none.
	accused int

	// order is the probe order (positions, self excluded), reshuffled at
	// the start of every round; orderPos is the next one to look at.
	order    []int32
	orderPos int
	round    uint64

	nextProbeAt int64
	probe       probe
	seq         uint64
	relays      []relay
	// suspects lists members that may hold a suspicion timer, so Tick can
	// find overdue ones without scanning every member.
	suspects []int32

	health       int
	queue        queue
	suspicionGen uint32

	counters counters
	out      []Effect
	output   Output // when set, effects go here instead of out
	scratch  []int32
	// sent holds the Updates of the messages this call sent, when
	// reuseSent says the caller is done with them by the next call
	// (ReuseSentUpdates).
	sent      []Update
	reuseSent bool

	// viaStream says the message being received came over a reliable
	// stream (ReceiveStream); false between calls.
	viaStream bool
}

// member is one member in a node's view: 12 bytes, its id kept by the
// node (Node.id) and its rarely needed state apart (Node.extras), since a
// cluster of n nodes holds n² of them, nearly all plain alive
// (docs/BENCHMARKS.md, "Ten thousand peers"; TestMemberBytes holds the
// bound). The incarnation is two words rather than a uint64 so that a
// member aligns to 4 bytes, and the state shares a word with x.
type member struct {
	incLo, incHi uint32
	// xs holds the state in its top two bits and, below them, x: what
	// only some members need (an accuser, a suspicion, heard or computed
	// metadata) as Node.extras position plus one, 0 for none of it.
	// Node.extras has at most one entry per member, and members are
	// bounded by MaxMembers (at most 1<<24), so x fits in 30 bits.
	xs uint32
}

const (
	stateShift = 30
	xMask      = 1<<stateShift - 1
)

func (m *member) inc() uint64 { return uint64(m.incHi)<<32 | uint64(m.incLo) }

func (m *member) state() State { return State(m.xs >> stateShift) }

func (m *member) x() int32 { return int32(m.xs & xMask) }

// set gives m state s at incarnation inc.
func (m *member) set(s State, inc uint64) {
	m.incLo, m.incHi = uint32(inc), uint32(inc>>32)
	m.xs = uint32(s)<<stateShift | m.xs&xMask
}

// memberExtra is the part of a member most members never need.
type memberExtra struct {
	// by is the accuser of the current suspect or dead state.
	by   string
	susp *suspicion
	// meta is the member's metadata, from the last alive about it the
	// node accepted, or assumed until it hears one (metaSrc, meta.go).
	// Never modified in place: messages and the queue share it.
	meta    []byte
	metaSrc metaSource
	// listed says the member is in Node.suspects.
	listed bool
	// deadAt is when the member last became dead in this view
	// (DisseminateMemberlist's gossip to the dead reads it).
	deadAt int64
}

// id returns the id of the member at position idx.
func (n *Node) id(idx int32) string {
	if int(idx) < len(n.ids) {
		return n.ids[idx]
	}
	return n.added[int(idx)-len(n.ids)]
}

// extra returns m's extra state, nil if it has none.
func (n *Node) extra(m *member) *memberExtra {
	if m.x() == 0 {
		return nil
	}
	return n.extras[m.x()-1]
}

// ext returns m's extra state, making it on first need.
func (n *Node) ext(m *member) *memberExtra {
	if m.x() == 0 {
		n.extras = append(n.extras, &memberExtra{})
		m.xs |= uint32(len(n.extras))
	}
	return n.extras[m.x()-1]
}

// accuser is the accuser of m's suspect or dead state, if any.
func (n *Node) accuser(m *member) string {
	if x := n.extra(m); x != nil {
		return x.by
	}
	return ""
}

// suspicion is m's running suspicion, if any.
func (n *Node) suspicion(m *member) *suspicion {
	if x := n.extra(m); x != nil {
		return x.susp
	}
	return nil
}

// storedMeta is m's stored metadata (see metaOf for assumed metadata).
func (n *Node) storedMeta(m *member) []byte {
	if x := n.extra(m); x != nil {
		return x.meta
	}
	return nil
}

// metaSource says where m's stored metadata came from.
func (n *Node) metaSource(m *member) metaSource {
	if x := n.extra(m); x != nil {
		return x.metaSrc
	}
	return metaAssumed
}

// probe is the probe in flight, if any.
type probe struct {
	active    bool
	timedOut  bool
	target    int32
	seq       uint64
	sentAt    int64
	timeoutAt int64
	deadline  int64
	// expectedNacks is how many ping_reqs went out; nacks how many
	// intermediaries reported that the target did not answer them.
	expectedNacks, nacks int
}

// relay is a ping this node sends on behalf of a ping_req.
type relay struct {
	seq       uint64
	requester string
	reqSeq    uint64
	target    string
	deadline  int64
}

// New returns a node named self. peers are all declared member ids
// (sorted, self included): a Member start knows them all as Alive at
// incarnation 0; a Joining start knows only cfg.Seeds. Its own metadata is
// DerivedMeta(self, cfg.MetaBytes); until it hears another member's, it
// assumes that member derives its own with the same MetaBytes. cfg must
// have
// passed Validate. Nothing happens until the first call (usually Tick),
// whose effects begin with a state_transition (reason "initial") for every
// member the node knows, itself included. A Member start keeps peers
// (the names of its members, shared by every node given the same slice):
// the caller must not modify it afterwards.
func New(self string, cfg Config, start Start, peers []string, r Rand) *Node {
	initial := peers
	if start == Joining {
		initial = cfg.Seeds
	}
	// The initial members in id order, self included, without duplicates.
	// peers arrive sorted and unique with self among them, so for a Member
	// start they are that list already and are only read; anything else
	// is copied and put in order.
	ids := initial
	if _, found := slices.BinarySearch(initial, self); !found || !strictlyIncreasing(initial) {
		ids = make([]string, 0, len(initial)+1)
		ids = append(ids, initial...)
		if !slices.Contains(initial, self) {
			ids = append(ids, self)
		}
		slices.Sort(ids)
		ids = slices.Compact(ids)
	}
	n := &Node{
		self:    self,
		cfg:     cfg,
		rand:    r,
		members: make([]member, len(ids)),
		ids:     ids,
		order:   make([]int32, 0, len(ids)),
		queue:   newQueue(cfg.Gossip, maxQueuedUpdate(self, cfg)),
	}
	for i, id := range ids {
		idx := int32(i)
		n.members[i].set(Alive, 0)
		if id == self {
			n.selfIdx = idx
			n.members[i].set(Alive, cfg.InitialIncarnation)
			*n.ext(&n.members[i]) = memberExtra{meta: DerivedMeta(self, cfg.MetaBytes), metaSrc: metaHeard}
		} else {
			n.order = append(n.order, idx)
		}
	}
	// The first probe starts a round, which shuffles the order.
	n.orderPos = len(n.order)
	// A Joining node with no seed but itself has nobody to ask: it is the
	// cluster's first member, joined from the start, as a memberlist that
	// is never told to Join still runs push/pull and answers joins. Left
	// joining, it would never push or pull (the reproduction's orch did
	// exactly that all run).
	n.joined = start == Member || (start == Joining && !hasOtherSeed(cfg.Seeds, self))
	return n
}

// hasOtherSeed reports whether seeds name any peer besides self.
func hasOtherSeed(seeds []string, self string) bool {
	for _, s := range seeds {
		if s != self {
			return true
		}
	}
	return false
}

// strictlyIncreasing reports whether ids is sorted without duplicates.
func strictlyIncreasing(ids []string) bool {
	for i := 1; i < len(ids); i++ {
		if ids[i-1] >= ids[i] {
			return false
		}
	}
	return true
}

// addMember appends an unknown member (state none) and returns its
// position. Callers give it a state right away.
func (n *Node) addMember(id string) int32 {
	idx := int32(len(n.members))
	n.members = append(n.members, member{})
	n.added = append(n.added, id)
	at, _ := n.searchAdded(id)
	n.addedByID = slices.Insert(n.addedByID, at, idx)
	return idx
}

// search returns the position of member id in members.
func (n *Node) search(id string) (int32, bool) {
	// By hand rather than slices.BinarySearch, so that the common case
	// (an id among the initial members) costs one loop and no call.
	lo, hi := 0, len(n.ids)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		switch c := strings.Compare(n.ids[mid], id); {
		case c == 0:
			return int32(mid), true
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	if len(n.addedByID) == 0 {
		return -1, false
	}
	at, ok := n.searchAdded(id)
	if !ok {
		return -1, false
	}
	return n.addedByID[at], true
}

// searchAdded returns where id is or would be in addedByID.
func (n *Node) searchAdded(id string) (int, bool) {
	lo, hi := 0, len(n.addedByID)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		switch c := strings.Compare(n.id(n.addedByID[mid]), id); {
		case c == 0:
			return mid, true
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return lo, false
}

// byID yields every member's position, sorted by id: the initial members
// and the added ones merged.
func (n *Node) byID() iter.Seq[int32] {
	return func(yield func(int32) bool) {
		i, j := 0, 0
		for i < len(n.ids) || j < len(n.addedByID) {
			var idx int32
			if j == len(n.addedByID) || (i < len(n.ids) && n.ids[i] < n.id(n.addedByID[j])) {
				idx = int32(i)
				i++
			} else {
				idx = n.addedByID[j]
				j++
			}
			if !yield(idx) {
				return
			}
		}
	}
}

// lookup returns the position of member id in members.
func (n *Node) lookup(id string) (int32, bool) {
	if len(n.members) > memoMembers {
		return n.search(id)
	}
	k := memoSlot(id)
	if i := n.memo[k]; i > 0 && n.id(i-1) == id {
		return i - 1, true
	}
	idx, ok := n.search(id)
	if !ok {
		return -1, false
	}
	n.memo[k] = idx + 1
	return idx, true
}

// memoSize is the number of lookups a node remembers (Node.memo): a
// legacy message names the same handful of members hundreds of times, and
// each repeat costs one comparison instead of a binary search. Past
// memoMembers members the memo would mostly miss, and costs a comparison
// more than the search alone, so a larger view does not use it.
const (
	memoSize    = 16
	memoMembers = 64
)

// memoSlot is id's place in Node.memo: its length and last byte, where a
// cluster's ids usually differ ("p0", "p1").
func memoSlot(id string) int {
	if id == "" {
		return 0
	}
	return (len(id)*7 + int(id[len(id)-1])) & (memoSize - 1)
}

// addToOrder puts a newly learnt member at a random place among the
// members not yet probed this round, as memberlist does, so a joiner is
// probed soon but not predictably first.
func (n *Node) addToOrder(idx int32) {
	n.order = append(n.order, idx)
	last := len(n.order) - 1
	lo := min(n.orderPos, last)
	j := lo + int(below(n.rand, uint64(last-lo+1)))
	n.order[last], n.order[j] = n.order[j], n.order[last]
}

// known is the cluster size estimate used by the formulas: every member
// the node has heard of, itself and dead ones included.
func (n *Node) known() int { return len(n.members) }

// begin emits the initial view on the node's first call.
func (n *Node) begin(now int64) {
	if n.started {
		return
	}
	n.started = true
	n.nextProbeAt = now
	n.nextJoinAt = now
	n.nextPushPullAt = satAdd(now, n.cfg.PushPullIntervalNs)
	if vo, ok := n.output.(ViewOutput); ok {
		vo.StartView(n.startView())
		return
	}
	if n.output == nil && cap(n.out) < len(n.members)+16 {
		n.out = make([]Effect, 0, len(n.members)+16)
	}
	// One allocation for all initial events: a 1000-member node emits
	// 1000 of them.
	evs := make([]StateTransition, len(n.members))
	i := 0
	for idx := range n.byID() {
		m := &n.members[idx]
		evs[i] = StateTransition{Observer: n.self, Subject: n.id(idx), From: stateNone, To: m.state(), Incarnation: m.inc(), Reason: ReasonInitial}
		n.emit(&evs[i])
		i++
	}
}

// ViewOutput is an Output that takes a node's start-up view whole, as a
// StartView, instead of as one state_transition (reason "initial") per
// member: an embedder that writes the view as one record (swimhost, a
// folded line: docs/bundle.md, "Folded lines") saves building a
// thousand transitions a node.
type ViewOutput interface {
	Output
	StartView(v StartView)
}

// StartView is a node's start-up view as its first call found it: the
// initial transitions it stands for are Transition(0) … Transition(Len-1),
// one per member in id order, itself included, exactly those a node
// without a ViewOutput emits. Runs cuts them into runs of members that
// start in the same state and incarnation. It stays valid for the node's
// life: members are never renumbered and their ids never change.
type StartView struct {
	n     *Node
	order []int32 // member indices in id order; nil: 0, 1, … in order
	Runs  []StartRun
}

// StartRun is the members From … To-1 of a StartView, in id order, which
// start in State at Incarnation.
type StartRun struct {
	From, To    int
	State       State
	Incarnation uint64
}

// Len is the number of members the view holds.
func (v StartView) Len() int { return len(v.n.members) }

// Subject is the id of the view's i-th member in id order.
func (v StartView) Subject(i int) string {
	if v.order == nil {
		return v.n.id(int32(i))
	}
	return v.n.id(v.order[i])
}

// Transition sets *st to the initial transition of the view's i-th
// member of run r.
func (v StartView) Transition(r StartRun, i int, st *StateTransition) {
	*st = StateTransition{Observer: v.n.self, Subject: v.Subject(i), From: stateNone, To: r.State, Incarnation: r.Incarnation, Reason: ReasonInitial}
}

// startView is the node's view now, for its first call.
func (n *Node) startView() StartView {
	v := StartView{n: n}
	if len(n.addedByID) > 0 {
		v.order = slices.Collect(n.byID())
	}
	for i := range v.Len() {
		idx := int32(i)
		if v.order != nil {
			idx = v.order[i]
		}
		m := &n.members[idx]
		if k := len(v.Runs) - 1; k >= 0 && v.Runs[k].State == m.state() && v.Runs[k].Incarnation == m.inc() {
			v.Runs[k].To = i + 1
			continue
		}
		v.Runs = append(v.Runs, StartRun{From: i, To: i + 1, State: m.state(), Incarnation: m.inc()})
	}
	return v
}

// maxKeptEffects is the largest effect buffer a node keeps between calls.
// Steady state needs a handful of effects per call; a burst (a thousand
// members' initial transitions, a big push/pull merge) grows the buffer
// far beyond that, and keeping it would also keep alive everything it
// points at for the node's lifetime.
const maxKeptEffects = 256

// resetEffects empties the effect buffer for a new call. A buffer larger
// than maxKeptEffects is let go once a call has not needed it (the last
// one used at most maxKeptEffects), so a node that steadily needs more
// keeps its buffer instead of regrowing it every call.
func (n *Node) resetEffects() {
	if cap(n.sent) > maxKeptSent && len(n.sent) <= maxKeptSent {
		n.sent = nil
	}
	n.sent = n.sent[:0]
	if cap(n.out) > maxKeptEffects && len(n.out) <= maxKeptEffects {
		n.out = nil
		return
	}
	n.out = n.out[:0]
}

// maxKeptSent is the largest sent-updates array (ReuseSentUpdates) a node
// keeps between calls, by the rule of maxKeptEffects: a bounded queue's
// call sends a few dozen updates, a legacy one's every update it ever
// made to each peer it writes to (a ping_req's three relays among them),
// and below a call's worth the array was let go and grown again.
const maxKeptSent = 4096

// ReuseSentUpdates tells the node whether its caller is done with every
// message it hands over (as an Effect or to the Output) by the time the
// call that handed it over returns, as the simulator's engine is, which
// encodes a call's sends before it makes the next call. When on, the
// Updates of a call's messages share an array the node reuses on its
// next call instead of allocating one per message, which for a legacy
// queue's hundreds of updates a message kept the garbage collector busy
// (docs/BENCHMARKS.md, "A sweep does only what a seed needs"). Off by
// default; a clone (Clone) starts with it off.
func (n *Node) ReuseSentUpdates(on bool) { n.reuseSent = on }

// sendUpdates returns an empty slice with room for k updates for a
// message being sent: its own array, or, when the node reuses them, the
// rest of this call's sent array (growing a new one if it is full; the
// messages this call already sent keep the old one).
func (n *Node) sendUpdates(k int) []Update {
	if !n.reuseSent {
		return make([]Update, 0, k)
	}
	if cap(n.sent)-len(n.sent) < k {
		n.sent = make([]Update, 0, max(k, 2*cap(n.sent)))
	}
	l := len(n.sent)
	return n.sent[l : l : l+k]
}

// Tick advances the node to now: it concludes anything whose deadline
// passed without its timer being delivered (so a node whose timers were
// lost while it was paused recovers on its next tick), (re)sends join
// requests while joining, and starts the next probe once the
// health-scaled probe interval since the last one has elapsed. Call it
// periodically, at least as often as the probe interval.
//
// Everything it does is a duty, done when due says its time has come;
// TickDue reads the same duties, so the two cannot disagree.
func (n *Node) Tick(now int64) []Effect {
	n.resetEffects()
	n.begin(now)
	for d := range numDuties {
		if at, ok := n.due(d); ok && now >= at {
			n.do(d, now)
		}
	}
	return n.out
}

// TickDue returns the earliest time at which Tick would do anything: a
// Tick at an earlier time finds no duty due, emits nothing and changes
// nothing. It holds until the node's next call. A simulator skips the
// Ticks before it (hosts.Dozer), so a later answer than Tick's own would
// lose work silently: it is the minimum over the duties Tick does.
func (n *Node) TickDue() int64 {
	if !n.started {
		return math.MinInt64 // the first call emits the initial view
	}
	next := int64(math.MaxInt64)
	for d := range numDuties {
		if at, ok := n.due(d); ok {
			next = min(next, at)
		}
	}
	return next
}

// duty is one thing Tick does when its time comes, in the order Tick does
// them (an earlier one can change a later one's time: a probe whose
// deadline passed is over, so the next probe may start in the same Tick).
type duty uint8

const (
	// dutyProbeTimeout: the direct ping's timeout passed without its
	// timer (the ping_req fan-out).
	dutyProbeTimeout duty = iota
	// dutyProbeDeadline: the probe's interval ended without its timer.
	dutyProbeDeadline
	// dutyRelays: a relayed ping's deadline passed without its timer.
	dutyRelays
	// dutySuspicions: a suspicion expired without its timer, or a listed
	// member is no longer suspect.
	dutySuspicions
	// dutyJoin: (re)send join requests while joining.
	dutyJoin
	// dutyPushPull: the periodic push/pull.
	dutyPushPull
	// dutyProbe: start the next probe.
	dutyProbe
	numDuties
)

// due returns when duty d is next due, and false when it cannot become
// due before the node's next call changes its state. Tick does d at now
// exactly when ok && now >= at.
func (n *Node) due(d duty) (at int64, ok bool) {
	p := &n.probe
	switch d {
	case dutyProbeTimeout:
		return p.timeoutAt, p.active && !p.timedOut
	case dutyProbeDeadline:
		return p.deadline, p.active
	case dutyRelays:
		at = math.MaxInt64
		for i := range n.relays {
			at = min(at, n.relays[i].deadline)
		}
		return at, len(n.relays) > 0
	case dutySuspicions:
		at = math.MaxInt64
		for _, idx := range n.suspects {
			s := n.suspicion(&n.members[idx])
			if s == nil {
				return math.MinInt64, true // taken off the list at once
			}
			at = min(at, s.deadline)
		}
		return at, len(n.suspects) > 0
	case dutyJoin:
		return n.nextJoinAt, !n.joined
	case dutyPushPull:
		return n.nextPushPullAt, n.joined && n.cfg.PushPullIntervalNs > 0
	case dutyProbe:
		return n.nextProbeAt, !p.active
	}
	return 0, false
}

// do does duty d, which due says is due at now.
func (n *Node) do(d duty, now int64) {
	switch d {
	case dutyProbeTimeout:
		n.onProbeTimeout()
	case dutyProbeDeadline:
		n.onProbeDeadline(now)
	case dutyRelays:
		n.concludeOverdueRelays(now)
	case dutySuspicions:
		n.concludeOverdueSuspicions(now)
	case dutyJoin:
		n.sendJoinRequests(now)
	case dutyPushPull:
		n.pushPull(now)
	case dutyProbe:
		n.startProbe(now)
	}
}

// Receive handles a message from the member from. Piggybacked updates are
// applied first, so a reply already carries any refutation they caused.
// A message whose From differs from the transport's sender is counted and
// otherwise ignored. Its message_received has no id: ReceiveID is Receive
// for a transport that hands over the sender's message id.
func (n *Node) Receive(from string, msg *Message, now int64) []Effect {
	return n.ReceiveID(from, 0, msg, now)
}

// ReceiveID is Receive of the message the sender numbered id (the id of
// its message_sent and of its send effect, carried beside the wire bytes
// by a simulator; 0 when unknown), so the message_received names the same
// message.
func (n *Node) ReceiveID(from string, id uint64, msg *Message, now int64) []Effect {
	n.resetEffects()
	n.begin(now)
	if msg == nil || from == "" || len(from) > MaxIDBytes {
		n.counters.Malformed++
		return n.out
	}
	size := EncodedSize(msg)
	n.counters.MessagesReceived++
	n.counters.BytesReceived += uint64(size)
	n.emit(&MessageReceived{Peer: from, Message: msg.Kind, Bytes: size, Updates: len(msg.Updates), Sender: from, ID: id, Seq: msg.Seq})
	if msg.From != from {
		n.counters.Misrouted++
		return n.out
	}
	for i := range msg.Updates {
		n.applyUpdate(msg.Updates[i], ReasonGossip, now)
	}
	switch msg.Kind {
	case Ping:
		n.onPing(from, msg)
	case Ack:
		n.onAck(msg, now)
	case PingReq:
		n.onPingReq(from, msg, now)
	case IndirectAck:
		n.onIndirectAck(msg, now)
	case JoinRequest:
		n.onJoinRequest(from, msg, now)
	case JoinResponse:
		n.onJoinResponse(msg, now)
	default:
		n.counters.Malformed++
	}
	return n.out
}

// ReceiveStream is Receive for a message that came over a reliable
// stream (TCP) rather than as a datagram: a fallback probe's ping, which
// the node answers on the same stream, or its ack. The wire format cannot
// say how a message travelled; the transport does.
func (n *Node) ReceiveStream(from string, msg *Message, now int64) []Effect {
	return n.ReceiveStreamID(from, 0, msg, now)
}

// ReceiveStreamID is ReceiveStream of the message the sender numbered id
// (as ReceiveID).
func (n *Node) ReceiveStreamID(from string, id uint64, msg *Message, now int64) []Effect {
	n.viaStream = true
	defer func() { n.viaStream = false }()
	return n.ReceiveID(from, id, msg, now)
}

// TimerFired handles a timer the node armed. Stale and unknown tokens are
// ignored.
func (n *Node) TimerFired(tok uint64, now int64) []Effect {
	n.resetEffects()
	n.begin(now)
	payload := tok & tokenPayloadMask
	p := &n.probe
	switch tok >> 56 {
	case timerProbeTimeout:
		if p.active && !p.timedOut && p.seq&tokenPayloadMask == payload {
			n.onProbeTimeout()
		}
	case timerProbeDeadline:
		if p.active && p.seq&tokenPayloadMask == payload {
			n.onProbeDeadline(now)
		}
	case timerRelay:
		n.onRelayTimeout(payload)
	case timerSuspicion:
		idx, gen := int32(payload>>32), uint32(payload)
		if idx >= 0 && int(idx) < len(n.members) {
			if s := n.suspicion(&n.members[idx]); s != nil && s.gen == gen {
				n.suspicionExpired(idx, now)
			}
		}
	default:
		n.counters.UnknownTimers++
	}
	return n.out
}

// SendFailed tells the node the transport refused a send. It is only
// counted: real UDP does not report loss, so SWIM must not depend on it.
func (n *Node) SendFailed(to string, reason string, now int64) []Effect {
	n.resetEffects()
	n.begin(now)
	n.counters.SendFailed++
	return n.out
}

// isProbePing reports whether msg is the direct ping of the probe in
// flight (memberlist's probeNode, the one place it staples a suspicion).
func (n *Node) isProbePing(to string, msg *Message) bool {
	p := &n.probe
	return msg.Kind == Ping && p.active && msg.Seq == p.seq && n.id(p.target) == to
}

// send piggybacks updates on msg, records message_sent and emits the send.
// A message to a member this node holds suspect or dead first carries that
// accusation (Lifeguard's buddy system, extended to dead members), so the
// accused learns of it directly and can refute; queued broadcasts fill the
// rest of the budget.
func (n *Node) send(to string, msg *Message) {
	msg.From = n.self
	limit := n.cfg.MaxMessageBytes
	if n.queue.legacy || msg.Kind == JoinResponse {
		limit = MaxDatagramBytes
	}
	bare := bareSize(msg)
	budget := limit - bare
	var ups []Update
	if n.queue.len() > 0 || n.accused > 0 {
		// Sized once: a legacy queue piggybacks hundreds of updates, and
		// growing the slice to them copied each several times. No more
		// than the budget can hold, though: a bounded queue of a
		// thousand members' news fills a message with a few dozen.
		ups = n.sendUpdates(min(n.queue.len(), max(budget, 0)/minUpdateSize) + 1)
	}
	var staple *Update
	if n.accused == 0 || n.cfg.NoBuddy {
		// Nobody to staple an accusation about, or no buddy system.
	} else if n.cfg.Dissemination == DisseminateMemberlist && !n.isProbePing(to, msg) {
		// memberlist staples a suspicion to the probe's ping only.
	} else if idx, ok := n.lookup(to); ok {
		if m := &n.members[idx]; m.state() == Suspect || (m.state() == Dead && n.cfg.Dissemination == DisseminateSWIM) {
			u := Update{Member: n.id(idx), State: m.state(), Incarnation: m.inc(), From: n.accuser(m)}
			if sz := updateSize(&u); sz <= budget {
				ups = append(ups, u)
				budget -= sz
				staple = &u
			}
		}
	}
	if n.queue.len() > 0 {
		ups, budget = n.queue.take(ups, budget, retransmitLimit(n.cfg.RetransmitMult, n.known()), staple)
	}
	msg.Updates = ups
	if n.reuseSent {
		n.sent = n.sent[:len(n.sent)+len(ups)]
	}
	size := bare
	if free := limit - bare; free > 0 {
		size += free - budget
	}
	n.counters.MessagesSent++
	n.counters.BytesSent += uint64(size)
	id := n.counters.MessagesSent
	n.emit(&MessageSent{Peer: to, Message: msg.Kind, Bytes: size, Updates: len(ups), Sender: n.self, ID: id, Seq: msg.Seq})
	n.sendEffect(to, msg, id)
}
