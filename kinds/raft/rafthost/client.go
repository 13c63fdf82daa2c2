package rafthost

import (
	"errors"
	"strconv"
	"strings"

	etcd "github.com/detsim/detsim/kinds/raft/rafthost/raftseam"
	pb "github.com/detsim/detsim/kinds/raft/rafthost/raftseam/raftpb"
)

// The client beside each peer issues the puts of its kind_config: the
// proposals timeline and the load. A put for the peer itself is
// proposed there (RawNode.Propose, as etcd's server proposes a client's
// request); one for another member crosses the network as the MsgProp
// raft forwards proposals in, so a partition between the client's
// machine and that member loses it. The client does not retry: a put
// raft drops is a proposal_dropped record and nothing more. Puts due
// while the peer is down are never issued (its clients could not
// connect); a restarted life resumes with the first one due at or after
// its start.

// firstAt is the sequence number of the load's first put at or after
// now (0 for no load).
func (l *load) firstAt(now int64) int64 {
	if l == nil || now <= l.from {
		return 0
	}
	return (now - l.from + l.every - 1) / l.every
}

// nextClientAt is when the client's next put is due, -1 if never.
func (h *host) nextClientAt() int64 {
	at := int64(-1)
	if h.nextProp < len(h.cfg.proposals) {
		at = h.cfg.proposals[h.nextProp].at
	}
	if l := h.cfg.load; l != nil {
		if t := l.from + h.loadSeq*l.every; t < l.until && (at < 0 || t < at) {
			at = t
		}
	}
	return at
}

// armClient arms the client's timer for its next put, unless one is
// armed already (it re-arms when it fires).
func (h *host) armClient(now int64) {
	if h.timerAt >= 0 || h.dead != "" {
		return
	}
	at := h.nextClientAt()
	if at < 0 {
		return
	}
	h.timerAt = at
	h.arm(max(at, now), tokClient)
}

// issue sends every put due at now, in time order (the timeline's first
// at equal times).
func (h *host) issue(now int64) {
	for {
		at := h.nextClientAt()
		if at < 0 || at > now {
			return
		}
		if h.nextProp < len(h.cfg.proposals) && h.cfg.proposals[h.nextProp].at == at {
			p := h.cfg.proposals[h.nextProp]
			h.nextProp++
			h.propose(p.key, p.value, p.to)
			continue
		}
		l := h.cfg.load
		seq := h.loadSeq
		h.loadSeq++
		h.propose("k"+strconv.FormatInt(seq%l.keys, 10), loadValue(seq, l.valueBytes), l.to)
	}
}

// loadValue is the value of the load's put seq: its number, padded to
// n bytes with '.', so a value names the put that wrote it.
func loadValue(seq, n int64) string {
	s := "v" + strconv.FormatInt(seq, 10)
	if int64(len(s)) >= n {
		return s[:n]
	}
	return s + strings.Repeat(".", int(n)-len(s))
}

// propose issues one put.
func (h *host) propose(key, value, to string) {
	h.reqs++
	h.proposeReq(h.id+"#"+strconv.FormatUint(h.reqs, 10), key, value, to)
}

// proposeReq proposes put req; the reason raft dropped it at once, ""
// when it did not (yet).
func (h *host) proposeReq(req, key, value, to string) string {
	data := encodeCommand(req, key, value)
	if to == "" {
		to = h.id
	}
	h.record(h.proposals.add(proposalEv{req: req, to: to, key: key, bytes: len(data)}))
	if to != h.id {
		h.send(pb.NewProp(h.self, h.peerID(to), data))
		return ""
	}
	// During a slow save raft takes it into its log all the same, and the
	// Ready after the save carries it.
	if err := h.locked(rawPropose, data); errors.Is(err, etcd.ErrProposalDropped) {
		reason := h.dropReason()
		h.record(&dropped{req: req, reason: reason})
		return reason
	}
	return ""
}

// peerID is the raft id of declared peer id.
func (h *host) peerID(id string) uint64 {
	for i, p := range h.peers {
		if p == id {
			return uint64(i) + 1
		}
	}
	panic("rafthost: put to undeclared peer " + id) // Validate refused it
}
