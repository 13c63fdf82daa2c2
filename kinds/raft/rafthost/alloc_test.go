package rafthost

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/detsim/detsim/hosts"
	pb "github.com/detsim/detsim/kinds/raft/rafthost/raftseam/raftpb"
)

// TestCodec_DecodeIntoReusesAndAgrees: the engine may hand each host's
// deliveries in one reused inbound (hosts.ReusingCodec), which decodes
// every representative message as Decode does; the bytes kept for the
// input log are a copy of their own, which neither a later delivery into
// the same inbound, nor the engine reusing the bytes it decoded from,
// nor an append to an earlier copy can change.
func TestCodec_DecodeIntoReusesAndAgrees(t *testing.T) {
	rc, ok := any(codec{}).(hosts.ReusingCodec)
	if !ok {
		t.Fatal("codec is not a hosts.ReusingCodec: every delivery allocates its inbound and its copy")
	}
	var into any
	var kept [][]byte // each delivery's wire, as the input log keeps it
	var want [][]byte
	for round := range 3 {
		for _, m := range representative() {
			b, err := proto.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			src := bytes.Clone(b)
			got, err := rc.DecodeInto(src, into)
			if err != nil {
				t.Fatalf("%s: %v", m.GetType(), err)
			}
			if round > 0 || len(kept) > 0 {
				if got != into {
					t.Fatalf("%s: DecodeInto gave %p, not the inbound %p it was handed", m.GetType(), got, into)
				}
			}
			into = got
			in := got.(*inbound)
			if !proto.Equal(in.msg, m) || !bytes.Equal(in.wire, b) {
				t.Fatalf("%s: decoded %v from %x", m.GetType(), in.msg, in.wire)
			}
			if cap(in.wire) != len(in.wire) {
				t.Errorf("%s: the copy has room for %d more bytes: an append would write into the next copy", m.GetType(), cap(in.wire)-len(in.wire))
			}
			for i := range src {
				src[i] = 0xee // the engine's slab, reused
			}
			kept = append(kept, in.wire)
			want = append(want, b)
		}
	}
	_ = append(kept[0], 0xff, 0xff, 0xff) // must not reach kept[1]
	for i := range kept {
		if !bytes.Equal(kept[i], want[i]) {
			t.Fatalf("delivery %d's bytes changed after later deliveries: %x, want %x", i, kept[i], want[i])
		}
	}
}

// TestCodec_DecodedMessagesOutliveLaterDeliveries: etcd's raft keeps
// what it is stepped with past the call (its unstable log and
// MemoryStorage keep a MsgApp's entries, and may keep the entries'
// slice itself; a forwarded proposal or a held read keeps the message),
// so a message decoded into a reused inbound must stay what it was
// decoded as while hundreds of later deliveries fill the same inbound's
// blocks, and raft appending to a kept message's entries must not reach
// the next message's.
func TestCodec_DecodedMessagesOutliveLaterDeliveries(t *testing.T) {
	var wires [][]byte
	for _, m := range representative() {
		b, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		wires = append(wires, b)
	}
	var into any
	var kept []*inbound // each delivery's message and bytes, as raft and the input log keep them
	for i := range 600 {
		got, err := codec{}.DecodeInto(wires[i%len(wires)], into)
		if err != nil {
			t.Fatal(err)
		}
		into = got
		in := got.(*inbound)
		kept = append(kept, &inbound{msg: in.msg, wire: in.wire})
	}
	for _, k := range kept {
		// What raft's unstable log does with a slice it took whole.
		_ = append(k.msg.Entries, &pb.Entry{Index: ptr(uint64(999))})
	}
	for i, k := range kept {
		fresh, err := decode(k.wire)
		if err != nil {
			t.Fatal(err)
		}
		if !proto.Equal(k.msg, fresh) {
			t.Fatalf("delivery %d (%s) changed after later deliveries: %v, decoded afresh %v", i, fresh.GetType(), k.msg, fresh)
		}
	}
}

// TestAdapter_AllocatesOnlyWhatItKeeps: the adapter's paths that run at
// every delivery, apply or log_append allocate only what outlives them.
// Each row failed on the code before it: a wrapper and a copy a
// delivery, then the message, its entries and their pointers allocated
// alone at each delivery (three for a MsgApp), three strings a put, a
// new array for a member's log at every log_append.
func TestAdapter_AllocatesOnlyWhatItKeeps(t *testing.T) {
	app, err := proto.Marshal(representative()[0]) // a MsgApp with two entries
	if err != nil {
		t.Fatal(err)
	}
	rc, _ := any(codec{}).(hosts.ReusingCodec)
	var into any
	cmd := encodeCommand("n1#7", "k3", "v7")
	l := emptyLog()
	var next uint64 = 1
	chains := []uint64{1, 2, 3, 4}
	for _, tc := range []struct {
		name string
		want float64 // allocations a call, at most
		f    func()
	}{
		{"a delivery: its message and entries cut from blocks", 0, func() {
			if rc == nil { // the engine decodes afresh
				_, _ = codec{}.Decode(app)
				return
			}
			into, _ = rc.DecodeInto(app, into)
		}},
		{"a put's request, key and value: one string", 1, func() { _, _, _, _ = decodeCommand(cmd) }},
		{"a member's log followed from its committed index", 0, func() {
			l.write(next, chains)
			next += uint64(len(chains))
			l.forget(next - 2)
		}},
	} {
		tc.f() // the first call may size what the later ones reuse
		if got := testing.AllocsPerRun(100, tc.f); got > tc.want {
			t.Errorf("%s: %v allocations a call, want at most %v", tc.name, got, tc.want)
		}
	}
}
