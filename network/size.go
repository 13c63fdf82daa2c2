package network

import "unsafe"

// ApproxBytes estimates the memory a Clone holds: the edge table (copied:
// an edge's flow index changes on first use), a graph's lookup table
// (which grows), and every flow with its in-flight and effect lists. The
// peer list, an explicit lookup table and the policies are shared between
// clones and not counted. It costs one pass over the flows in use, no
// allocation.
func (n *Network) ApproxBytes() int64 {
	b := int64(unsafe.Sizeof(*n))
	if n.graph != nil {
		b += n.lookup.approxBytes()
	}
	b += int64(len(n.edges)) * int64(unsafe.Sizeof(edgeState{}))
	for _, c := range n.cuts {
		b += 8 * int64(len(c.a)+len(c.b))
	}
	b += int64(len(n.flows.blocks)) * int64(unsafe.Sizeof([]edgeFlow(nil)))
	n.flows.each(func(f *edgeFlow) {
		b += int64(unsafe.Sizeof(*f))
		b += int64(len(f.inFlight)) * int64(unsafe.Sizeof(delivery{}))
		b += int64(len(f.effects)) * int64(unsafe.Sizeof(effect{}))
	})
	return b
}
