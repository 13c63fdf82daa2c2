package network

import (
	"testing"

	"github.com/detsim/detsim/rng"
)

// The reliable path (docs/network.md, "The reliable path"; docs/decisions.md).

func TestSendReliable_NeverLostAndPaysTheHandshake(t *testing.T) {
	fwd := quiet()
	fwd.LatencyNs = 30 * ms
	fwd.LossProbPPM = 1_000_000 // every datagram is lost
	fwd.ReorderProbPPM = 1_000_000
	back := quiet()
	back.LatencyNs = 50 * ms
	links := []Link{
		{Edge: Edge{From: "a", To: "b"}, Policy: fwd},
		{Edge: Edge{From: "b", To: "a"}, Policy: back},
	}
	n := New([]string{"a", "b"}, links, rng.New(1))
	if o, _ := n.Send(0, 1, 100, 0); o.Arrived || o.Reason != Lossy {
		t.Fatalf("datagram = %+v, want Drop(lossy)", o)
	}
	before := position(t, n, "a", "b")
	o, _ := n.SendReliable(0, 1, 100, s, true)
	// 100 bytes at 1 B/ns, then a→b's 30 ms, plus the handshake: a→b 30 ms
	// and b→a 50 ms. No reorder delay, though the policy always reorders.
	if got, want := mustArrive(t, o), s+100+30*ms+30*ms+50*ms; got != want {
		t.Errorf("reliable arrival = %d, want %d", got, want)
	}
	if d := position(t, n, "a", "b") - before; d != 1 {
		t.Errorf("reliable send made %d draws, want 1 (jitter)", d)
	}
	// A reply on the stream b→a pays no handshake.
	o, _ = n.SendReliable(1, 0, 10, 2*s, false)
	if got, want := mustArrive(t, o), 2*s+10+50*ms; got != want {
		t.Errorf("reply arrival = %d, want %d", got, want)
	}
}

func TestSendReliable_PartitionAndNoWayBackRefuse(t *testing.T) {
	links := []Link{
		{Edge: Edge{From: "a", To: "b"}, Policy: quiet()},
		{Edge: Edge{From: "b", To: "a"}, Policy: quiet()},
		{Edge: Edge{From: "a", To: "c"}, Policy: quiet()},
	}
	n := New([]string{"a", "b", "c"}, links, rng.New(1))
	if o, _ := n.SendReliable(0, 2, 10, 0, true); o.Arrived || o.Reason != NoRoute {
		t.Errorf("a→c with no c→a = %+v, want Drop(no_route): the handshake needs the way back", o)
	}
	if o, _ := n.SendReliable(0, 2, 10, 0, false); !o.Arrived {
		t.Errorf("a→c without handshake = %+v, want arrival", o)
	}
	n.ApplyMutation(&Mutation{Kind: Partition, PeersA: []string{"a"}, PeersB: []string{"b"}}, s)
	if o, _ := n.SendReliable(0, 1, 10, s, true); o.Arrived || o.Reason != Partitioned {
		t.Errorf("across a partition = %+v, want Drop(partitioned)", o)
	}
	if p := position(t, n, "a", "b"); p != 0 {
		t.Errorf("refused reliable sends made %d draws, want 0", p)
	}
}

func TestSendReliable_SharesTheWireWithDatagrams(t *testing.T) {
	p := quiet()
	p.BandwidthBps = 1000 // 1 byte per ms
	n := newMesh([]string{"a", "b"}, p)
	mustArrive(t, first(n.Send(0, 1, 500, 0))) // on the wire until 500 ms
	o, _ := n.SendReliable(0, 1, 100, 0, true)
	// Serialises 500–600 ms behind the datagram, then 10 ms + handshake 20 ms.
	if got, want := mustArrive(t, o), 600*ms+10*ms+20*ms; got != want {
		t.Errorf("reliable behind a datagram arrives %d, want %d", got, want)
	}
	o, _ = n.Send(0, 1, 100, 0)
	if got, want := mustArrive(t, o), 700*ms+10*ms; got != want {
		t.Errorf("datagram behind the reliable send arrives %d, want %d", got, want)
	}
}

func TestSendReliable_InFlightIsCutLikeADatagram(t *testing.T) {
	n := newMesh([]string{"a", "b"}, quiet())
	o, _ := n.SendReliable(0, 1, 10, 0, true)
	mustArrive(t, o)
	cut, _ := n.ApplyMutation(&Mutation{Kind: PeerKill, Peer: "b"}, ms)
	if len(cut) != 1 || cut[0].ID != o.ID || cut[0].Reason != PeerKilled {
		t.Errorf("PeerKill cut %+v, want the reliable delivery %d (peer_killed)", cut, o.ID)
	}
}

// A stream delivers in order: jitter that would let a later datagram
// overtake an earlier one on the same edge never lets a later reliable
// send arrive before an earlier one, and the data sent right after a
// handshake waits for the data that opened the stream.
func TestSendReliable_ArrivesInOrder(t *testing.T) {
	p := quiet()
	p.JitterStddevNs = 5 * ms // half the latency: sends 1 ms apart often invert
	dgram, strm := newMesh([]string{"a", "b"}, p), newMesh([]string{"a", "b"}, p)
	var inversions int
	var lastD, lastS int64
	for i := range int64(200) {
		at := i * ms
		d := mustArrive(t, first(dgram.Send(0, 1, 10, at)))
		if d < lastD {
			inversions++
		}
		lastD = d
		o, _ := strm.SendReliable(0, 1, 10, at, i == 0)
		if got := mustArrive(t, o); got < lastS {
			t.Fatalf("reliable send %d arrives at %d, before the one sent before it (%d)", i, got, lastS)
		} else {
			lastS = got
		}
	}
	if inversions == 0 {
		t.Fatal("no datagram overtook another: the policy does not exercise the order")
	}
}
