package screen

import (
	"slices"
	"sync"

	"github.com/detsim/detsim/internal/natsort"
)

// Hosts are listed on screen the way people count them: node1, node2,
// node10 (internal/natsort), not in the engine's byte order (node1,
// node10, node2). A frame's peers and every index the panes use (the
// selected host, the matrix rows and columns, a row's cells) are display
// positions; only where the frame asks the engine for a host is a
// position turned into the engine's index.

// displayOrder is the peers in natural order and, for each position,
// the engine's index of that peer.
type displayOrder struct {
	ids []string
	eng []int
	pos map[string]int // id → display position
}

var orderCache struct {
	sync.Mutex
	key   []string // the engine's peer slice the cached order is for
	order *displayOrder
}

// naturalOrder returns the display order of the engine's peers (sorted
// by id, as Engine.Peers returns them). It is computed once per peer list.
func naturalOrder(peers []string) *displayOrder {
	orderCache.Lock()
	defer orderCache.Unlock()
	if c := orderCache.order; c != nil && len(orderCache.key) == len(peers) && (len(peers) == 0 || &orderCache.key[0] == &peers[0]) {
		return c
	}
	o := &displayOrder{eng: make([]int, len(peers)), pos: make(map[string]int, len(peers))}
	for i := range peers {
		o.eng[i] = i
	}
	slices.SortStableFunc(o.eng, func(a, b int) int { return natsort.Compare(peers[a], peers[b]) })
	o.ids = make([]string, len(peers))
	for p, i := range o.eng {
		o.ids[p] = peers[i]
		o.pos[peers[i]] = p
	}
	orderCache.key, orderCache.order = peers, o
	return o
}

// engine is the engine's index of the host at display position p.
func (o *displayOrder) engine(p int) int { return o.eng[p] }

// position is the display position of peer id.
func (o *displayOrder) position(id string) (int, bool) {
	p, ok := o.pos[id]
	return p, ok
}
