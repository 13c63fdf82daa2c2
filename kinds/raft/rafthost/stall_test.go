package rafthost_test

import (
	"strconv"
	"strings"
	"testing"
)

// TestTransport_DatagramStallsStreamCatchesUp: two followers cut off
// for 3 s under load rejoin. Over etcd's streams (the default) every
// member reaches the same applied index, and each pair's messages
// arrive in the order they were sent; over datagrams the leader's
// catch-up MsgApp is over what a datagram can carry, refused as
// too_large again and again, and the two stay where the partition left
// them while the others go on (docs/raft.md, "The transport").
func TestTransport_DatagramStallsStreamCatchesUp(t *testing.T) {
	applied := func(rs *records) map[string]int64 {
		out := map[string]int64{}
		for _, r := range rs.of("apply", "") {
			out[r.Host] = r.Num("index")
		}
		return out
	}
	stream, _ := run(t, loadLibrary(t, "raft/stream_catch_up"))
	got := applied(stream)
	lead := got["n1"]
	for _, m := range []string{"n2", "n3", "n4", "n5"} {
		if got[m] < lead-2 {
			t.Errorf("stream: %s applied up to %d, the leader %d: it did not catch up", m, got[m], lead)
		}
	}
	if lead < 2000 {
		t.Errorf("stream: the leader applied only %d", lead)
	}
	if n := len(stream.of("drop_on_send", "")) - countReason(stream, "partitioned"); n > 0 {
		t.Errorf("stream: %d sends refused other than across the partition", n)
	}
	// Per pair, message ids (increasing at each sender) arrive in order.
	last := map[[2]string]int64{}
	for _, r := range stream.of("message_received", "") {
		k := [2]string{r.Str("peer"), r.Host}
		id := seq(r.Str("id"))
		if id < last[k] {
			t.Fatalf("stream: %s → %s delivered %s after #%d", k[0], k[1], r.Str("id"), last[k])
		}
		last[k] = id
	}

	dgram, _ := run(t, loadLibrary(t, "raft/datagram_stall"))
	got = applied(dgram)
	for _, m := range []string{"n4", "n5"} {
		if got[m] > 1000 || got["n1"]-got[m] < 1000 {
			t.Errorf("datagram: %s applied up to %d, the leader %d: want it stalled near 800", m, got[m], got["n1"])
		}
	}
	if countReason(dgram, "too_large") == 0 {
		t.Error("datagram: no send refused as too_large")
	}
}

func countReason(rs *records, reason string) int {
	n := 0
	for _, r := range rs.of("drop_on_send", "") {
		if r.Str("reason") == reason {
			n++
		}
	}
	return n
}

// seq is the number of a message id "<host>#<n>".
func seq(id string) int64 {
	n, _ := strconv.ParseInt(id[strings.LastIndexByte(id, '#')+1:], 10, 64)
	return n
}
