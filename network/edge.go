package network

import (
	"github.com/detsim/detsim/internal/checked"
	"github.com/detsim/detsim/rng"
)

// edgeState is one declared directed edge: its endpoints, its policy and
// where its state lives. It holds no pointers and takes 16 bytes, so a
// thousand-peer mesh's million edges are one small block the garbage
// collector never scans; the per-link state of spec §5.3 (as amended by
// DESIGN §4) lives in an edgeFlow, made on the edge's first use.
type edgeState struct {
	from, to int32
	policy   int32 // index into Network.policies
	flow     int32 // 1 + index into Network.flows once the edge is used; 0 before
}

// edgeFlow is the state of an edge that has carried a send or a timed
// effect, or been cut by a partition. An edge without one is Cold, has
// never sent, is not partitioned and has nothing in flight. A nil
// *edgeFlow reads as that.
type edgeFlow struct {
	stream rng.Stream // valid once drawn
	drawn  bool       // the substream has been derived (Network.draws)

	state        CacheState
	partitioned  bool  // an active Partition cuts this edge
	effected     bool  // listed in Network.effected
	warmingSince int64 // meaningful while state == Warming
	lastSendNs   int64 // sent_at of the last send that returned Arrive
	// lastSerializationEndNs is when the link finishes putting the last
	// accepted message on the wire; the next message starts no earlier.
	// With a token bucket (burst_bytes) it is when the bucket is full
	// again: the wire's end had every message been serialised (occupy).
	lastSerializationEndNs int64
	// lastStreamArrivalNs is when the last reliable send on the edge
	// arrives: a stream delivers in order, so none arrives before it
	// (docs/network.md, "The reliable path").
	lastStreamArrivalNs int64

	effects  []effect   // timed mutations in the order they were applied
	inFlight []delivery // accepted sends not yet past their arrival, by id
}

// delivery is one accepted send the engine has scheduled.
type delivery struct {
	id     uint64
	at     int64
	dialed bool
}

// effect is a LatencySpike, LossBurst or RelayBuffer active on the edge
// during [start, until). value is FactorX100, ProbPPM or FloorNs.
type effect struct {
	kind         MutationKind
	start, until int64
	value        int64
}

// sanitize clamps a policy into the ranges the algorithm can compute with,
// so a loader bug degrades a run instead of panicking it: negative values
// become 0 (for the send buffer: no limit; for the MTU: the IP model
// off), the jitter stddev is capped at rng.MaxNormalStddev and a
// positive MTU is clamped into [MinMTUBytes, MaxMTUBytes].
// A non-positive bandwidth is kept and means "infinitely slow" (every
// non-empty message saturates its arrival time).
func sanitize(p Policy) Policy {
	nonNeg := func(v *int64) {
		if *v < 0 {
			*v = 0
		}
	}
	nonNeg(&p.LatencyNs)
	nonNeg(&p.JitterStddevNs)
	nonNeg(&p.LossProbPPM)
	nonNeg(&p.ReorderProbPPM)
	nonNeg(&p.ColdDialPenaltyNs)
	nonNeg(&p.CacheWarmAfterNs)
	nonNeg(&p.CacheInvalidateAfterIdleNs)
	nonNeg(&p.SendBufferBytes) // 0: no limit
	nonNeg(&p.BurstBytes)      // 0: a serialising wire
	p.JitterStddevNs = min(p.JitterStddevNs, rng.MaxNormalStddev)
	p.MTUBytes = sanitizeMTU(p.MTUBytes)
	return p
}

// flowBlock is how many flows one block of a flowStore holds at most.
const flowBlock = 1024

// flowStore holds the flows of the edges in use, in order of first use,
// in blocks of flowBlock: a thousand-peer run puts a hundred thousand
// edges to use, and one slice re-copied them all (pointers and all, under
// write barriers) each time it grew. Only the last block grows by
// appending; a small run's flows fit in a small first block.
type flowStore struct {
	blocks [][]edgeFlow // every block but the last holds flowBlock flows
	n      int32
}

// at returns flow i (0-based).
func (s *flowStore) at(i int32) *edgeFlow {
	u := uint32(i) // unsigned: the division and remainder become a shift and a mask
	return &s.blocks[u/flowBlock][u%flowBlock]
}

// add makes a new, empty flow and returns its index.
func (s *flowStore) add() int32 {
	if s.n%flowBlock == 0 {
		s.blocks = append(s.blocks, nil)
	}
	last := len(s.blocks) - 1
	s.blocks[last] = append(s.blocks[last], edgeFlow{})
	s.n++
	return s.n - 1
}

// each calls fn with every flow in order.
func (s *flowStore) each(fn func(f *edgeFlow)) {
	for _, block := range s.blocks {
		for i := range block {
			fn(&block[i])
		}
	}
}

// clone returns a deep copy sharing no mutable state with s.
func (s *flowStore) clone() flowStore {
	c := flowStore{blocks: make([][]edgeFlow, len(s.blocks)), n: s.n}
	for b, block := range s.blocks {
		c.blocks[b] = make([]edgeFlow, len(block))
		for i := range block {
			c.blocks[b][i] = block[i].clone()
		}
	}
	return c
}

// active returns the most recently applied effect of kind active at t.
// Later mutations override earlier ones of the same kind while both are
// active; when the later one expires the earlier one governs again.
func (f *edgeFlow) active(kind MutationKind, t int64) (effect, bool) {
	if f == nil {
		return effect{}, false
	}
	for i := len(f.effects) - 1; i >= 0; i-- {
		ef := f.effects[i]
		if ef.kind == kind && ef.start <= t && t < ef.until {
			return ef, true
		}
	}
	return effect{}, false
}

