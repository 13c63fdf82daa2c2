// Package network is the directed-graph link model of spec §5: per-edge
// policies and state, the send algorithm, and the timeline of mutations.
// It answers the engine's questions — where and when does this message
// arrive, which in-flight deliveries does this mutation cut — and holds no
// schedule of its own. Every draw comes from the edge's ("link", from, to)
// substream, so editing one link never perturbs another.
package network

// Policy is one directed edge's link policy (spec §5.2). Every field is an
// integer in the unit its name ends with.
type Policy struct {
	LatencyNs                  int64 `toml:"latency_ns"`
	JitterStddevNs             int64 `toml:"jitter_stddev_ns"`
	LossProbPPM                int64 `toml:"loss_prob_ppm"`
	ReorderProbPPM             int64 `toml:"reorder_prob_ppm"`
	BandwidthBps               int64 `toml:"bandwidth_bps"` // bytes per second, > 0
	ColdDialPenaltyNs          int64 `toml:"cold_dial_penalty_ns"`
	CacheWarmAfterNs           int64 `toml:"cache_warm_after_ns"`
	CacheInvalidateAfterIdleNs int64 `toml:"cache_invalidate_after_idle_ns"`
	// SendBufferBytes bounds the bytes queued on the edge's wire: a send
	// that would take them above it is Drop(BufferFull) (DESIGN §8,
	// docs/network.md step 2b). 0 means no limit; the loader never gives
	// 0 (it defaults to 4 MiB), the network's own zero value keeps it.
	SendBufferBytes int64 `toml:"send_buffer_bytes"`
	// MTUBytes is the largest IPv4 packet the edge carries (spec §5.7 as
	// amended, docs/network.md "MTU and fragmentation"): a datagram
	// travels as ceil((len+8)/floor((MTUBytes−20)/8)·8) fragments, is lost
	// when any of them is, and pays their UDP and IPv4 headers on the
	// wire. 0 turns the IP model off: a message is one indivisible unit of
	// its encoded length, as before the field existed. The loader gives
	// 1500 by default and accepts 0 or 576 to 65 535; the network clamps
	// any other positive value into that range.
	MTUBytes int64 `toml:"mtu_bytes"`
	// BurstBytes makes the edge's bandwidth a token bucket of this depth
	// (docs/network.md step 4), as Linux HTB and a cloud VM's rate limit
	// shape: a message that finds tokens leaves at once, and the bucket
	// refills at BandwidthBps. 0, the default, is a serialising wire:
	// every message occupies the edge for its size / bandwidth.
	BurstBytes int64 `toml:"burst_bytes"`
}

// Edge names one directed edge by peer id.
type Edge struct {
	From string `toml:"from"`
	To   string `toml:"to"`
}

// Link is a declared edge with its fully resolved policy.
type Link struct {
	Edge
	Policy Policy
}

// MutationKind is one of the seven §5.5 variants, or PeerPause (the host
// fault) or Cancel, the amendments docs/decisions.md adds to them.
type MutationKind uint8

const (
	Partition MutationKind = iota + 1
	Heal
	LatencySpike
	LossBurst
	RelayBuffer
	PeerKill
	PeerResurrect
	// PeerPause stops a running host for DurationNs (a GC pause, CPU
	// starvation, a stopped container): the engine's business, like
	// PeerResurrect; the network does nothing (docs/decisions.md).
	PeerPause
	// Cancel asks one peer's host to cancel what it is doing (docs/
	// decisions.md, "Cancel"); the network does nothing.
	Cancel
)

var mutationNames = [...]string{
	Partition:     "Partition",
	Heal:          "Heal",
	LatencySpike:  "LatencySpike",
	LossBurst:     "LossBurst",
	RelayBuffer:   "RelayBuffer",
	PeerKill:      "PeerKill",
	PeerResurrect: "PeerResurrect",
	PeerPause:     "PeerPause",
	Cancel:        "Cancel",
}

// String returns the scenario spelling of k ("Partition", ...).
//
// A name table and its String, alike in shape to the engine's entryKind:
// each over its own constants.
func (k MutationKind) String() string {
	if int(k) < len(mutationNames) && mutationNames[k] != "" {
		return mutationNames[k]
	}
	return "MutationKind(?)"
}

