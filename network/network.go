package network

import (
	"cmp"
	"slices"

	"github.com/detsim/detsim/engine/rng"
)

// Network is the link model of one run. It is not safe for concurrent use:
// the engine calls it from its single dispatch loop, with nondecreasing
// virtual times.
type Network struct {
	peers []string       // host index = position
	index map[string]int // peer id → host index; point lookups only
	n     int

	edges  []edgeState // the declared edges, sorted by (From, To) peer id
	lookup []int32     // from*n+to → position in edges, or -1 for NoRoute

	root   rng.Root // edges derive their substreams from it on first use
	nextID uint64   // the next delivery id; ids start at 1
	seen   int64    // the latest time passed to Send or ApplyMutation

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
	n := len(peers)
	net := &Network{
		peers:  slices.Clone(peers),
		index:  make(map[string]int, n),
		n:      n,
		lookup: make([]int32, n*n),
		edges:  make([]edgeState, 0, len(links)),
		root:   root,
		nextID: 1,
	}
	for i, p := range peers {
		net.index[p] = i
	}
	for i := range net.lookup {
		net.lookup[i] = -1
	}
	for _, l := range links {
		from, okF := net.index[l.From]
		to, okT := net.index[l.To]
		if !okF || !okT {
			continue
		}
		if at := net.lookup[from*n+to]; at >= 0 {
			net.edges[at].policy = sanitize(l.Policy)
			continue
		}
		net.lookup[from*n+to] = int32(len(net.edges))
		net.edges = append(net.edges, edgeState{
			from:   from,
			to:     to,
			policy: sanitize(l.Policy),
		})
	}
	// Sort by peer id so every walk over the edges (invalidations, notes,
	// Links) comes out in (From, To) order whatever order links came in.
	slices.SortFunc(net.edges, func(a, b edgeState) int {
		return cmp.Or(cmp.Compare(peers[a.from], peers[b.from]), cmp.Compare(peers[a.to], peers[b.to]))
	})
	for i, e := range net.edges {
		net.lookup[e.from*n+e.to] = int32(i)
	}
	return net
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
// exactly as the original would. The peer list and index are immutable
// after New and are shared.
func (n *Network) Clone() *Network {
	c := &Network{
		peers:  n.peers,
		index:  n.index,
		n:      n.n,
		edges:  make([]edgeState, len(n.edges)),
		lookup: n.lookup,
		root:   n.root,
		nextID: n.nextID,
		seen:   n.seen,
	}
	for i := range n.edges {
		c.edges[i] = n.edges[i].clone()
	}
	return c
}
