package node

import (
	"math"
	"slices"
)

// The replay window: every keyed datagram carries its sender's sequence
// number inside the tag, and a receiver accepts each (sender, sequence
// number) once. A captured datagram sent again is a packet_dropped
// "replay" (before, 194,718 re-sent datagrams were all taken, answered
// and logged).
//
// The sequence number is a timestamp — the sender's wall clock in Unix
// nanoseconds, raised by one whenever the clock has not moved past the
// last one sent — not a counter. A counter restarts at zero with its
// process (a resurrected peer, a restarted swimd), and every receiver
// would refuse the new life's datagrams as replays until it passed the
// old life's count; a timestamp keeps rising across restarts with
// nothing stored. The price is that members' clocks must agree within
// ReplayWindowNs: a receiver refuses ("stale") a sequence number further
// than that from its own clock, which also bounds what it must remember
// and refuses replays after the receiver itself restarted. Loopback runs
// and the kernel testbed share one clock.
const (
	// ReplayWindowNs is how far a sequence number may be from the
	// receiver's clock: far above what the library's links hold a
	// datagram for (250 ms at most) and clock skew between machines kept
	// by NTP. A datagram a live run's shaper holds longer (a RelayBuffer
	// floor over a minute) arrives stale and is dropped.
	ReplayWindowNs = int64(60e9)
	// replayPerSender is how many accepted sequence numbers a receiver
	// keeps per sender. When it is full the oldest goes and becomes the
	// sender's floor: nothing at or below it is accepted again. Only a
	// datagram overtaken by this many later ones from the same sender is
	// lost to it.
	replayPerSender = 128
)

// replay is one node's memory of accepted sequence numbers.
type replay struct {
	maxSenders int
	senders    map[string]*seen
}

type seen struct {
	floor uint64   // nothing at or below is accepted
	seqs  []uint64 // accepted, above floor, ascending
}

func newReplay(maxSenders int) *replay {
	return &replay{maxSenders: maxSenders, senders: map[string]*seen{}}
}

// check accepts seq from sender at the receiver's wall-clock time now
// (Unix ns) and returns "", or the drop reason.
func (r *replay) check(sender string, seq uint64, now int64) string {
	lo, hi := satSub(now, ReplayWindowNs), satAdd(now, ReplayWindowNs)
	if seq > math.MaxInt64 || int64(seq) < lo || int64(seq) > hi {
		return ReasonStale
	}
	s := r.senders[sender]
	if s == nil {
		if len(r.senders) >= r.maxSenders {
			r.forget(lo)
		}
		if len(r.senders) >= r.maxSenders {
			return ReasonSenders
		}
		s = &seen{}
		r.senders[sender] = s
	}
	if seq <= s.floor {
		return ReasonReplay
	}
	i, found := slices.BinarySearch(s.seqs, seq)
	if found {
		return ReasonReplay
	}
	s.seqs = slices.Insert(s.seqs, i, seq)
	if len(s.seqs) > replayPerSender {
		s.floor = s.seqs[0]
		s.seqs = slices.Delete(s.seqs, 0, 1)
	}
	return ""
}

// forget drops the senders whose every accepted sequence number is below
// lo, where the clock window refuses anything they could replay.
func (r *replay) forget(lo int64) {
	for id, s := range r.senders { // deleting while ranging is defined; order is irrelevant
		last := s.floor
		if n := len(s.seqs); n > 0 {
			last = s.seqs[n-1]
		}
		if int64(last) < lo {
			delete(r.senders, id)
		}
	}
}

func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

func satSub(a, b int64) int64 {
	if a < math.MinInt64+b {
		return math.MinInt64
	}
	return a - b
}

// sequencer hands out a sender's sequence numbers: its wall clock in Unix
// nanoseconds, strictly increasing.
type sequencer struct{ last uint64 }

func (q *sequencer) next(now int64) uint64 {
	q.last = max(q.last+1, uint64(max(now, 0)))
	return q.last
}
