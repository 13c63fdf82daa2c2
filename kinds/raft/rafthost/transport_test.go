package rafthost

import (
	"testing"

	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/rng"
)

// TestSend_StreamDialsOnceAndAgainAfterItIsLost: over the stream
// transport (the default) a member's first message to a peer opens a
// stream (a handshake), the next go on it; a send the network refuses
// (partitioned) loses the connection, so the next message dials again,
// while a full send buffer drops the message alone, as rafthttp's full
// stream buffer does; a restart holds no connection. Over datagrams
// every message is a datagram. Each refusal reports the peer
// unreachable to raft either way.
func TestSend_StreamDialsOnceAndAgainAfterItIsLost(t *testing.T) {
	via := func(h *host) hosts.Transport {
		t.Helper()
		h.acts = h.acts[:0]
		h.send(&pb.Message{Type: pb.MsgHeartbeat.Enum(), To: ptr(uint64(2)), From: ptr(uint64(1)), Term: ptr(uint64(1))})
		for _, a := range h.acts {
			if a.Kind() == hosts.ActSend {
				return a.Transport()
			}
		}
		t.Fatal("no send")
		return 0
	}
	h := newHost("n1", map[string]any{}, "", declared, rng.New(1).Host("n1", "life")).(*host)
	h.start(0, false)
	steps := []struct {
		do   func()
		want hosts.Transport
		why  string
	}{
		{nil, hosts.StreamOpen, "the first message dials"},
		{nil, hosts.StreamReply, "the next goes on the open stream"},
		{func() { h.Recv(&hosts.SendFailed{To: "n2", Reason: "buffer_full"}, 1) }, hosts.StreamReply, "a full send buffer keeps the stream"},
		{func() { h.Recv(&hosts.SendFailed{To: "n2", Reason: "partitioned"}, 2) }, hosts.StreamOpen, "a refused send loses the stream"},
		{nil, hosts.StreamReply, "the new stream is open"},
		{func() { h.Started(3, true) }, hosts.StreamOpen, "a restarted process holds no stream"},
	}
	for i, s := range steps {
		if s.do != nil {
			s.do()
		}
		if got := via(h); got != s.want {
			t.Errorf("step %d (%s): transport %d, want %d", i, s.why, got, s.want)
		}
	}

	d := newHost("n1", map[string]any{"transport": "datagram"}, "", declared, rng.New(1).Host("n1", "life")).(*host)
	d.start(0, false)
	for range 2 {
		if got := via(d); got != hosts.Datagram {
			t.Errorf("datagram transport sent with %d", got)
		}
	}
}
