package network

import (
	"math"
	"testing"
)

// buffered is quiet() on a 1000 B/s wire (one byte per ms) with a
// 1000-byte send buffer: the buffer holds one second of wire time.
func buffered() Policy {
	p := quiet()
	p.BandwidthBps = 1000
	p.SendBufferBytes = 1000
	return p
}

func TestSend_FullSendBufferDropsWithBufferFull_5_4(t *testing.T) {
	// One sequence on one edge; each row depends on the ones before it.
	// Queued bytes at sent_at = ceil((last_serialization_end - sent_at) ×
	// bandwidth / 10⁹); a send fits when queued + its bytes <= the buffer.
	n := newMesh([]string{"a", "b"}, buffered())
	for _, tc := range []struct {
		name   string
		sentAt int64
		bytes  int64
		want   int64 // arrival; -1 for Drop(BufferFull)
	}{
		{"an idle wire takes a message", 0, 400, 410 * ms},
		{"filling the buffer exactly fits", 0, 600, 1010 * ms},
		{"one byte more is buffer_full", 0, 1, -1},
		{"an empty message always fits", 0, 0, 1010 * ms},
		{"100 ms later 100 bytes have drained", 100 * ms, 100, 1110 * ms},
		{"a byte partly on the wire still counts (queued rounds up)", 100*ms + 1, 1, -1},
		{"the drops did not advance the backlog", 101 * ms, 1, 1111 * ms},
		{"the buffer is full again", 101 * ms, 1, -1},
		{"a drained wire takes a whole buffer", 5 * s, 1000, 6*s + 10*ms},
		{"a message larger than the buffer never fits", 10 * s, 1001, -1},
	} {
		before := position(t, n, "a", "b")
		o, notes := send(t, n, "a", "b", tc.bytes, tc.sentAt)
		drew := position(t, n, "a", "b") - before
		if tc.want < 0 {
			if o.Arrived || o.Reason != BufferFull {
				t.Fatalf("%s: %+v, want Drop(buffer_full)", tc.name, o)
			}
			if drew != 0 || len(notes) != 0 {
				t.Fatalf("%s: buffer_full made %d draws and notes %v; it is refused before the wire and draws nothing", tc.name, drew, notes)
			}
			continue
		}
		if got := mustArrive(t, o); got != tc.want {
			t.Errorf("%s: arrival %d, want %d", tc.name, got, tc.want)
		}
	}
	if got := BufferFull.String(); got != "buffer_full" {
		t.Errorf("BufferFull renders %q, want buffer_full (the drop_on_send reason)", got)
	}
}

func TestSend_SendBufferCheckOrder_5_4(t *testing.T) {
	ab := []Edge{{From: "a", To: "b"}}
	t.Run("partitioned comes before buffer_full", func(t *testing.T) {
		n := newMesh([]string{"a", "b"}, buffered())
		n.ApplyMutation(&Mutation{Kind: Partition, PeersA: []string{"a"}, PeersB: []string{"b"}}, 0)
		if o, _ := send(t, n, "a", "b", 5000, 0); o.Reason != Partitioned {
			t.Fatalf("%+v, want Partitioned", o)
		}
	})
	t.Run("buffer_full comes before the loss draw", func(t *testing.T) {
		p := buffered()
		p.LossProbPPM = 1_000_000
		n := newMesh([]string{"a", "b"}, p)
		n.ApplyMutation(&Mutation{Kind: LossBurst, Links: ab, ProbPPM: 1_000_000, DurationNs: s}, 0)
		if o, _ := send(t, n, "a", "b", 1001, 0); o.Reason != BufferFull || position(t, n, "a", "b") != 0 {
			t.Fatalf("%+v after %d draws, want BufferFull with none", o, position(t, n, "a", "b"))
		}
		if o, _ := send(t, n, "a", "b", 1000, 0); o.Reason != Lossy {
			t.Fatalf("%+v, want Lossy: a lost send never held the wire", o)
		}
	})
	t.Run("a refused send on a cold edge neither dials nor counts as a send", func(t *testing.T) {
		p := buffered()
		p.CacheWarmAfterNs = 0
		p.ColdDialPenaltyNs = 7 * ms
		n := newMesh([]string{"a", "b"}, p)
		if o, notes := send(t, n, "a", "b", 1001, 0); o.Reason != BufferFull || len(notes) != 0 {
			t.Fatalf("%+v %v, want BufferFull and no dial", o, notes)
		}
		if f := n.flowOf(n.edge(0, 1)); f.state != Cold || f.lastSendNs != 0 {
			t.Fatalf("edge state %v, last send %d: a refused send changed the cache", f.state, f.lastSendNs)
		}
		o, _ := send(t, n, "a", "b", 10, ms)
		if !o.Arrived || !o.Dialed || o.At != ms+10*ms+10*ms+7*ms {
			t.Fatalf("%+v, want the next send to dial and arrive at 28ms", o)
		}
	})
	t.Run("each edge has its own buffer", func(t *testing.T) {
		n := newMesh([]string{"a", "b"}, buffered())
		mustArrive(t, first(send(t, n, "a", "b", 1000, 0)))
		if o, _ := send(t, n, "b", "a", 1000, 0); !o.Arrived {
			t.Fatalf("b→a %+v: a full a→b buffer refused it", o)
		}
	})
}

