package swim

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// GossipMode selects the broadcast queue. It is the only behaviour that
// differs between the two settings.
type GossipMode uint8

const (
	// Bounded is the default queue: one entry per member (a newer update
	// supersedes an older one about the same member), a retransmit limit of
	// RetransmitMult × ceil(log10(n+1)), and piggybacking that keeps every
	// message within MaxMessageBytes.
	Bounded GossipMode = iota
	// Legacy is the documented bug-compatible queue: it keeps every update
	// ever made (no invalidation, no retransmit limit, no byte budget) and
	// piggybacks all of them on every message, capped only by the UDP
	// datagram limit (MaxDatagramBytes).
	Legacy
)

// String returns the kind_config spelling of the mode.
func (g GossipMode) String() string {
	if g == Legacy {
		return "legacy"
	}
	return "bounded"
}

// Dissemination selects how accusations reach the accused and how a node
// talks to members it holds dead. The default is this library's design;
// Memberlist is memberlist v0.5's behaviour, for the failure modes that
// need it (docs/swim.md, "Dissemination = memberlist").
type Dissemination uint8

const (
	// DisseminateSWIM is the default: the buddy system staples an
	// accusation to every message to the accused, a stale alive about an
	// accused member re-queues the accusation, a stale accusation of this
	// node re-queues its alive, and every round pings one dead member
	// (reconnect).
	DisseminateSWIM Dissemination = iota
	// DisseminateMemberlist does what memberlist does: a suspicion is
	// stapled only to the probe's own ping of a suspect member; stale
	// alives and stale accusations are dropped silently; accusations
	// about members never heard of are dropped; a dead member is
	// contacted only while its death is younger than GossipToTheDeadNs
	// and only when there is news to gossip; push/pull picks alive
	// members only.
	DisseminateMemberlist
)

// GossipToTheDeadNs is memberlist's DefaultLANConfig GossipToTheDeadTime:
// how long after a death the dead member still receives gossip, under
// DisseminateMemberlist.
const GossipToTheDeadNs = 30_000_000_000

// String returns the kind_config spelling of the mode.
func (d Dissemination) String() string {
	if d == DisseminateMemberlist {
		return "memberlist"
	}
	return "swim"
}

// Config holds a node's tunables. DefaultConfig returns memberlist's
// DefaultLANConfig values; docs/swim.md explains each key.
type Config struct {
	// ProbeIntervalNs is the time between probe starts at full health.
	ProbeIntervalNs int64
	// ProbeTimeoutNs is how long a direct ping waits for its ack before
	// the ping_req fan-out; it must be shorter than ProbeIntervalNs.
	ProbeTimeoutNs int64
	// IndirectChecks is how many intermediaries receive a ping_req.
	IndirectChecks int
	// RetransmitMult scales the broadcast retransmit limit.
	RetransmitMult int
	// SuspicionMult scales the minimum suspicion timeout.
	SuspicionMult int
	// SuspicionMaxTimeoutMult bounds the maximum suspicion timeout as a
	// multiple of the minimum.
	SuspicionMaxTimeoutMult int
	// AwarenessMaxMultiplier bounds local health: probe interval and
	// timeout are scaled by (health+1), with health in [0, max-1].
	AwarenessMaxMultiplier int
	// MaxMessageBytes is the Bounded per-message byte budget (headers
	// included). Join responses are exempt.
	MaxMessageBytes int
	// Gossip selects the broadcast queue.
	Gossip GossipMode
	// Seeds are the peers a Joining node sends join_request to.
	Seeds []string
	// PushPullIntervalNs is how often a joined node pulls a random live
	// member's full state (memberlist's push/pull anti-entropy); 0 turns
	// it off.
	PushPullIntervalNs int64
	// MetaBytes is the size of the node's metadata (DerivedMeta of its
	// id), carried by every alive update about it and by its join
	// requests; 0 to MaxMetaBytes.
	MetaBytes int
	// NoAwareness, NoSuspicion, NoNack and NoBuddy turn Lifeguard's
	// components off, one each (kind_config lifeguard_awareness,
	// lifeguard_suspicion, lifeguard_nack, lifeguard_buddy = false;
	// lifeguard = false is all four): the zero value is Lifeguard, and
	// plain SWIM is what has to be asked for. docs/lifeguard.md.
	//
	// NoAwareness: local health never moves from 0, so probe interval and
	// timeout are never scaled. NoSuspicion: a suspicion times out after
	// the minimum timeout, fixed, and confirmations do not shorten it
	// (SWIM's and pre-Lifeguard memberlist's suspicion). NoNack: an
	// intermediary sends no nack and the prober expects none. NoBuddy: a
	// message to an accused member does not carry its accusation first.
	NoAwareness, NoSuspicion, NoNack, NoBuddy bool
	// Dissemination selects the default design or memberlist's
	// (kind_config dissemination = "swim" | "memberlist").
	Dissemination Dissemination
	// InitialIncarnation is the node's own incarnation at start (and at
	// every fresh restart); 0 by default. For tests of the top of the
	// incarnation range (memberlist's is a wrapping uint32).
	InitialIncarnation uint64
	// FallbackProbe sends, at the probe timeout and alongside the
	// ping_reqs, a direct ping over a reliable stream (TCP) that counts as
	// an ack if its answer comes back by the end of the probe interval:
	// memberlist's fallback probe, on unless DisableTcpPings (kind_config
	// fallback_probe; off by default, the behaviour before it existed).
	FallbackProbe bool
	// MaxMembers bounds the member table, this node included: news of a
	// member the table has no room for is refused and counted
	// (refused_members), so datagrams naming made-up members cannot grow
	// a node without bound (kind_config max_members; DefaultMaxMembers).
	// Members are never forgotten, dead ones included, so the bound
	// counts every member ever heard of.
	MaxMembers int
}

