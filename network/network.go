package network

import (
	"cmp"
	"slices"

	"github.com/detsim/detsim/rng"
)

// Network is the link model of one run. It is not safe for concurrent use:
// the engine calls it from its single dispatch loop, with nondecreasing
// virtual times.
type Network struct {
	peers []string       // host index = position
	index map[string]int // peer id → host index; point lookups only
	n     int

	edges    []edgeState // the declared edges, sorted by (From, To) peer id
	lookup   []int32     // from*n+to → position in edges, or -1 for NoRoute
	policies []Policy    // the distinct sanitised policies edges point at
	flows    flowStore   // the state of the edges in use

	// What the links view counts without walking a million edges:
	// flows not Cold, flows partitioned, and every flow that ever had a
	// timed effect (few: mutations list their links).
	notCold, partitioned int
	effected             []int32

	root   rng.Root // edges derive their substreams from it on first use
	nextID uint64   // the next delivery id; ids start at 1
	seen   int64    // the latest time passed to Send or ApplyMutation

	// lossMemo remembers datagramLossPPM per fragment count (lossMemo).
	lossMemo lossMemo

	// Reused result buffers; see Send and ApplyMutation.
	sendNotes   []Note
	mutNotes    []Note
	invalidated []Invalidated
}

// New builds the network for peers (sorted; a host's index is its
// position) and links, the declared directed edges with resolved policies.
// Any ordered pair not in links is NoRoute. Each edge draws from the
// substream root.Link(from, to), so no edge's draws depend on any other
// edge or on the peer count. A link naming an unknown peer is ignored and
// a repeated edge keeps its last policy; the loader rules both out.
func New(peers []string, links []Link, root rng.Root) *Network {
	net := bare(peers, root)
	n := net.n
	// Which link governs each ordered pair: the last one naming it.
	count := 0
	for i := range links {
		from, okF := net.index[links[i].From]
		to, okT := net.index[links[i].To]
		if !okF || !okT {
			continue
		}
		if net.lookup[from*n+to] < 0 {
			count++
		}
		net.lookup[from*n+to] = int32(i)
	}
	net.layout(count, func(at int32, _, _ int) (Policy, bool) {
		if at < 0 {
			return Policy{}, false
		}
		return links[at].Policy, true
	})
	return net
}

// NewMesh is New for a full mesh: every ordered pair of distinct peers is
// an edge with policy p.
func NewMesh(peers []string, p Policy, root rng.Root) *Network {
	net := bare(peers, root)
	net.layout(net.n*max(net.n-1, 0), func(_ int32, from, to int) (Policy, bool) { return p, from != to })
	return net
}

// bare is a network of peers with no edges yet: every lookup is -1.
func bare(peers []string, root rng.Root) *Network {
	n := len(peers)
	net := &Network{
		peers:  slices.Clone(peers),
		index:  make(map[string]int, n),
		n:      n,
		lookup: make([]int32, n*n),
		root:   root,
		nextID: 1,
	}
	for i, p := range peers {
		net.index[p] = i
	}
	for i := range net.lookup {
		net.lookup[i] = -1
	}
	return net
}

// layout builds the count edges in (From, To) peer-id order by walking the
// pairs in that order, so nothing needs sorting; edge(at, from, to) says
// whether the pair is an edge and with what policy, at being what lookup
// holds for it so far. Each distinct policy is stored once however many
// edges share it, and lookup ends up pointing at the edges.
func (n *Network) layout(count int, edge func(at int32, from, to int) (Policy, bool)) {
	order := make([]int, n.n)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(n.peers[a], n.peers[b]) })
	n.edges = make([]edgeState, 0, count)
	policyAt := map[Policy]int32{}
	var last Policy
	lastAt := int32(-1)
	for _, from := range order {
		for _, to := range order {
			at := &n.lookup[from*n.n+to]
			raw, ok := edge(*at, from, to)
			if !ok {
				continue
			}
			if p := sanitize(raw); lastAt < 0 || p != last {
				pi, seen := policyAt[p]
				if !seen {
					pi = int32(len(n.policies))
					policyAt[p] = pi
					n.policies = append(n.policies, p)
				}
				last, lastAt = p, pi
			}
			*at = int32(len(n.edges))
			n.edges = append(n.edges, edgeState{from: int32(from), to: int32(to), policy: lastAt})
		}
	}
}

// Peers returns the peer ids; a host's index is its position.
func (n *Network) Peers() []string { return slices.Clone(n.peers) }

// edge returns the declared edge from→to, or nil when there is none
// (including out-of-range indices, which the engine never passes).
func (n *Network) edge(from, to int) *edgeState {
	if from < 0 || to < 0 || from >= n.n || to >= n.n {
		return nil
	}
	at := n.lookup[from*n.n+to]
	if at < 0 {
		return nil
	}
	return &n.edges[at]
}

// observe records t as the latest time the network has been told about,
// the time the Links view describes.
func (n *Network) observe(t int64) {
	n.seen = max(n.seen, t)
}

// Clone returns a deep copy for engine checkpoints: every stream, in-flight
// list and effect list is copied, so the clone answers every future call
// exactly as the original would. The peer list, index, lookup table and
// policies are immutable after New and are shared.
func (n *Network) Clone() *Network {
	c := &Network{
		peers:    n.peers,
		index:    n.index,
		n:        n.n,
		edges:    slices.Clone(n.edges),
		lookup:   n.lookup,
		policies: n.policies,
		flows:    n.flows.clone(),
		root:     n.root,
		nextID:   n.nextID,
		seen:     n.seen,

		notCold:     n.notCold,
		partitioned: n.partitioned,
		effected:    slices.Clone(n.effected),
	}
	return c
}

// flowOf returns e's flow, or nil while e is unused.
func (n *Network) flowOf(e *edgeState) *edgeFlow {
	if e.flow == 0 {
		return nil
	}
	return n.flows.at(e.flow - 1)
}

// use returns e's flow, giving e one on its first use.
func (n *Network) use(e *edgeState) *edgeFlow {
	if e.flow == 0 {
		e.flow = n.flows.add() + 1
	}
	return n.flows.at(e.flow - 1)
}
