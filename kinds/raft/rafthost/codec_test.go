package rafthost

import (
	"bytes"
	"strings"
	"testing"

	pb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"

	seampb "github.com/detsim/detsim/kinds/raft/rafthost/raftseam/raftpb"
)

// representative is a message of each shape raft peers exchange.
func representative() []*pb.Message {
	ents := []*pb.Entry{{Term: ptr(uint64(3)), Index: ptr(uint64(41)), Data: encodeCommand("n1#7", "k3", "v7")}, {Term: ptr(uint64(3)), Index: ptr(uint64(42))}}
	return []*pb.Message{
		{Type: pb.MsgApp.Enum(), To: ptr(uint64(2)), From: ptr(uint64(1)), Term: ptr(uint64(3)), LogTerm: ptr(uint64(3)), Index: ptr(uint64(40)), Commit: ptr(uint64(39)), Entries: ents},
		{Type: pb.MsgAppResp.Enum(), To: ptr(uint64(1)), From: ptr(uint64(2)), Term: ptr(uint64(3)), Index: ptr(uint64(42)), Reject: ptr(false)},
		{Type: pb.MsgVote.Enum(), To: ptr(uint64(3)), From: ptr(uint64(2)), Term: ptr(uint64(4)), LogTerm: ptr(uint64(3)), Index: ptr(uint64(42))},
		{Type: pb.MsgHeartbeat.Enum(), To: ptr(uint64(3)), From: ptr(uint64(1)), Term: ptr(uint64(3)), Commit: ptr(uint64(42))},
		{Type: pb.MsgProp.Enum(), To: ptr(uint64(1)), From: ptr(uint64(3)), Entries: []*pb.Entry{{Data: encodeCommand("n3#1", "x", "1")}}},
		{Type: pb.MsgSnap.Enum(), To: ptr(uint64(2)), From: ptr(uint64(1)), Term: ptr(uint64(3)), Snapshot: &pb.Snapshot{
			Data: encodeSnapshot(map[string]string{"a": "1", "b": "2"}, 99), Metadata: &pb.SnapshotMetadata{Index: ptr(uint64(40)), Term: ptr(uint64(3)), ConfState: &pb.ConfState{Voters: []uint64{1, 2, 3}}}}},
	}
}

// TestCodec_IsRaftpbMarshalling_3_3: the bytes the network is charged
// for are exactly raftpb's own marshalling of the message (spec §3.3's
// contract test), and they decode back to the same message.
func TestCodec_IsRaftpbMarshalling_3_3(t *testing.T) {
	for _, m := range representative() {
		want, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := codec{}.Append([]byte("prefix"), m)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got[len("prefix"):], want) || !bytes.HasPrefix(got, []byte("prefix")) {
			t.Fatalf("%s: codec wrote %x, proto.Marshal %x", m.GetType(), got, want)
		}
		if n := seampb.Size(m); n != len(want) {
			t.Errorf("%s: message_sent would say %d bytes, the wire has %d", m.GetType(), n, len(want))
		}
		back, err := codec{}.Decode(want)
		if err != nil {
			t.Fatalf("%s: %v", m.GetType(), err)
		}
		if in := back.(*inbound); !proto.Equal(in.msg, m) || !bytes.Equal(in.wire, want) {
			t.Fatalf("%s: decoded %v", m.GetType(), in.msg)
		}
	}
}

// TestCodec_RefusesWhatNoPeerSends: bytes that are not a raft message a
// peer sends are a decode_error, never a message raft is stepped with.
func TestCodec_RefusesWhatNoPeerSends(t *testing.T) {
	enc := func(m *pb.Message) []byte { b, _ := proto.Marshal(m); return b }
	for _, tc := range []struct {
		name string
		b    []byte
		want string
	}{
		{"garbage", []byte{0xff, 0xff, 0xff}, "raft message"},
		{"no type", enc(&pb.Message{From: ptr(uint64(1))}), "no type"},
		{"a local message", enc(&pb.Message{Type: pb.MsgHup.Enum(), From: ptr(uint64(1))}), "never crosses the network"},
		{"a storage-thread message", enc(&pb.Message{Type: pb.MsgStorageAppend.Enum(), From: ptr(uint64(1))}), "never crosses the network"},
		{"no sender", enc(&pb.Message{Type: pb.MsgApp.Enum()}), "no sender"},
		{"an unknown type", append(enc(&pb.Message{From: ptr(uint64(1))}), 0x08, 0x63), "unknown type"},
		{"an unknown field", append(enc(&pb.Message{Type: pb.MsgApp.Enum(), From: ptr(uint64(1))}), 0xf8, 0x06, 0x01), "unknown fields"},
	} {
		if _, err := (codec{}).Decode(tc.b); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error containing %q", tc.name, err, tc.want)
		}
		if describe(tc.b) != "" {
			t.Errorf("%s: described as %q", tc.name, describe(tc.b))
		}
	}
}

func TestDescribe_NamesTheMessage(t *testing.T) {
	b, _ := proto.Marshal(representative()[0])
	if got := describe(b); got != "MsgApp t3 i40 +2" {
		t.Errorf("describe = %q", got)
	}
}

// FuzzDecode: no bytes make the codec or describe panic, and whatever
// decodes is a message a peer could send and marshals again.
func FuzzDecode(f *testing.F) {
	for _, m := range representative() {
		b, _ := proto.Marshal(m)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		describe(b)
		v, err := codec{}.Decode(b)
		if err != nil {
			return
		}
		m := v.(*inbound).msg
		if m.GetFrom() == 0 || m.Type == nil {
			t.Fatalf("accepted %x", b)
		}
		if _, err := (codec{}).Append(nil, m); err != nil {
			t.Fatal(err)
		}
	})
}

// TestSnapshotData_RoundTrips: what a leader ships in a snapshot is what
// the follower installs; malformed data is an error.
func TestSnapshotData_RoundTrips(t *testing.T) {
	kv := map[string]string{"k1": "v1", "": "empty key", "k2": string([]byte{0, 1, 2})}
	got, chain, err := decodeSnapshot(encodeSnapshot(kv, 0xabc))
	if err != nil || chain != 0xabc || len(got) != len(kv) {
		t.Fatalf("%v %x %v", got, chain, err)
	}
	for k, v := range kv {
		if got[k] != v {
			t.Errorf("%q = %q, want %q", k, got[k], v)
		}
	}
	for _, bad := range [][]byte{{1, 2, 3}, append(encodeSnapshot(kv, 1), 0xff)[:20]} {
		if _, _, err := decodeSnapshot(bad); err == nil {
			t.Errorf("%x decoded", bad)
		}
	}
}