// DefaultMaxMembers is max_members' default: well above the 10,000 peers
// a scenario may declare, and about 35 MB of member table at most.
const DefaultMaxMembers = 65_536

// Lifeguard reports whether every Lifeguard component is on.
func (c Config) Lifeguard() bool {
	return !c.NoAwareness && !c.NoSuspicion && !c.NoNack && !c.NoBuddy
}

// lifeguardKeys are the kind_config switches of Lifeguard's components.
type lifeguardKey struct {
	name string
	off  func(c *Config) *bool
}

var lifeguardKeys = []lifeguardKey{
	{"lifeguard_awareness", func(c *Config) *bool { return &c.NoAwareness }},
	{"lifeguard_buddy", func(c *Config) *bool { return &c.NoBuddy }},
	{"lifeguard_nack", func(c *Config) *bool { return &c.NoNack }},
	{"lifeguard_suspicion", func(c *Config) *bool { return &c.NoSuspicion }},
}

// MaxDatagramBytes is the largest UDP payload over IPv4 (65,535 − 8 − 20).
// No encoded message may exceed it, in either gossip mode.
const MaxDatagramBytes = 65507

// DefaultConfig returns memberlist's DefaultLANConfig values.
func DefaultConfig() Config {
	return Config{
		ProbeIntervalNs:         1_000_000_000,
		ProbeTimeoutNs:          500_000_000,
		IndirectChecks:          3,
		RetransmitMult:          4,
		SuspicionMult:           4,
		SuspicionMaxTimeoutMult: 6,
		AwarenessMaxMultiplier:  8,
		MaxMessageBytes:         1400,
		PushPullIntervalNs:      30_000_000_000,
		Gossip:                  Bounded,
		MaxMembers:              DefaultMaxMembers,
	}
}

// ConfigError is one problem with a configuration, named by its kind_config
// path ("kind_config.probe_timeout_ns") or "peers" for the declared ids.
type ConfigError struct {
	Field string
	Msg   string
}

func (e ConfigError) Error() string { return e.Field + ": " + e.Msg }

// Accepted ranges. The upper bounds keep every derived duration far from
// int64 overflow and reject values that can only be typos.
const (
	maxDurationNs  = int64(3_600_000_000_000) // one hour
	maxMultiplier  = 1000
	maxIndirect    = 255
	minMessageSize = 64
)

type intKey struct {
	name     string
	min, max int64
	set      func(c *Config, v int64)
	get      func(c *Config) int64
}

