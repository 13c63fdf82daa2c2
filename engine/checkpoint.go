package engine

import (
	"crypto/sha256"
	"encoding"
	"hash"
	"maps"
	"slices"
	"unsafe"

	"github.com/detsim/detsim/rng"
)

// Checkpoint is a frozen copy of an engine's whole mutable state: clock,
// queue, host table (each host deep-copied with Clone), network, running
// digest and streaming evaluator. Restoring it and stepping gives exactly
// what the original run gave from that point.
type Checkpoint struct {
	st    state
	bytes int64 // ApproxCheckpointBytes when it was taken
}

// Index is the step index the checkpoint was taken at.
func (c *Checkpoint) Index() int64 { return c.st.steps }

// Bytes is the checkpoint's estimated size (ApproxCheckpointBytes).
func (c *Checkpoint) Bytes() int64 { return c.bytes }

// Sizer is implemented by hosts and monitors that can estimate how many
// bytes a Clone of them holds. The engine's checkpoint estimate asks it;
// a host kind without it is estimated from its snapshot's length.
type Sizer interface {
	ApproxBytes() int64
}

// ApproxCheckpointBytes estimates how much memory a Checkpoint taken now
// would hold: the queue, the wire bytes it keeps alive, every host's
// state (Sizer, else its snapshot's length plus a kilobyte), the network
// (its flows and edge table) and the streaming evaluator (Sizer, else a
// kilobyte). It is an estimate from lengths and capacities, deterministic
// and cheap next to the copy itself; tests hold it against the heap a
// checkpoint actually takes.
func (e *Engine) ApproxCheckpointBytes() int64 {
	s := &e.st
	b := int64(unsafe.Sizeof(*s)) + 1024 // the two running hashes, the struct
	b += int64(cap(s.q.rest.items)+cap(s.q.ticks.items)) * int64(unsafe.Sizeof(entry{}))
	b += int64(len(s.wires.slots)) * (int64(unsafe.Sizeof(wire{})) + 4)
	for i := range s.wires.slots {
		b += int64(s.wires.slots[i].size) // the slabs (or values) a checkpoint keeps alive hold at least this
	}
	b += int64(len(s.cut)) * 48
	b += int64(len(s.hosts)) * (int64(unsafe.Sizeof(slot{})) + int64(unsafe.Sizeof(rng.Stream{})))
	for i := range s.hosts {
		switch h := s.hosts[i].h.(type) {
		case nil:
		case Sizer:
			b += h.ApproxBytes()
		default:
			b += int64(len(h.Snapshot())) + 1024
		}
	}
	if s.net != nil {
		b += s.net.ApproxBytes()
	}
	if m, ok := s.monitor.(Sizer); ok {
		b += m.ApproxBytes()
	} else if s.monitor != nil {
		b += 1024
	}
	return b
}

// Checkpoint copies the engine's state. It is only valid for engines
// without a Writer: records already on disk cannot be taken back.
func (e *Engine) Checkpoint() *Checkpoint { return e.checkpoint(e.ApproxCheckpointBytes()) }

// checkpoint is Checkpoint with the size already estimated.
func (e *Engine) checkpoint(bytes int64) *Checkpoint {
	e.slabs.stopRecycling() // the checkpoint shares the slabs
	if e.st.digest != nil {
		e.flushDigest()
	}
	return &Checkpoint{st: e.st.clone(), bytes: bytes}
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
