// Package scenarios loads and validates scenario files (spec §8), embeds
// the core's scenario library (reference/, testbed/, calibration/,
// regression/) and joins it with each kind's (smoke/ is SWIM's), so
// detsim runs with no files around it. Loading is a pure function from
// bytes to a validated Scenario or to every error found, one per line.
package scenarios

import "github.com/detsim/detsim/network"

// Scenario is a fully merged, validated scenario: the only input the engine
// consumes (spec §3.2). Every reference in it names a declared peer.
type Scenario struct {
	Name           string
	Seed           uint64
	DurationNs     int64
	EarlyTerminate bool // early_terminate_on_all_assertions_resolved

	TickPeriodNs int64          // [default_tick] period_ns
	DefaultLink  network.Policy // [default_link]

	Peers []Peer // sorted by ID
	// FullMesh is a scenario without [[links]]: every ordered pair of
	// distinct peers is an edge with DefaultLink, and Links is nil. A
	// thousand peers make a million such edges, which nobody needs
	// spelled out; Edges lists them when wanted.
	FullMesh bool
	Links    []network.Link // the declared directed edges, resolved, sorted by (From, To); nil for a full mesh or a Graph
	// Graph is a [[links]] graph of more than MaxLinks edges, kept by
	// regions over the sorted peer ids rather than edge by edge (Links
	// is nil then): ten thousand peers under one "*" entry are a hundred
	// million edges. Edges lists them when wanted.
	Graph      *network.Graph
	Mutations  []network.Mutation // in declared order
	Snapshots  []int64            // at_ns of each [[snapshots]], in declared order
	Assertions []Assertion        // in declared order

	// Expect is the library expectation from the file's "# expect: …"
	// header: "pass-now", "fail-until-fix", "sensitivity-study", or "".
	Expect string
	// Path is the file the scenario was loaded from (or the embedded
	// library name), SourceSHA256 the SHA-256 of that file's bytes.
	Path         string
	SourceSHA256 [32]byte

	merged map[string]any // the merged TOML tree, for TOML()
}

// Edges returns every existing directed edge with its resolved policy,
// sorted by (From, To): Links, or the full mesh or Graph spelled out.
func (s *Scenario) Edges() []network.Link {
	if s.Graph != nil {
		var links []network.Link
		s.Graph.Each(func(from, to int, p *network.Policy) {
			links = append(links, network.Link{Edge: network.Edge{From: s.Peers[from].ID, To: s.Peers[to].ID}, Policy: *p})
		})
		return links
	}
	if !s.FullMesh {
		return s.Links
	}
	links := make([]network.Link, 0, len(s.Peers)*max(len(s.Peers)-1, 0))
	for _, from := range s.Peers {
		for _, to := range s.Peers {
			if from.ID != to.ID {
				links = append(links, network.Link{Edge: network.Edge{From: from.ID, To: to.ID}, Policy: s.DefaultLink})
			}
		}
	}
	return links
}

// Peer is one [[peers]] entry with defaults applied.
type Peer struct {
	ID           string
	Kind         string
	KindConfig   map[string]any // as decoded from TOML: int64, string, bool, []any, map[string]any; never nil
	InitialState string
	TickPeriodNs int64 // tick_period_ns_override, else [default_tick] period_ns
	// RecvCostNs is recv_cost_ns: how long each delivery occupies the
	// host before the host has handled it (0: no cost, the default).
	RecvCostNs int64
	// RecvBufferBytes is recv_buffer_bytes: the bytes of deliveries the
	// host may hold unhandled (paused or busy) before it drops the next
	// one with recv_backlog_full; 0 (unset) means DefaultRecvBufferBytes.
	RecvBufferBytes int64
}

// Assertion is one [[assertions]] entry. Params holds every key but
// `kind` and `name`, decoded into the kind's struct with every default
// filled in; Params.Kind() is Kind.
type Assertion struct {
	Name   string // `name`, default "<kind>#<index>"
	Kind   string
	Params AssertionParams
}

// NewAssertion is the assertion named name with parameters p, of p's kind.
func NewAssertion(name string, p AssertionParams) Assertion {
	return Assertion{Name: name, Kind: p.Kind(), Params: p}
}