var intKeys = []intKey{
	{"probe_interval_ns", 1, maxDurationNs,
		func(c *Config, v int64) { c.ProbeIntervalNs = v }, func(c *Config) int64 { return c.ProbeIntervalNs }},
	{"probe_timeout_ns", 1, maxDurationNs,
		func(c *Config, v int64) { c.ProbeTimeoutNs = v }, func(c *Config) int64 { return c.ProbeTimeoutNs }},
	{"indirect_checks", 0, maxIndirect,
		func(c *Config, v int64) { c.IndirectChecks = int(v) }, func(c *Config) int64 { return int64(c.IndirectChecks) }},
	{"retransmit_mult", 1, maxMultiplier,
		func(c *Config, v int64) { c.RetransmitMult = int(v) }, func(c *Config) int64 { return int64(c.RetransmitMult) }},
	{"suspicion_mult", 1, maxMultiplier,
		func(c *Config, v int64) { c.SuspicionMult = int(v) }, func(c *Config) int64 { return int64(c.SuspicionMult) }},
	{"suspicion_max_timeout_mult", 1, maxMultiplier,
		func(c *Config, v int64) { c.SuspicionMaxTimeoutMult = int(v) }, func(c *Config) int64 { return int64(c.SuspicionMaxTimeoutMult) }},
	{"awareness_max_multiplier", 1, maxMultiplier,
		func(c *Config, v int64) { c.AwarenessMaxMultiplier = int(v) }, func(c *Config) int64 { return int64(c.AwarenessMaxMultiplier) }},
	{"max_message_bytes", minMessageSize, MaxDatagramBytes,
		func(c *Config, v int64) { c.MaxMessageBytes = int(v) }, func(c *Config) int64 { return int64(c.MaxMessageBytes) }},
	{"push_pull_interval_ns", 0, maxDurationNs,
		func(c *Config, v int64) { c.PushPullIntervalNs = v }, func(c *Config) int64 { return c.PushPullIntervalNs }},
	{"max_members", 1, 1 << 24,
		func(c *Config, v int64) { c.MaxMembers = int(v) }, func(c *Config) int64 { return int64(c.MaxMembers) }},
	{"meta_bytes", 0, MaxMetaBytes,
		func(c *Config, v int64) { c.MetaBytes = int(v) }, func(c *Config) int64 { return int64(c.MetaBytes) }},
	// A TOML integer is an int64, so the top half of the uint64 range
	// cannot be asked for; Validate checks what code sets.
	{"initial_incarnation", 0, math.MaxInt64,
		func(c *Config, v int64) { c.InitialIncarnation = uint64(v) },
		func(c *Config) int64 { return int64(min(c.InitialIncarnation, math.MaxInt64)) }},
}

func field(key string) string { return "kind_config." + key }

// ParseConfig builds a Config from a scenario's kind_config table (values
// as a TOML decoder produces them: int64, string, bool, []any), starting
// from DefaultConfig. It reports every wrong type, unknown key and
// out-of-range value, in key order; a key with a problem keeps its default.
// Checks across keys or against the declared peers are Validate's. Because
// a rejected key keeps its (valid) default, the two never report the same
// problem: a caller checking a kind_config appends Validate(peers) to
// ParseConfig's errors.
func ParseConfig(kv map[string]any) (Config, []ConfigError) {
	c := DefaultConfig()
	var errs []ConfigError
	// lifeguard = false is the shorthand for the four components; a
	// component's own key overrides it whatever the order.
	if v, ok := kv["lifeguard"]; ok {
		if b, isBool := v.(bool); !isBool {
			errs = append(errs, ConfigError{field("lifeguard"), "must be a boolean, got " + typeName(v)})
		} else {
			for _, k := range lifeguardKeys {
				*k.off(&c) = !b
			}
		}
	}
	for _, k := range lifeguardKeys {
		if v, ok := kv[k.name]; ok {
			if b, isBool := v.(bool); !isBool {
				errs = append(errs, ConfigError{field(k.name), "must be a boolean, got " + typeName(v)})
			} else {
				*k.off(&c) = !b
			}
		}
	}
	for _, key := range slices.Sorted(maps.Keys(kv)) {
		v := kv[key]
		if key == "lifeguard" || slices.ContainsFunc(lifeguardKeys, func(k lifeguardKey) bool { return k.name == key }) {
			continue // read above
		}
		if k := lookupIntKey(key); k != nil {
			n, ok := asInt(v)
			if !ok {
				errs = append(errs, ConfigError{field(key), "must be an integer, got " + typeName(v)})
				continue
			}
			if n < k.min || n > k.max {
				errs = append(errs, ConfigError{field(key), rangeMsg(n, k.min, k.max)})
				continue
			}
			k.set(&c, n)
			continue
		}
		switch key {
		case "gossip":
			s, ok := v.(string)
			if !ok {
				errs = append(errs, ConfigError{field(key), "must be a string, got " + typeName(v)})
				continue
			}
			switch s {
			case "bounded":
				c.Gossip = Bounded
			case "legacy":
				c.Gossip = Legacy
			default:
				errs = append(errs, ConfigError{field(key), fmt.Sprintf("must be \"bounded\" or \"legacy\", got %q", s)})
			}
		case "dissemination":
			str, ok := v.(string)
			if !ok {
				errs = append(errs, ConfigError{field(key), "must be a string, got " + typeName(v)})
				continue
			}
			switch str {
			case "swim":
				c.Dissemination = DisseminateSWIM
			case "memberlist":
				c.Dissemination = DisseminateMemberlist
			default:
				errs = append(errs, ConfigError{field(key), fmt.Sprintf("must be \"swim\" or \"memberlist\", got %q", str)})
			}
		case "fallback_probe":
			b, ok := v.(bool)
			if !ok {
				errs = append(errs, ConfigError{field(key), "must be a boolean, got " + typeName(v)})
				continue
			}
			c.FallbackProbe = b
		case "seeds":
			seeds, err := asStrings(v)
			if err != "" {
				errs = append(errs, ConfigError{field(key), err})
				continue
			}
			c.Seeds = seeds
		default:
			errs = append(errs, ConfigError{field(key), "unknown key"})
		}
	}
	// One error per key, in key order (the lifeguard keys were read first).
	slices.SortStableFunc(errs, func(a, b ConfigError) int { return strings.Compare(a.Field, b.Field) })
	return c, errs
}

