package rafthost

import (
	"unsafe"

	pb "github.com/detsim/detsim/kinds/raft/rafthost/raftseam/raftpb"
)

// etcd's RawNode cannot be copied: it holds method values bound to
// itself and has no Clone. So a clone (the engine's checkpoints, the
// stepper's time travel) is rebuilt by replay: the host keeps every
// input it was given since New — starts, ticks, deliveries as their
// wire bytes, timers, send failures — and a clone, the first time it is
// used, builds a fresh host from the same declaration and runs those
// inputs again, recording and sending nothing. Same inputs, same
// election draws (entropy.go), same state. A clone costs nothing until
// it is used; a restored checkpoint pays one replay of the life so far.
//
// The log holds a delivery's bytes for as long as the host lives, and a
// run of evenly spaced ticks as one entry, so an idle host's log does
// not grow.

// inputOp is what a host was asked to do.
type inputOp uint8

const (
	opStart inputOp = iota + 1
	opTick
	opDeliver
	opTimer
	opFailed
)

// input is one call: a start (resumed or not), a tick, a delivery from
// peer with message id id, a timer with token id, or a failed send to
// peer. A logged tick stands for n ticks, step apart from now.
type input struct {
	op      inputOp
	resumed bool
	now     int64
	peer    int
	id      uint64
	wire    []byte      // a delivery's bytes
	msg     *pb.Message // the delivery decoded, for the call itself; never logged
	n, step int64
}

// describe names the call for a raft_panic record.
func (in input) describe(h *host) string {
	switch in.op {
	case opStart:
		if in.resumed {
			return "restart"
		}
		return "start"
	case opTick:
		return "tick"
	case opDeliver:
		if m, err := decode(in.wire); err == nil {
			return m.GetType().String() + " from " + h.peers[in.peer]
		}
		return "delivery from " + h.peers[in.peer]
	case opTimer:
		if in.id&tokMask == tokDisk {
			return "fsync completion"
		}
		return "client timer"
	case opFailed:
		return "send to " + h.peers[in.peer] + " failed"
	}
	return "call"
}

// inputLog is a host's inputs, in chunks so that it grows without
// copying what it holds. Entries below frozen are shared with a clone
// and never changed again; a clone's view of the last chunk ends where
// the log ended when it was shared, so appending after it is safe.
type inputLog struct {
	chunks [][]input
	n      int
	frozen int
}

// chunkLen is the entries of one chunk.
const chunkLen = 1024

func (l *inputLog) last() *input {
	c := l.chunks[len(l.chunks)-1]
	return &c[len(c)-1]
}

func (l *inputLog) add(in input) {
	in.msg = nil
	if in.op == opTick {
		if l.n > l.frozen && l.last().op == opTick {
			last := l.last()
			switch {
			case last.n == 1 && in.now > last.now:
				last.n, last.step = 2, in.now-last.now
				return
			case last.n > 1 && in.now == last.now+last.n*last.step:
				last.n++
				return
			}
		}
		in.n = 1
	}
	if k := len(l.chunks) - 1; k >= 0 && len(l.chunks[k]) < chunkLen {
		l.chunks[k] = append(l.chunks[k], in)
	} else {
		l.chunks = append(l.chunks, append(make([]input, 0, chunkLen), in))
	}
	l.n++
}

// each calls f with every input in order.
func (l *inputLog) each(f func(in input)) {
	for _, c := range l.chunks {
		for _, in := range c {
			f(in)
		}
	}
}

// share freezes the log and returns a view of it for a clone.
func (l *inputLog) share() inputLog {
	l.frozen = l.n
	v := inputLog{chunks: make([][]input, len(l.chunks)), n: l.n, frozen: l.n}
	for i, c := range l.chunks {
		v.chunks[i] = c[:len(c):len(c)]
	}
	return v
}

// lazyClone is a host that will rebuild h's state when first used.
func (h *host) lazyClone() *host {
	return &host{id: h.id, self: h.self, peers: h.peers, cfg: h.cfg, elect0: h.elect0, salt: h.salt, in: h.in.share(), lazy: true}
}

// rebuild replays a lazy clone's inputs into a fresh host (a no-op on
// any other).
func (h *host) rebuild() {
	if !h.lazy {
		return
	}
	log := h.in
	*h = host{id: h.id, self: h.self, peers: h.peers, cfg: h.cfg, elect0: h.elect0, elect: h.elect0.Clone(), salt: h.salt,
		timerAt: -1, reqAt: -1, snapTo: make([]bool, len(h.peers)), open: make([]bool, len(h.peers)), replaying: true}
	log.each(func(in input) {
		for k := range max(in.n, 1) {
			one := in
			if in.op == opTick {
				one.now = in.now + k*in.step
			}
			h.acts = h.acts[:0]
			h.now = one.now
			h.run(one)
		}
	})
	h.replaying, h.acts, h.in = false, nil, log
}

// ApproxBytes estimates what a Clone holds for the engine's checkpoint
// budget. A clone holds a view of the input log, which the live host
// keeps anyway; a rebuilt host holds its disk.
func (h *host) ApproxBytes() int64 {
	if h.lazy {
		return 256 + int64(len(h.in.chunks))*24
	}
	b := int64(1024) + int64(len(h.in.chunks))*chunkLen*int64(unsafe.Sizeof(input{}))
	if h.d != nil {
		b += h.d.approxBytes()
	}
	return b
}
