package swim

import "slices"

// Clone returns a deep copy of the node that shares no mutable state with
// it and draws its randomness from r (the caller's copy of the original's
// generator, so that the clone replays the same draws).
func (n *Node) Clone(r Rand) *Node {
	c := *n
	c.rand = r
	c.cfg.Seeds = slices.Clone(n.cfg.Seeds)
	c.members = slices.Clone(n.members)
	// ids is never written, so the clone shares it as its original does.
	c.added = slices.Clone(n.added)
	c.extras = make([]*memberExtra, len(n.extras))
	for i, x := range n.extras {
		cx := *x
		if cx.susp != nil {
			cx.susp = cx.susp.clone()
		}
		c.extras[i] = &cx
	}
	c.addedByID = slices.Clone(n.addedByID)
	c.order = slices.Clone(n.order)
	c.relays = slices.Clone(n.relays)
	c.suspects = slices.Clone(n.suspects)
	c.queue = n.queue.clone()
	c.out = nil
	c.output = nil
	c.scratch = nil
	c.sent, c.reuseSent = nil, false
	return &c
}
