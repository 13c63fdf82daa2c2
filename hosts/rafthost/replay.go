package rafthost

import (
	"unsafe"

	pb "go.etcd.io/raft/v3/raftpb"
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
	wire    []byte      // a delivery's bytes; a failed send's reason
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

// inputLog is a host's inputs. Entries below frozen are shared with a
// clone and never changed again.
type inputLog struct {
	ins    []input
	frozen int
}

func (l *inputLog) add(in input) {
	in.msg = nil
	if in.op == opTick {
		if k := len(l.ins) - 1; k >= l.frozen && k >= 0 && l.ins[k].op == opTick {
			last := &l.ins[k]
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
	l.ins = append(l.ins, in)
}

// share freezes the log and returns a view of it for a clone.
func (l *inputLog) share() inputLog {
	l.frozen = len(l.ins)
	return inputLog{ins: l.ins[:len(l.ins):len(l.ins)], frozen: len(l.ins)}
}

// lazyClone is a host that will rebuild h's state when first used.
func (h *host) lazyClone() *host {
	return &host{id: h.id, self: h.self, peers: h.peers, cfg: h.cfg, elect0: h.elect0, in: h.in.share(), lazy: true}
}

// rebuild replays a lazy clone's inputs into a fresh host (a no-op on
// any other).
func (h *host) rebuild() {
	if !h.lazy {
		return
	}
	log := h.in
	*h = host{id: h.id, self: h.self, peers: h.peers, cfg: h.cfg, elect0: h.elect0, elect: h.elect0.Clone(),
		timerAt: -1, snapTo: make([]bool, len(h.peers)), replaying: true}
	for _, in := range log.ins {
		n := max(in.n, 1)
		for k := range n {
			one := in
			if in.op == opTick {
				one.now = in.now + k*in.step
			}
			h.acts = h.acts[:0]
			h.run(one)
		}
	}
	h.replaying, h.acts, h.in = false, nil, log
}

// ApproxBytes estimates what a Clone holds for the engine's checkpoint
// budget. A clone holds a view of the input log, which the live host
// keeps anyway; a rebuilt host holds its disk.
func (h *host) ApproxBytes() int64 {
	if h.lazy {
		return 256 + int64(len(h.in.ins))*8
	}
	b := int64(1024) + int64(len(h.in.ins))*int64(unsafe.Sizeof(input{}))
	if h.d != nil {
		b += h.d.approxBytes()
	}
	return b
}