// prune forgets deliveries that arrived before t and effects that expired
// by t. A delivery arriving exactly at t is kept: the engine may not have
// popped it yet. Callers pass nondecreasing times (the engine's clock).
func (f *edgeFlow) prune(t int64) {
	if len(f.inFlight) > 0 {
		kept := f.inFlight[:0]
		for _, d := range f.inFlight {
			if d.at >= t {
				kept = append(kept, d)
			}
		}
		f.inFlight = kept
	}
	if len(f.effects) > 0 {
		kept := f.effects[:0]
		for _, ef := range f.effects {
			if ef.until > t {
				kept = append(kept, ef)
			}
		}
		f.effects = kept
	}
}

// inFlightAt counts the deliveries that have not arrived before t.
func (f *edgeFlow) inFlightAt(t int64) int {
	if f == nil {
		return 0
	}
	c := 0
	for _, d := range f.inFlight {
		if d.at >= t {
			c++
		}
	}
	return c
}

// position is how many draws the edge has made (0 before its first).
func (f *edgeFlow) position() uint64 {
	if f == nil || !f.drawn {
		return 0
	}
	return f.stream.Position()
}

// clone returns a deep copy sharing no mutable state with f.
func (f *edgeFlow) clone() edgeFlow {
	c := *f
	c.effects = append([]effect(nil), f.effects...)
	c.inFlight = append([]delivery(nil), f.inFlight...)
	return c
}

// goCold drops the connection cache; it reports whether the state changed.
func (f *edgeFlow) goCold() bool {
	if f.state == Cold {
		return false
	}
	f.state = Cold
	f.warmingSince = 0
	return true
}

// idledOut is the DESIGN §4 idle rule: a non-Cold edge with no accepted
// send for more than cache_invalidate_after_idle_ns goes Cold. A zero
// idle limit means the cache never idles out.
func (f *edgeFlow) idledOut(p *Policy, now int64) bool {
	limit := p.CacheInvalidateAfterIdleNs
	return f.state != Cold && limit > 0 && checked.Sub(now, f.lastSendNs) > limit
}

// bufferFull is the send-buffer rule (DESIGN §8, docs/network.md step
// 2b): the bytes still queued on the wire at now, plus the wire bytes of
// the message offered (its headers included, as the queued count
// includes those of the messages ahead), must not exceed
// p.SendBufferBytes. A buffer of 0 is no limit (the loader never gives
// one). A refused message never reaches the wire, so it does not advance
// the backlog.
func (f *edgeFlow) bufferFull(p *Policy, wireBytes, now int64) bool {
	if p.SendBufferBytes <= 0 {
		return false
	}
	queued := queuedBytes(checked.Sub(f.lastSerializationEndNs, now), p.BandwidthBps)
	// A token bucket's tokens cover burst_bytes of that backlog: those
	// bytes have left; only the rest waits in the queue.
	queued = max(checked.Sub(queued, p.BurstBytes), 0)
	return checked.Add(queued, max(wireBytes, 0)) > p.SendBufferBytes
}

// occupy puts wireBytes offered at sentAt through the edge's rate limit
// (docs/network.md step 4) and returns when the message leaves it, its
// latency still to come. With burst_bytes 0 the edge is a serialising
// wire: a message starts when the one ahead ends and leaves when its own
// last byte is on the wire. With burst_bytes B it is a token bucket of
// depth B filling at the bandwidth, as Linux HTB shapes: a packet leaves
// as soon as the bucket holds tokens and is then charged its bytes,
// which may take the bucket below zero. A message is its packets (IP
// fragments or TCP segments, the last of lastUnitBytes), queued
// together; it has left when its last packet has. last_serialization_end
// is kept as the bucket's "full again" instant X: the first packet leaves
// at L = max(sent_at, X − B/rate), X grows by the message's bytes/rate
// as the wire's end would, and the last packet leaves at
// max(L, X_new − (lastUnitBytes + B)/rate), when the packets ahead of it
// are paid for down to the bucket's depth. A one-packet message on an
// idle edge leaves at once, whatever its size; an eleven-fragment
// datagram waits for ten fragments' worth of tokens beyond the bucket.
// Every message still leaves in the order it was sent.
func (f *edgeFlow) occupy(p *Policy, wireBytes, lastUnitBytes, sentAt int64) int64 {
	ser := serializationNs(wireBytes, p.BandwidthBps)
	if p.BurstBytes <= 0 {
		end := checked.Add(max(sentAt, f.lastSerializationEndNs), ser)
		f.lastSerializationEndNs = end
		return end
	}
	first := max(sentAt, checked.Sub(f.lastSerializationEndNs, serializationNs(p.BurstBytes, p.BandwidthBps)))
	f.lastSerializationEndNs = checked.Add(max(f.lastSerializationEndNs, first), ser)
	last := checked.Sub(f.lastSerializationEndNs, serializationNs(checked.Add(lastUnitBytes, p.BurstBytes), p.BandwidthBps))
	return max(first, last)
}

// reorderUnitNs is one "latency + jitter" unit of reorder delay.
func (p *Policy) reorderUnitNs() int64 {
	return checked.Add(p.LatencyNs, p.JitterStddevNs)
}

// cool is goCold keeping the count of flows that are not Cold.
func (n *Network) cool(f *edgeFlow) bool {
	if f.goCold() {
		n.notCold--
		return true
	}
	return false
}