func lookupIntKey(name string) *intKey {
	for i := range intKeys {
		if intKeys[i].name == name {
			return &intKeys[i]
		}
	}
	return nil
}

func rangeMsg(v, lo, hi int64) string {
	return "must be in [" + strconv.FormatInt(lo, 10) + ", " + strconv.FormatInt(hi, 10) + "], got " + strconv.FormatInt(v, 10)
}

func asInt(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	case int32:
		return int64(n), true
	}
	return 0, false
}

func asStrings(v any) ([]string, string) {
	var items []any
	switch s := v.(type) {
	case []any:
		items = s
	case []string:
		for _, x := range s {
			items = append(items, x)
		}
	default:
		return nil, "must be an array of peer ids, got " + typeName(v)
	}
	out := make([]string, 0, len(items))
	for i, it := range items {
		s, ok := it.(string)
		if !ok {
			return nil, fmt.Sprintf("element %d must be a string, got %s", i, typeName(it))
		}
		out = append(out, s)
	}
	return out, ""
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "nothing"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case int64, int, int32:
		return "an integer"
	case []any, []string:
		return "an array"
	case map[string]any:
		return "a table"
	}
	return fmt.Sprintf("%T", v)
}

// Validate checks the configuration for a node among the declared peers
// (all ids, sorted, the node's own included) and returns every problem:
// out-of-range values, probe_timeout_ns < probe_interval_ns, a minimum
// suspicion timeout for len(peers) members that exceeds the probe interval
// (spec §8.2), seeds that are not declared peers or repeat, peer ids the
// wire cannot carry, a max_message_bytes too small for the largest
// message without piggybacked updates, and one too small to piggyback the
// largest alive update (with MetaBytes of metadata) on the smallest
// message, which could then never be sent. With peers == nil only the
// checks that do not need them run.
func (c Config) Validate(peers []string) []ConfigError {
	var errs []ConfigError
	for i := range intKeys {
		k := &intKeys[i]
		if v := k.get(&c); v < k.min || v > k.max {
			errs = append(errs, ConfigError{field(k.name), rangeMsg(v, k.min, k.max)})
		}
	}
	if c.Gossip != Bounded && c.Gossip != Legacy {
		errs = append(errs, ConfigError{field("gossip"), "must be \"bounded\" or \"legacy\""})
	}
	if c.Dissemination != DisseminateSWIM && c.Dissemination != DisseminateMemberlist {
		errs = append(errs, ConfigError{field("dissemination"), "must be \"swim\" or \"memberlist\""})
	}
	if len(errs) > 0 {
		return errs
	}
	if c.ProbeTimeoutNs >= c.ProbeIntervalNs {
		errs = append(errs, ConfigError{field("probe_timeout_ns"), fmt.Sprintf(
			"must be less than probe_interval_ns (%d), got %d", c.ProbeIntervalNs, c.ProbeTimeoutNs)})
	}
	seen := make(map[string]bool, len(c.Seeds))
	for _, s := range c.Seeds {
		switch {
		case s == "" || len(s) > MaxIDBytes:
			errs = append(errs, ConfigError{field("seeds"), fmt.Sprintf("seed %q must be 1 to %d bytes", s, MaxIDBytes)})
		case seen[s]:
			errs = append(errs, ConfigError{field("seeds"), fmt.Sprintf("seed %q is listed twice", s)})
		}
		seen[s] = true
	}
	if peers == nil {
		return errs
	}
	if min := suspicionMinNs(c.SuspicionMult, len(peers), c.ProbeIntervalNs); min <= c.ProbeIntervalNs {
		errs = append(errs, ConfigError{field("suspicion_mult"), fmt.Sprintf(
			"suspicion timeout for %d peers is %d ns, which must exceed probe_interval_ns (%d); raise suspicion_mult",
			len(peers), min, c.ProbeIntervalNs)})
	}
	if len(peers) > c.MaxMembers {
		errs = append(errs, ConfigError{field("max_members"), fmt.Sprintf(
			"must be at least the %d declared peers", len(peers))})
	}
	for _, s := range c.Seeds {
		if _, ok := slices.BinarySearch(peers, s); !ok {
			errs = append(errs, ConfigError{field("seeds"), fmt.Sprintf("seed %q is not a declared peer", s)})
		}
	}
	longest := 0
	for _, p := range peers {
		if p == "" || len(p) > MaxIDBytes {
			errs = append(errs, ConfigError{"peers", fmt.Sprintf("peer id %q must be 1 to %d bytes to fit the wire format", p, MaxIDBytes)})
		}
		longest = max(longest, len(p))
	}
	if need := largestBareMessage(longest, c.MetaBytes); c.MaxMessageBytes < need {
		errs = append(errs, ConfigError{field("max_message_bytes"), fmt.Sprintf(
			"must be at least %d: the largest message without updates between these peers is %d bytes", need, need)})
	} else if need := smallestMessageWithAlive(longest, c.MetaBytes); c.MaxMessageBytes < need {
		errs = append(errs, ConfigError{field("max_message_bytes"), fmt.Sprintf(
			"must be at least %d: an alive update with %d metadata bytes must fit in an ack between these peers, or it could never be sent",
			need, c.MetaBytes)})
	}
	return errs
}

