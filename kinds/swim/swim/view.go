package swim

// Read-only accessors for callers that show a node's view (the stepper's
// membership matrix, a service's health endpoint).

// Self returns the node's own id.
func (n *Node) Self() string { return n.self }

// Incarnation returns the node's own incarnation.
func (n *Node) Incarnation() uint64 { return n.members[n.selfIdx].inc() }

// Health returns the Lifeguard local health score, 0 (healthy) to
// AwarenessMaxMultiplier−1.
func (n *Node) Health() int { return n.health }

// View returns the node's view of member id; ok is false for a member it
// has never heard of.
func (n *Node) View(id string) (s State, incarnation uint64, ok bool) {
	idx, ok := n.lookup(id)
	if !ok {
		return stateNone, 0, false
	}
	m := &n.members[idx]
	return m.state(), m.inc(), true
}

// Members returns the ids of every member the node has heard of, itself
// included, sorted.
func (n *Node) Members() []string {
	ids := make([]string, 0, len(n.members))
	for idx := range n.byID() {
		ids = append(ids, n.id(idx))
	}
	return ids
}

// QueueDepth returns the number of updates waiting in the broadcast queue
// and their encoded size in bytes.
func (n *Node) QueueDepth() (updates, bytes int) { return n.queue.len(), n.queue.bytes }

// MaxMembers is the bound on the member table (Config.MaxMembers).
func (n *Node) MaxMembers() int { return n.cfg.MaxMembers }
