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
	order []int32 // host indices in peer-id order

	// graph, when set, declares the edges by regions (NewGraph, NewMesh):
	// an edge is made in edges on its first use, so the network costs
	// what its peers use, not peers squared: 10 000 peers on a mesh are
	// a hundred million declared edges. nil: edges holds every declared
	// edge (New). rank is a host index's position in peer-id order, the
	// graph's coordinates; rowStart[r] is how many edges the senders
	// before position r have, so the i-th edge is found without walking.
	graph    *Graph
	rank     []int32
	rowStart []int

	edges    []edgeState // declared edges sorted by (From, To) peer id; for a graph, the edges in use, by first use
	lookup   pairIndex   // (from, to) → position in edges, or -1
	policies []Policy    // the distinct sanitised policies edges point at
	flows    flowStore   // the state of the edges in use

	// What the links view counts without walking a million edges:
	// flows not Cold, edges partitioned (on a mesh, made or not: from
	// cuts), and every flow that ever had a timed effect (few: mutations
	// list their links).
	notCold, partitioned int
	effected             []int32
	cuts                 []meshCut // a graph's active Partitions (cuts.go)

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
	// Which link governs each ordered pair: the last one naming it.
	type pair struct{ from, to, link int32 }
	var pairs []pair
	for i := range links {
		from, okF := net.index[links[i].From]
		to, okT := net.index[links[i].To]
		if !okF || !okT {
			continue
		}
		if at := net.lookup.get(from, to); at >= 0 {
			pairs[at].link = int32(i)
			continue
		}
		net.lookup.set(from, to, int32(len(pairs)))
		pairs = append(pairs, pair{int32(from), int32(to), int32(i)})
	}
	// Edges in (From, To) peer-id order; each distinct policy is stored
	// once however many edges share it.
	rank := make([]int32, net.n)
	for r, i := range net.order {
		rank[i] = int32(r)
	}
	slices.SortFunc(pairs, func(a, b pair) int {
		return cmp.Or(cmp.Compare(rank[a.from], rank[b.from]), cmp.Compare(rank[a.to], rank[b.to]))
	})
	net.edges = make([]edgeState, 0, len(pairs))
	policyAt := map[Policy]int32{}
	var last Policy
	lastAt := int32(-1)
	for _, pr := range pairs {
		if p := sanitize(links[pr.link].Policy); lastAt < 0 || p != last {
			pi, seen := policyAt[p]
			if !seen {
				pi = int32(len(net.policies))
				policyAt[p] = pi
				net.policies = append(net.policies, p)
			}
			last, lastAt = p, pi
		}
		net.lookup.set(int(pr.from), int(pr.to), int32(len(net.edges)))
		net.edges = append(net.edges, edgeState{from: pr.from, to: pr.to, policy: lastAt})
	}
	return net
}

// NewMesh is New for a full mesh: every ordered pair of distinct peers is
// an edge with policy p. Edges are made on their first use.
func NewMesh(peers []string, p Policy, root rng.Root) *Network {
	return NewGraph(peers, MeshGraph(len(peers), p), root)
}

// NewGraph is New for a graph declared by regions (Graph), whose
// positions are the peers' in peer-id order. Edges are made on their
// first use, each drawing from root.Link(from, to) as New's do, so a run
// draws the same values whichever way its edges are declared. The graph
// is kept, not copied: it must not change afterwards.
func NewGraph(peers []string, g Graph, root rng.Root) *Network {
	net := bare(peers, root)
	net.graph = &g
	net.policies = make([]Policy, len(g.Policies))
	for i, p := range g.Policies {
		net.policies[i] = sanitize(p)
	}
	net.rank = make([]int32, net.n)
	for r, i := range net.order {
		net.rank[i] = int32(r)
	}
	net.rowStart = make([]int, net.n+1)
	for i := range g.Rows {
		row := &g.Rows[i]
		for r := max(row.Lo, 0); r < min(row.Hi, int32(net.n)); r++ {
			net.rowStart[r+1] = row.rowEdges(int(r))
		}
	}
	for r := range net.n {
		net.rowStart[r+1] += net.rowStart[r]
	}
	return net
}

// bare is a network of peers with no edges yet: every lookup is -1.
func bare(peers []string, root rng.Root) *Network {
	n := len(peers)
	net := &Network{
		peers:  slices.Clone(peers),
		index:  make(map[string]int, n),
		n:      n,
		order:  make([]int32, n),
		lookup: newPairIndex(n),
		root:   root,
		nextID: 1,
	}
	for i, p := range peers {
		net.index[p] = i
		net.order[i] = int32(i)
	}
	slices.SortFunc(net.order, func(a, b int32) int { return cmp.Compare(net.peers[a], net.peers[b]) })
	return net
}

// Peers returns the peer ids; a host's index is its position.
func (n *Network) Peers() []string { return slices.Clone(n.peers) }

// edge returns the declared edge from→to, or nil when there is none
// (including out-of-range indices, which the engine never passes). A
// graph's edge is made here on its first use: a pointer into edges stays
// valid only until the next call.
func (n *Network) edge(from, to int) *edgeState {
	if from < 0 || to < 0 || from >= n.n || to >= n.n {
		return nil
	}
	at := n.lookup.get(from, to)
	if at < 0 {
		if n.graph == nil {
			return nil
		}
		c := n.graph.cell(int(n.rank[from]), int(n.rank[to]))
		if c == nil {
			return nil
		}
		at = int32(len(n.edges))
		n.edges = append(n.edges, edgeState{from: int32(from), to: int32(to), policy: c.Policy})
		n.lookup.set(from, to, at)
		if n.crossesCut(from, to) { // counted in partitioned at the cut
			n.use(&n.edges[at]).partitioned = true
		}
	}
	return &n.edges[at]
}

// existing is edge without making a graph's edge: nil for an edge not
// yet used.
func (n *Network) existing(from, to int) *edgeState {
	if at := n.lookup.get(from, to); at >= 0 {
		return &n.edges[at]
	}
	return nil
}

// observe records t as the latest time the network has been told about,
// the time the Links view describes.
func (n *Network) observe(t int64) {
	n.seen = max(n.seen, t)
}

// Clone returns a deep copy for engine checkpoints: every stream, in-flight
// list and effect list is copied, so the clone answers every future call
// exactly as the original would. The peer list, index, order and
// policies, graph and its indices are immutable after New and are
// shared, and so is the lookup table but a graph's, which grows as edges
// come into use.
func (n *Network) Clone() *Network {
	lookup := n.lookup
	if n.graph != nil {
		lookup = n.lookup.clone()
	}
	c := &Network{
		peers:    n.peers,
		index:    n.index,
		n:        n.n,
		order:    n.order,
		graph:    n.graph,
		rank:     n.rank,
		rowStart: n.rowStart,
		edges:    slices.Clone(n.edges),
		lookup:   lookup,
		policies: n.policies,
		flows:    n.flows.clone(),
		root:     n.root,
		nextID:   n.nextID,
		seen:     n.seen,

		notCold:     n.notCold,
		partitioned: n.partitioned,
		effected:    slices.Clone(n.effected),
		cuts:        slices.Clone(n.cuts), // each cut's bitsets are never written
	}
	return c
}

// flowOf returns e's flow, or nil while e is unused (or nil).
func (n *Network) flowOf(e *edgeState) *edgeFlow {
	if e == nil || e.flow == 0 {
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
