package rafthost

import (
	"encoding/binary"
	"strconv"
	"strings"

	etcd "github.com/detsim/detsim/kinds/raft/rafthost/raftseam"
)

// The clients of kind_config.clients (docs/raft.md, "Clients"): count
// sequential clients beside the member, each waiting for the answer to
// its operation, then every_ns, before the next. An operation is a put or
// a linearizable read of one of the keys every member's clients share,
// drawn from the host's client substream. Each is a client_invoke record
// and, unless the member's process ends first, a client_return: ok (a
// put applied here; a read's value), fail (raft refused the put; the
// leader changed under a read) or unknown (timeout_ns passed: the put
// may yet be applied). The linearizable oracle checks that history.
//
// Reads are served as etcd's server serves them (v3_server.go,
// linearizableReadLoop): the reads waiting when no round is in flight
// share one ReadIndex round, whose request id (the ReadIndex context) is
// the member's next; raft's ReadState for that id gives a read index, and
// the reads are answered from the store once the member has applied up
// to it. A round unanswered for read_retry_ns is sent again, with a
// fresh id or, retry = "reuse", the same one, as etcd did before
// etcd-io/etcd#21399; a ReadState for any other id is ignored, as etcd
// ignores an out-of-date one. A leader change fails the round's reads
// (etcd's ErrLeaderChanged).

// client is one sequential client in this life.
type client struct {
	seq      uint64 // operations issued
	req      string // the operation waiting for its answer ("": none)
	read     bool
	key      string
	deadline int64
	inRound  bool  // a read in the ReadIndex round in flight
	next     int64 // when idle: the next operation's time
}

// readRound is the ReadIndex round in flight.
type readRound struct {
	id        uint64 // the request id the last attempt carried
	sent      int64  // when it was last sent
	confirmed bool   // raft's ReadState for id came: index is the read index
	index     uint64
}

// clientKey is the i-th key the clients share.
func clientKey(i uint64) string { return "c" + strconv.FormatUint(i, 10) }

// isClientKey says whether a timeline put would write a clients' key.
func isClientKey(k string) bool {
	n, err := strconv.ParseUint(strings.TrimPrefix(k, "c"), 10, 64)
	return err == nil && k == clientKey(n)
}

// mix is splitmix64's finaliser: an operation's choices, from the
// client salt (the host's client substream), the client and its count.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// startClients begins this life's clients: whatever they were waiting
// for died with the process (the oracle counts it unknown).
func (h *host) startClients(now int64) {
	h.round, h.reqAt = nil, -1
	cs := h.cfg.clients
	if cs == nil {
		return
	}
	if h.cls == nil {
		h.cls = make([]client, cs.count)
	}
	for i := range h.cls {
		h.cls[i] = client{seq: h.cls[i].seq, next: max(cs.from, now)}
	}
}

// clientName names client i in records.
func (h *host) clientName(i int) string { return h.id + ".c" + strconv.Itoa(i) }

// dueClients does what the clients have due at now: timeouts, a
// ReadIndex retry, new operations.
func (h *host) dueClients(now int64) {
	cs := h.cfg.clients
	if cs == nil || h.dead != "" {
		return
	}
	for i := range h.cls {
		if c := &h.cls[i]; c.req != "" && c.deadline <= now {
			h.answer(i, now, resultUnknown, "", "timeout")
		}
	}
	if r := h.round; r != nil && !r.confirmed && now >= r.sent+cs.readRetry {
		if !cs.reuse {
			h.readIDs++
			r.id = h.readIDs
		}
		r.sent = now
		h.sendReadIndex(true)
	}
	for i := range h.cls {
		if c := &h.cls[i]; c.req == "" && c.next <= now && c.next < cs.until {
			h.invoke(i, now)
		}
	}
	h.startRound(now)
}

// nextRequestAt is when the clients next have something due, -1 if never.
func (h *host) nextRequestAt() int64 {
	cs := h.cfg.clients
	if cs == nil || h.dead != "" {
		return -1
	}
	at := int64(-1)
	earlier := func(t int64) {
		if at < 0 || t < at {
			at = t
		}
	}
	for _, c := range h.cls {
		switch {
		case c.req != "":
			earlier(c.deadline)
		case c.next < cs.until:
			earlier(c.next)
		}
	}
	if r := h.round; r != nil && !r.confirmed {
		earlier(r.sent + cs.readRetry)
	}
	return at
}

// armRequests arms the clients' timer for their next due time unless
// one is armed for it or earlier; a timer armed before a later re-arm
// fires stale and is ignored (its generation is not the current).
func (h *host) armRequests(now int64) {
	at := h.nextRequestAt()
	if at < 0 || h.reqAt >= 0 && h.reqAt <= at {
		return
	}
	h.reqGen++
	h.reqAt = at
	h.arm(max(at, now), tokRequest|h.reqGen&^tokMask)
}

