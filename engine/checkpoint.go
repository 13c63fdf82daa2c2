package engine

import (
	"crypto/sha256"
	"encoding"
	"hash"
	"maps"
	"slices"
)

// Checkpoint is a frozen copy of an engine's whole mutable state: clock,
// queue, host table (each host deep-copied with Clone), network, running
// digest and streaming evaluator. Restoring it and stepping gives exactly
// what the original run gave from that point.
type Checkpoint struct {
	st state
}

// Index is the step index the checkpoint was taken at.
func (c *Checkpoint) Index() int64 { return c.st.steps }

// Checkpoint copies the engine's state. It is only valid for engines
// without a Writer: records already on disk cannot be taken back.
func (e *Engine) Checkpoint() *Checkpoint {
	e.slabs.stopRecycling() // the checkpoint shares the slabs
	if e.st.digest != nil {
		e.flushDigest()
	}
	return &Checkpoint{st: e.st.clone()}
}

// Restore replaces the engine's state with a copy of c, which stays
// reusable. c must come from an engine built from the same scenario.
func (e *Engine) Restore(c *Checkpoint) {
	e.slabs.stopRecycling()
	e.pending = e.pending[:0] // records past the checkpoint are taken back
	e.st = c.st.clone()
}

func (s *state) clone() state {
	c := *s
	c.q = s.q.clone()
	c.wires = s.wires.clone()
	c.cut = maps.Clone(s.cut)
	c.hosts = append([]slot(nil), s.hosts...)
	for i := range c.hosts {
		h := &c.hosts[i]
		if h.h != nil {
			h.h = h.h.Clone()
		}
		h.ticks = h.ticks.Clone()
		// Entries are plain values: copying the slices copies the state.
		h.fault.inbox = slices.Clone(h.fault.inbox)
		h.fault.deferred = slices.Clone(h.fault.deferred)
	}
	c.net = s.net.Clone()
	c.digest = cloneHash(s.digest)
	c.snapHash = cloneHash(s.snapHash)
	if s.monitor != nil {
		c.monitor = s.monitor.Clone()
	}
	return c
}

// cloneHash copies a running SHA-256 through its binary state, which the
// standard library guarantees to round-trip.
func cloneHash(h hash.Hash) hash.Hash {
	if h == nil {
		return nil
	}
	st, err := h.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		panic("engine: sha256 state: " + err.Error())
	}
	c := sha256.New()
	if err := c.(encoding.BinaryUnmarshaler).UnmarshalBinary(st); err != nil {
		panic("engine: sha256 state: " + err.Error())
	}
	return c
}
