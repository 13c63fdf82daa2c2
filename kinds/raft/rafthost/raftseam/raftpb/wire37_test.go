//go:build !raft36

package raftpb

import (
	"bytes"
	"math/rand/v2"
	"testing"

	pb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
)

// randomMessage is a message of any shape peers send: each field set or
// not, values small, zero or wide, entries with or without data.
func randomMessage(r *rand.Rand) *Message {
	u := func() *uint64 {
		if r.IntN(3) == 0 {
			return nil
		}
		v := []uint64{0, 1, 127, 128, 1 << 35, ^uint64(0)}[r.IntN(6)] + uint64(r.IntN(3))
		return &v
	}
	m := &Message{To: u(), From: u(), Term: u(), LogTerm: u(), Index: u(), Commit: u(), RejectHint: u(), Vote: u()}
	if r.IntN(5) > 0 {
		m.Type = MessageType(r.IntN(24)).Enum()
	}
	if r.IntN(3) == 0 {
		m.Reject = proto.Bool(r.IntN(2) == 0)
	}
	if r.IntN(4) == 0 {
		m.Context = make([]byte, r.IntN(3))
	}
	for range r.IntN(4) {
		e := &Entry{Term: u(), Index: u()}
		if r.IntN(2) == 0 {
			e.Type = EntryType(r.IntN(3)).Enum()
		}
		if r.IntN(3) > 0 {
			e.Data = make([]byte, r.IntN(200))
			for i := range e.Data {
				e.Data[i] = byte(r.Uint32())
			}
		}
		m.Entries = append(m.Entries, e)
	}
	return m
}

// protoDecode is protobuf's own reading of b, with Unmarshal's checks.
func protoDecode(b []byte) (*Message, bool) {
	m := new(Message)
	if proto.Unmarshal(b, m) != nil || len(m.ProtoReflect().GetUnknown()) > 0 || m.Type == nil {
		return nil, false
	}
	return m, true
}

// agree fails t unless Unmarshal reads b as protobuf reads it.
func agree(t *testing.T, b []byte) {
	t.Helper()
	want, wok := protoDecode(b)
	got, err := Unmarshal(b)
	if (err == nil) != wok || wok && !proto.Equal(got, want) {
		t.Fatalf("%x: read %v (%v), protobuf %v", b, got, err, want)
	}
}

// TestWire_IsProtobufs: the direct codec writes the bytes protobuf's
// deterministic marshalling writes, says the same size, and reads back
// what protobuf reads, down to an empty field's presence, for messages
// of every shape peers send and for those bytes damaged.
func TestWire_IsProtobufs(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 20000 {
		m := randomMessage(r)
		want, err := marshal.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := AppendMarshal([]byte("prefix"), m)
		if err != nil || !bytes.Equal(got[6:], want) || string(got[:6]) != "prefix" {
			t.Fatalf("%v: wrote %x, protobuf %x", m, got, want)
		}
		if n := Size(m); n != len(want) {
			t.Fatalf("%v: size %d, protobuf %d", m, n, len(want))
		}
		agree(t, want)
		// Damaged: a byte changed, dropped or added, or the tail cut.
		if len(want) == 0 {
			continue
		}
		bad := bytes.Clone(want)
		k := r.IntN(len(bad))
		switch i % 4 {
		case 0:
			bad[k] ^= byte(1 << r.IntN(8))
		case 1:
			bad = append(bad[:k], bad[k+1:]...)
		case 2:
			bad = append(bad[:k], append([]byte{byte(r.Uint32())}, bad[k:]...)...)
		case 3:
			bad = bad[:k]
		}
		agree(t, bad)
	}
}

// TestWire_TakesTheCommonShapes: the fast path is taken where it should
// be (a test of speed, not of results: the slow path gives the same).
func TestWire_TakesTheCommonShapes(t *testing.T) {
	m := &Message{Type: pb.MsgApp.Enum(), To: proto.Uint64(2), From: proto.Uint64(1), Term: proto.Uint64(3),
		Entries: []*Entry{{Term: proto.Uint64(3), Index: proto.Uint64(4), Data: []byte("x")}}, Context: []byte{}}
	b, _ := marshal.Marshal(m)
	if _, ok := decodeFast(b, nil); !ok || !fastShape(m) {
		t.Fatal("an append went the slow way")
	}
	for name, b := range map[string][]byte{
		"snapshot":          mustMarshal(&Message{Type: MsgSnap.Enum(), Snapshot: &Snapshot{}}),
		"responses":         mustMarshal(&Message{Type: pb.MsgApp.Enum(), Responses: []*Message{{}}}),
		"unknown field":     append(mustMarshal(m), 0xf8, 0x06, 0x01),
		"unknown type":      {0x08, 0x63},
		"repeated in entry": {0x3a, 0x04, 0x10, 0x01, 0x10, 0x02},
	} {
		if _, ok := decodeFast(b, nil); ok {
			t.Errorf("%s: taken by the fast path", name)
		}
	}
	if fastShape(&Message{Snapshot: &Snapshot{}}) || fastShape(&Message{Entries: []*Entry{nil}}) {
		t.Error("a snapshot or a nil entry would be written by the fast path")
	}
}

func mustMarshal(m *Message) []byte {
	b, err := marshal.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}

// FuzzWire: whatever the bytes, Unmarshal reads them as protobuf does.
func FuzzWire(f *testing.F) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 16 {
		f.Add(mustMarshal(randomMessage(r)))
	}
	f.Fuzz(func(t *testing.T, b []byte) { agree(t, b) })
}

// TestTypeName_IsString: the table names every type as String does.
func TestTypeName_IsString(t *testing.T) {
	for n := range MessageType(80) {
		if TypeName(n) != n.String() {
			t.Errorf("%d: %q, String %q", n, TypeName(n), n.String())
		}
	}
}
