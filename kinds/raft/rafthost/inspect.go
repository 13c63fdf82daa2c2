package rafthost

import (
	"reflect"

	"github.com/detsim/detsim/internal/jsonw"
)

// The stepper's look at what etcd's raft keeps to itself (issue 30 item
// 7): how many ticks a member has waited for its leader and the
// randomized election timeout it waits against. raft.Status exports
// neither, and the timeout is drawn inside raft (entropy.go serves the
// draw but sees only bytes; crypto/rand turns them into a number by
// rejection). So Inspect reads the two fields where raft holds them,
// RawNode.raft.electionElapsed and .randomizedElectionTimeout, read-only
// through reflect: no record, no change to the run or its bundle, and
// when a raft version renames them the pane says it cannot tell rather
// than guess (docs/raft.md, "The stepper's pane").

// electionView is what Inspect reports of a member's election clock.
type electionView struct {
	ok               bool
	elapsed, timeout int64 // ticks; timeout the randomized one
	base, heartbeat  int64 // ticks: the configured election and heartbeat timeouts
	heartbeatElapsed int64
}

// election reads h's election clock from its RawNode; ok false for a
// host that is down or a raft that names the fields otherwise.
func (h *host) election() electionView {
	if h.node == nil {
		return electionView{}
	}
	r := reflect.ValueOf(h.node).Elem().FieldByName("raft")
	if r.Kind() != reflect.Pointer || r.IsNil() {
		return electionView{}
	}
	r = r.Elem()
	num := func(name string) (int64, bool) {
		f := r.FieldByName(name)
		if !f.IsValid() || !f.CanInt() {
			return 0, false
		}
		return f.Int(), true
	}
	var v electionView
	var ok [5]bool
	v.elapsed, ok[0] = num("electionElapsed")
	v.timeout, ok[1] = num("randomizedElectionTimeout")
	v.base, ok[2] = num("electionTimeout")
	v.heartbeat, ok[3] = num("heartbeatTimeout")
	v.heartbeatElapsed, ok[4] = num("heartbeatElapsed")
	v.ok = ok == [5]bool{true, true, true, true, true}
	return v
}

// DescribeTimer is hosts.Inspector: a raft host's timers are its
// clients' and its disk's, which the event log already names.
func (h *host) DescribeTimer(token uint64) string {
	switch token & tokMask {
	case tokClient:
		return "the client's next put"
	case tokDisk:
		return "a durable write completes"
	case tokRequest:
		return "a client request is due"
	}
	return ""
}

// Inspect is hosts.Inspector: {"election": {elapsed, timeout, base,
// heartbeat, heartbeat_elapsed}} in ticks, timeout the randomized
// election timeout raft drew at the member's last reset; {} for a host
// that is down or whose raft hides the fields.
func (h *host) Inspect(int) []byte {
	h.rebuild()
	v := h.election()
	if !v.ok {
		return []byte("{}")
	}
	b := []byte(`{"election":{`)
	for i, f := range [...]struct {
		k string
		v int64
	}{{"elapsed", v.elapsed}, {"timeout", v.timeout}, {"base", v.base}, {"heartbeat", v.heartbeat}, {"heartbeat_elapsed", v.heartbeatElapsed}} {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonw.AppendInt(jsonw.AppendKey(b, f.k), f.v)
	}
	return append(b, "}}"...)
}
