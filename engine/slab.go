package engine

// slabSize is how much wire-byte space the engine allocates at a time.
// Queued messages are sub-slices of slabs, so sending costs no allocation
// per message.
const slabSize = 64 << 10

// slabs hands out wire-byte space and, while the engine has never been
// checkpointed, recycles a slab once every message in it has popped: a
// long run then allocates no wire bytes at all after warming up, and the
// garbage collector, which otherwise runs constantly on a busy mesh,
// mostly rests. A checkpoint shares slabs with the live engine (their
// bytes are immutable), so the first Checkpoint or Restore stops
// recycling for good and leaves freeing to the collector.
type slabs struct {
	cur     []byte   // the slab being filled
	curID   int32    // its id
	all     [][]byte // every slab by id (full capacity)
	live    []int32  // messages still queued, per slab id
	free    []int32  // ids of empty slabs ready for reuse
	recycle bool
}

func newSlabs() slabs { return slabs{curID: -1, recycle: true} }

// room makes sure the current slab has at least n bytes free.
func (s *slabs) room(n int) {
	if s.curID >= 0 && cap(s.cur)-len(s.cur) >= n {
		return
	}
	if s.curID >= 0 {
		s.release(s.curID) // the current slab stops being current
	}
	if k := len(s.free); k > 0 && s.recycle {
		s.curID = s.free[k-1]
		s.free = s.free[:k-1]
		s.cur = s.all[s.curID][:0]
		s.live[s.curID] = 1 // held by being current
		return
	}
	buf := make([]byte, 0, slabSize)
	if s.recycle {
		s.all = append(s.all, buf)
		s.live = append(s.live, 1)
		s.curID = int32(len(s.all) - 1)
	} else {
		s.curID = 0 // any non-negative id: nothing is tracked any more
	}
	s.cur = buf
}

// claim records that n more bytes of the current slab hold a queued
// message and returns the slab's id (-1 when untracked).
func (s *slabs) claim(n int) int32 {
	s.cur = s.cur[:len(s.cur)+n]
	if !s.recycle {
		return -1
	}
	s.live[s.curID]++
	return s.curID
}

// release drops one reference to slab id; an unreferenced slab is free.
func (s *slabs) release(id int32) {
	if id < 0 || !s.recycle {
		return
	}
	if s.live[id]--; s.live[id] == 0 {
		s.free = append(s.free, id)
	}
}

// stopRecycling is called before the first checkpoint or restore.
func (s *slabs) stopRecycling() {
	s.recycle = false
	s.all, s.live, s.free = nil, nil, nil
}