// requestTimer is the clients' timer firing.
func (h *host) requestTimer(now int64, token uint64) {
	if token&^tokMask != h.reqGen&^tokMask {
		return
	}
	h.reqAt = -1
	h.dueClients(now)
}

// invoke issues client i's next operation.
func (h *host) invoke(i int, now int64) {
	cs := h.cfg.clients
	c := &h.cls[i]
	x := mix(h.salt ^ uint64(i)<<40 ^ c.seq)
	c.seq++
	h.reqs++
	req := h.id + "#" + strconv.FormatUint(h.reqs, 10)
	c.req, c.deadline = req, now+cs.timeout
	c.read = int64(x%100) < cs.readsPercent
	c.key = clientKey((x >> 8) % uint64(cs.keys))
	if c.read {
		h.record(&clientInvoke{client: h.clientName(i), req: req, op: clientRead, key: c.key})
		if h.cfg.bug == BugStaleRead {
			// The planted bug: the member's own store, no ReadIndex.
			h.answer(i, now, resultOK, h.d.kv[c.key], "")
		}
		return // startRound takes it
	}
	// A put's value is its request id: unique, so every read names
	// the put it saw.
	h.record(&clientInvoke{client: h.clientName(i), req: req, op: clientPut, key: c.key, value: req})
	if reason := h.proposeReq(req, c.key, req, h.id); reason != "" {
		h.answer(i, now, resultFail, "", reason)
	}
}

// startRound sends a ReadIndex for the reads waiting, when no round is
// in flight.
func (h *host) startRound(now int64) {
	if h.round != nil {
		return
	}
	n := 0
	for i := range h.cls {
		if c := &h.cls[i]; c.req != "" && c.read {
			c.inRound = true
			n++
		}
	}
	if n == 0 {
		return
	}
	h.readIDs++
	h.round = &readRound{id: h.readIDs, sent: now}
	h.sendReadIndex(false)
}

// sendReadIndex hands the round's request to raft.
func (h *host) sendReadIndex(retry bool) {
	n := 0
	for _, c := range h.cls {
		if c.inRound {
			n++
		}
	}
	h.record(&readIndexEv{id: h.round.id, reads: n, retry: retry})
	_ = h.locked(rawReadIndex, readCtx(h.self, h.round.id))
}

// readCtx is a ReadIndex request id as raft carries it: 8 bytes, the
// member's raft id above the count, as etcd's ids carry the member's.
func readCtx(self, id uint64) []byte {
	return binary.BigEndian.AppendUint64(nil, self<<48|id)
}

// readStates takes a Ready's ReadStates as etcd's raftNode does: the
// last one only.
func (h *host) readStates(rss []etcd.ReadState, now int64) {
	if len(rss) == 0 {
		return
	}
	rs := rss[len(rss)-1]
	r := h.round
	taken := r != nil && !r.confirmed && len(rs.RequestCtx) == 8 && binary.BigEndian.Uint64(rs.RequestCtx) == h.self<<48|r.id
	id := uint64(0)
	if len(rs.RequestCtx) == 8 {
		id = binary.BigEndian.Uint64(rs.RequestCtx) &^ (uint64(0xffff) << 48)
	}
	h.record(&readStateEv{id: id, index: rs.Index, taken: taken})
	if taken {
		r.confirmed, r.index = true, rs.Index
		h.serveReads(now)
	}
}

// serveReads answers the round's reads once the member has applied up
// to the read index, and starts the next round.
func (h *host) serveReads(now int64) {
	r := h.round
	if r == nil || !r.confirmed || h.d.applied < r.index {
		return
	}
	for i := range h.cls {
		if c := &h.cls[i]; c.inRound {
			h.answer(i, now, resultOK, h.d.kv[c.key], "")
		}
	}
	h.round = nil
	h.startRound(now)
}

// leaderChanged fails the reads of a round not yet confirmed, as etcd's
// read loop answers them ErrLeaderChanged.
func (h *host) leaderChanged(now int64) {
	r := h.round
	if r == nil || r.confirmed {
		return
	}
	for i := range h.cls {
		if h.cls[i].inRound {
			h.answer(i, now, resultFail, "", "leader_changed")
		}
	}
	h.round = nil
}

// putApplied answers the client whose put req the member applied.
func (h *host) putApplied(req string, now int64) {
	for i := range h.cls {
		if c := &h.cls[i]; c.req == req && !c.read {
			h.answer(i, now, resultOK, "", "")
			return
		}
	}
}

// answer ends client i's operation.
func (h *host) answer(i int, now int64, result, value, reason string) {
	c := &h.cls[i]
	h.record(&clientReturn{client: h.clientName(i), req: c.req, result: result, value: value, reason: reason})
	c.req, c.inRound = "", false
	c.next = now + h.cfg.clients.every
	if h.round != nil && !h.round.confirmed {
		for _, o := range h.cls {
			if o.inRound {
				return
			}
		}
		h.round = nil // every read it carried timed out
	}
}