func TestSend_SendBufferZeroOrNegativeMeansNoLimit(t *testing.T) {
	// The network's zero value: a Policy built without the loader keeps
	// the pre-buffer behaviour (the loader never gives 0; it defaults to
	// 4 MiB). A negative value sanitises to 0.
	for _, buf := range []int64{0, -1, math.MinInt64} {
		p := buffered()
		p.SendBufferBytes = buf
		n := newMesh([]string{"a", "b"}, p)
		for i := range int64(100) {
			if o, _ := send(t, n, "a", "b", 1000, i); !o.Arrived {
				t.Fatalf("buffer %d: send %d %+v, want no limit", buf, i, o)
			}
		}
	}
}

func TestSend_OverloadedLinkKeepsBoundedState_5_4(t *testing.T) {
	// 1 B/s with a 64 KiB message every millisecond: the offered load is
	// 65 536 000 times the bandwidth, forever. Without a buffer every send
	// was accepted and each one held an in-flight delivery until its
	// arrival, ever further in the future. A 4 MiB buffer holds 64 such
	// messages; everything after is buffer_full.
	const (
		sends  = 100_000
		msg    = 64 << 10
		buffer = 4 << 20
	)
	p := Policy{LatencyNs: 10 * ms, BandwidthBps: 1, SendBufferBytes: buffer}
	n := newMesh([]string{"a", "b"}, p)
	f := func() *edgeFlow { return n.flowOf(n.edge(0, 1)) }
	accepted, full := 0, 0
	for i := range int64(sends) {
		now := i * ms
		o, _ := n.Send(0, 1, msg, now)
		switch {
		case o.Arrived:
			accepted++
		case o.Reason == BufferFull:
			full++
		default:
			t.Fatalf("send %d: %+v", i, o)
		}
		if in := n.InFlight(now); in > buffer/msg {
			t.Fatalf("send %d: %d deliveries in flight, want at most %d", i, in, buffer/msg)
		}
		if len(f().inFlight) > buffer/msg {
			t.Fatalf("send %d: the edge holds %d deliveries, want at most %d", i, len(f().inFlight), buffer/msg)
		}
		// The backlog never holds more than the buffer's worth of wire time.
		if backlog := f().lastSerializationEndNs - now; backlog > buffer*s {
			t.Fatalf("send %d: backlog %d ns, more than %d bytes at 1 B/s", i, backlog, buffer)
		}
	}
	if accepted != buffer/msg || full != sends-buffer/msg {
		t.Errorf("accepted %d, buffer_full %d; want %d and %d", accepted, full, buffer/msg, sends-buffer/msg)
	}
}

// first returns an Outcome without its notes.
func first(o Outcome, _ []Note) Outcome { return o }