// ParseMutationKind maps a scenario `kind` string to its MutationKind.
func ParseMutationKind(s string) (MutationKind, bool) {
	for k, n := range mutationNames {
		if n != "" && n == s {
			return MutationKind(k), true
		}
	}
	return 0, false
}

// Mutation is one timed change to the network or a peer (spec §5.5). Only
// the fields of its Kind are meaningful; the loader guarantees they are
// present and valid.
type Mutation struct {
	Kind MutationKind
	At   int64 // virtual ns at which it pops

	PeersA, PeersB []string // Partition
	Links          []Edge   // LatencySpike, LossBurst, RelayBuffer
	FactorX100     int64    // LatencySpike: additive latency × FactorX100/100
	ProbPPM        int64    // LossBurst: override loss probability
	FloorNs        int64    // RelayBuffer: minimum delivery delay
	DurationNs     int64    // LatencySpike, LossBurst, RelayBuffer, PeerPause
	Peer           string   // PeerKill, PeerResurrect, PeerPause, Cancel
	PreserveState  bool     // PeerResurrect
}

// DropReason says why a send or delivery did not arrive.
type DropReason uint8

const (
	NoRoute     DropReason = iota + 1 // no declared edge: permanent
	Partitioned                       // an active Partition cuts the edge
	Lossy                             // the loss draw fired
	PeerKilled                        // the receiver was killed while in flight
	BufferFull                        // the edge's send buffer had no room for the message
	TooLarge                          // a datagram over MaxDatagramBytes: the socket refuses it (EMSGSIZE)
)

var dropNames = [...]string{NoRoute: "no_route", Partitioned: "partitioned", Lossy: "lossy", PeerKilled: "peer_killed", BufferFull: "buffer_full", TooLarge: "too_large"}

// String returns the snake_case name events use ("no_route", ...).
func (r DropReason) String() string {
	if int(r) < len(dropNames) && dropNames[r] != "" {
		return dropNames[r]
	}
	return "unknown"
}

// CacheState is an edge's connection-cache state (spec §5.3).
type CacheState uint8

const (
	Cold CacheState = iota
	Warming
	Warm
)

func (c CacheState) String() string {
	switch c {
	case Cold:
		return "cold"
	case Warming:
		return "warming"
	case Warm:
		return "warm"
	}
	return "unknown"
}

// Transition names why an edge's cache state changed.
type Transition uint8

const (
	Dialed        Transition = iota + 1 // Cold → Warming on a send that paid the dial penalty
	Warmed                              // Warming → Warm after cache_warm_after_ns
	IdledOut                            // → Cold after cache_invalidate_after_idle_ns without sends
	CutByMutation                       // → Cold because a Partition or PeerKill cut the edge
)

func (t Transition) String() string {
	switch t {
	case Dialed:
		return "dialed"
	case Warmed:
		return "warmed"
	case IdledOut:
		return "idle"
	case CutByMutation:
		return "invalidated"
	}
	return "unknown"
}

// Note is a side-channel notification from Send or ApplyMutation that the
// engine turns into an engine-synthesised event (spec §4.7).
type Note struct {
	From, To   int // host indices
	Kind       NoteKind
	Transition Transition // for NoteCacheChange
	State      CacheState // the new state, for NoteCacheChange
}

// NoteKind is the kind of a Note.
type NoteKind uint8

const (
	NoteCacheChange NoteKind = iota + 1
	NoteDialStart
)

// Outcome is the answer to a Send (spec §3.2 SendOutcome). When Arrived,
// At is the arrival time and ID names the delivery so a later mutation can
// invalidate it; Dialed says this send paid the cold-dial penalty, so the
// engine emits DialOutcome when the delivery pops. Otherwise Reason says
// why it was dropped.
type Outcome struct {
	Arrived bool
	At      int64
	ID      uint64
	Dialed  bool
	Reason  DropReason
}

// Invalidated names an in-flight delivery a mutation cut.
type Invalidated struct {
	ID       uint64
	From, To int
	At       int64 // the arrival time it would have had
	Reason   DropReason
	Dialed   bool // the send paid the cold-dial penalty: its DialOutcome fails
}