// largestBareMessage is the encoded size of the largest message other than
// a join response when no updates ride on it, ids are idLen bytes and the
// metadata metaLen: an indirect_ack (every field at its widest) or a
// join_request carrying the metadata, whichever is larger.
func largestBareMessage(idLen, metaLen int) int {
	id := idOfLen(idLen)
	return max(EncodedSize(&Message{Kind: IndirectAck, From: id, Target: id}),
		EncodedSize(&Message{Kind: JoinRequest, From: id, Meta: make([]byte, metaLen)}))
}

// smallestMessageWithAlive is the encoded size of the smallest message (an
// ack) carrying the largest alive update this configuration produces (about
// an idLen-byte id, with metaLen bytes of metadata), from an idLen-byte id.
// A budget below it could leave such an update queued for ever.
func smallestMessageWithAlive(idLen, metaLen int) int {
	id := idOfLen(idLen)
	return EncodedSize(&Message{Kind: Ack, From: id,
		Updates: []Update{{Member: id, State: Alive, Meta: make([]byte, metaLen)}}})
}

func idOfLen(n int) string {
	b := make([]byte, max(n, 1))
	for i := range b {
		b[i] = 'x'
	}
	return string(b)
}

// IntKey returns c's value of the integer kind_config key (the names
// ParseConfig takes, e.g. "probe_interval_ns"), and whether key is one.
// Tools that rewrite a kind_config relative to its effective value
// (calibrate's perturbations) read defaults through it.
func (c Config) IntKey(key string) (int64, bool) {
	for _, k := range intKeys {
		if k.name == key {
			return k.get(&c), true
		}
	}
	return 0, false
}
