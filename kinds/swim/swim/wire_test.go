package swim

import (
	"bytes"
	"encoding/hex"
	"reflect"
	"strings"
	"testing"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// wireVectors were written by hand from the layout in docs/swim.md
// (version 2), not produced by Encode, so the codec is checked against the
// document. Every alive update has its u16 metadata length after the
// member id; suspect and dead updates have none.
var wireVectors = []struct {
	name string
	msg  Message
	hex  string
}{
	{"ping", Message{Kind: Ping, From: "a", Seq: 1, Target: "b"},
		"02 01 01 61 0000000000000001 01 62 0000"},
	{"ack with a suspect update", Message{Kind: Ack, From: "b", Seq: 7,
		Updates: []Update{{Member: "c", State: Suspect, Incarnation: 2, From: "b"}}},
		"02 02 01 62 0000000000000007 0001 02 0000000000000002 01 63 01 62"},
	{"ack with an alive update carrying metadata", Message{Kind: Ack, From: "b", Seq: 7,
		Updates: []Update{{Member: "a", State: Alive, Incarnation: 3, Meta: []byte("a/a")}}},
		"02 02 01 62 0000000000000007 0001 01 0000000000000003 01 61 0003 612f61"},
	{"ping_req with an alive update", Message{Kind: PingReq, From: "a", Seq: 0x0102030405060708, Target: "cc",
		Updates: []Update{{Member: "a", State: Alive, Incarnation: 3}}},
		"02 03 01 61 0102030405060708 02 6363 0001 01 0000000000000003 01 61 0000"},
	{"indirect_ack", Message{Kind: IndirectAck, From: "b", Seq: 5, Target: "c"},
		"02 04 01 62 0000000000000005 01 63 00 0000"},
	{"indirect_ack nack", Message{Kind: IndirectAck, From: "b", Seq: 5, Target: "c", Nack: true},
		"02 04 01 62 0000000000000005 01 63 01 0000"},
	{"join_request", Message{Kind: JoinRequest, From: "d", Incarnation: 9},
		"02 05 01 64 0000000000000009 0000 0000"},
	{"join_request with metadata", Message{Kind: JoinRequest, From: "d", Incarnation: 9, Meta: []byte("d/d/")},
		"02 05 01 64 0000000000000009 0004 642f642f 0000"},
	{"join_response", Message{Kind: JoinResponse, From: "a", Members: []Update{
		{Member: "a", State: Alive, Incarnation: 0},
		{Member: "b", State: Dead, Incarnation: 4, From: "c"}}},
		"02 06 01 61 0002 01 0000000000000000 01 61 0000 03 0000000000000004 01 62 01 63 0000"},
	{"join_response with metadata and a piggybacked update", Message{Kind: JoinResponse, From: "a",
		Members: []Update{{Member: "a", State: Alive, Incarnation: 1, Meta: []byte("a/")}},
		Updates: []Update{{Member: "zz", State: Dead, Incarnation: 0xFFFFFFFFFFFFFFFF, From: "a"}}},
		"02 06 01 61 0001 01 0000000000000001 01 61 0002 612f 0001 03 FFFFFFFFFFFFFFFF 02 7a7a 01 61"},
	{"ack with the largest metadata", Message{Kind: Ack, From: "b", Seq: 1,
		Updates: []Update{{Member: "c", State: Alive, Incarnation: 0, Meta: bytes.Repeat([]byte{0xAB}, MaxMetaBytes)}}},
		"02 02 01 62 0000000000000001 0001 01 0000000000000000 01 63 0200" + strings.Repeat("ab", 512)},
}

func TestWire_HandWrittenVectors(t *testing.T) {
	for _, v := range wireVectors {
		t.Run(v.name, func(t *testing.T) {
			want := unhex(t, v.hex)
			got, err := Encode(&v.msg)
			if err != nil {
				t.Fatal(err)
			}
			if hex.EncodeToString(got) != hex.EncodeToString(want) {
				t.Fatalf("Encode:\n got %x\nwant %x", got, want)
			}
			if n := EncodedSize(&v.msg); n != len(want) {
				t.Fatalf("EncodedSize = %d, want %d", n, len(want))
			}
			back, err := Decode(want)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*back, v.msg) {
				t.Fatalf("Decode = %+v, want %+v", *back, v.msg)
			}
		})
	}
}

// edgeUpdates are updates at the edges of the wire format: ids of
// long's length (MaxIDBytes), the largest incarnation, metadata at its
// bound and a single zero byte of it.
func edgeUpdates(long string) []Update {
	return []Update{
		{Member: "m1", State: Alive, Incarnation: 0},
		{Member: long, State: Suspect, Incarnation: 1 << 40, From: long},
		{Member: "m3", State: Dead, Incarnation: ^uint64(0), From: "acc"},
		{Member: long, State: Alive, Incarnation: 5, Meta: DerivedMeta(long, MaxMetaBytes)},
		{Member: "m5", State: Alive, Incarnation: 6, Meta: []byte{0}},
	}
}

func TestWire_RoundTripEveryKind(t *testing.T) {
	long := strings.Repeat("x", MaxIDBytes)
	ups := edgeUpdates(long)
	msgs := []Message{
		{Kind: Ping, From: long, Seq: ^uint64(0), Target: long, Updates: ups},
		{Kind: Ack, From: "a", Seq: 0},
		{Kind: Ack, From: "a", Seq: 3, Updates: ups},
		{Kind: PingReq, From: "a", Seq: 3, Target: "b", Updates: ups[:1]},
		{Kind: IndirectAck, From: "a", Seq: 3, Target: "b", Nack: true, Updates: ups},
		{Kind: JoinRequest, From: "a", Incarnation: 77, Updates: ups},
		{Kind: JoinRequest, From: long, Incarnation: 78, Meta: DerivedMeta(long, MaxMetaBytes), Updates: ups},
		{Kind: JoinResponse, From: "a", Members: ups, Updates: ups},
		{Kind: JoinResponse, From: "a"},
	}
	for _, m := range msgs {
		b, err := Encode(&m)
		if err != nil {
			t.Fatalf("%s: %v", m.Kind, err)
		}
		if len(b) != EncodedSize(&m) {
			t.Fatalf("%s: EncodedSize %d, len %d", m.Kind, EncodedSize(&m), len(b))
		}
		back, err := Decode(b)
		if err != nil {
			t.Fatalf("%s: %v", m.Kind, err)
		}
		if !reflect.DeepEqual(*back, m) {
			t.Fatalf("%s round trip:\n got %+v\nwant %+v", m.Kind, *back, m)
		}
	}
}

func TestDecode_RejectsMalformed(t *testing.T) {
	big := make([]byte, MaxDatagramBytes+1)
	big[0], big[1] = 1, 2
	cases := []struct {
		name, hex string
		raw       []byte
		want      string
	}{
		{name: "empty", hex: "", want: "truncated version at byte 0"},
		{name: "version 1 (no metadata fields)", hex: "01 01 01 61 0000000000000001 01 62 0000", want: "unsupported wire version 1 at byte 0"},
		{name: "version 3", hex: "03 02 01 61 0000000000000001 0000", want: "unsupported wire version 3"},
		{name: "kind 0", hex: "02 00 01 61 0000", want: "unknown message kind 0"},
		{name: "kind 7", hex: "02 07 01 61 0000", want: "unknown message kind 7"},
		{name: "empty from", hex: "02 02 00 0000000000000001 0000", want: "empty from id at byte 2"},
		{name: "from past the end", hex: "02 02 05 61", want: "truncated from id at byte 3"},
		{name: "short seq", hex: "02 02 01 61 00000001", want: "truncated seq at byte 4"},
		{name: "missing update count", hex: "02 02 01 61 0000000000000001", want: "truncated update count at byte 12"},
		{name: "unknown flags", hex: "02 04 01 62 0000000000000005 01 63 02 0000", want: "unknown flags 0x02 at byte 14"},
		{name: "state 0", hex: "02 02 01 62 0000000000000007 0001 00 0000000000000002 01 63 0000", want: "invalid update state 0 at byte 14"},
		{name: "state 4", hex: "02 02 01 62 0000000000000007 0001 04 0000000000000002 01 63 01 62", want: "invalid update state 4 at byte 14"},
		{name: "suspect without accuser", hex: "02 02 01 62 0000000000000007 0001 02 0000000000000002 03 636363", want: "truncated update accuser length at byte 27"},
		{name: "count beyond input", hex: "02 02 01 62 0000000000000007 0002 01 0000000000000002 01 63 0000", want: "update count 2 exceeds the remaining input at byte 12"},
		{name: "trailing byte", hex: "02 02 01 62 0000000000000007 0000 00", want: "1 trailing bytes at byte 14"},
		// Version 1's alive update: no metadata length after the member.
		{name: "alive without metadata length", hex: "02 02 01 62 0000000000000007 0001 01 0000000000000002 03 636363", want: "truncated update metadata length at byte 27"},
		{name: "alive with half a metadata length", hex: "02 02 01 62 0000000000000007 0001 01 0000000000000002 03 636363 00", want: "truncated update metadata length at byte 27"},
		{name: "alive metadata 513 bytes", hex: "02 02 01 62 0000000000000007 0001 01 0000000000000002 01 63 0201" + strings.Repeat("ab", 513),
			want: "update metadata length 513 exceeds 512 at byte 25"},
		{name: "alive metadata length 65535 without bytes", hex: "02 02 01 62 0000000000000007 0001 01 0000000000000002 01 63 FFFF",
			want: "update metadata length 65535 exceeds 512 at byte 25"},
		{name: "alive metadata truncated", hex: "02 02 01 62 0000000000000007 0001 01 0000000000000002 01 63 0003 6161", want: "truncated update metadata at byte 27"},
		{name: "member metadata truncated", hex: "02 06 01 61 0001 01 0000000000000001 01 61 0002 61", want: "truncated member metadata at byte 19"},
		{name: "join_request without metadata length", hex: "02 05 01 64 0000000000000009", want: "truncated join_request metadata length at byte 12"},
		{name: "join_request metadata 513 bytes", hex: "02 05 01 64 0000000000000009 0201" + strings.Repeat("64", 513) + "0000",
			want: "join_request metadata length 513 exceeds 512 at byte 12"},
		{name: "join_request metadata truncated", hex: "02 05 01 64 0000000000000009 0002 64", want: "truncated join_request metadata at byte 14"},
		// Metadata after a dead update is read as its accuser, then the
		// remaining bytes are trailing: suspect and dead updates have no
		// metadata field to put it in.
		{name: "dead update followed by metadata", hex: "02 02 01 62 0000000000000007 0001 03 0000000000000002 01 63 01 62 0000", want: "2 trailing bytes at byte 27"},
		{name: "oversized", raw: big, want: "exceeds the 65507-byte datagram limit"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := c.raw
			if b == nil {
				b = unhex(t, c.hex)
			}
			m, err := Decode(b)
			if err == nil {
				t.Fatalf("accepted: %+v", m)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q, want it to contain %q", err, c.want)
			}
		})
	}
}

func TestEncode_RejectsInvalid(t *testing.T) {
	long := strings.Repeat("x", MaxIDBytes+1)
	many := make([]Update, 6000)
	for i := range many {
		many[i] = Update{Member: "abcdefgh", State: Alive}
	}
	cases := []struct {
		name string
		msg  *Message
		want string
	}{
		{"nil", nil, "nil message"},
		{"unknown kind", &Message{Kind: 9, From: "a"}, "unknown message kind 9"},
		{"no from", &Message{Kind: Ack}, "from id must be 1 to 255 bytes"},
		{"long from", &Message{Kind: Ack, From: long}, "from id must be 1 to 255 bytes, got 256"},
		{"ping without target", &Message{Kind: Ping, From: "a"}, "target id must be"},
		{"ack with target", &Message{Kind: Ack, From: "a", Target: "b"}, "carries no target"},
		{"join with seq", &Message{Kind: JoinRequest, From: "a", Seq: 1}, "carries no seq"},
		{"nack on ping", &Message{Kind: Ping, From: "a", Target: "b", Nack: true}, "only indirect_ack carries the nack flag"},
		{"incarnation on ack", &Message{Kind: Ack, From: "a", Incarnation: 1}, "carries no incarnation"},
		{"members on ack", &Message{Kind: Ack, From: "a", Members: []Update{{Member: "a", State: Alive}}}, "carries no member list"},
		{"alive with accuser", &Message{Kind: Ack, From: "a", Updates: []Update{{Member: "b", State: Alive, From: "c"}}}, "alive update carries no accuser"},
		{"suspect without accuser", &Message{Kind: Ack, From: "a", Updates: []Update{{Member: "b", State: Suspect}}}, "accuser id must be"},
		{"invalid state", &Message{Kind: Ack, From: "a", Updates: []Update{{Member: "b", State: 0}}}, "invalid state 0"},
		{"too big", &Message{Kind: Ack, From: "a", Updates: many}, "exceeds the 65507-byte datagram limit"},
		{"metadata on an ack", &Message{Kind: Ack, From: "a", Meta: []byte("x")}, "ack: kind carries no metadata"},
		{"metadata on a join_response", &Message{Kind: JoinResponse, From: "a", Meta: []byte("x")}, "join_response: kind carries no metadata"},
		{"join_request metadata too long", &Message{Kind: JoinRequest, From: "a", Meta: make([]byte, MaxMetaBytes+1)},
			"metadata must be at most 512 bytes, got 513"},
		{"alive metadata too long", &Message{Kind: Ack, From: "a", Updates: []Update{{Member: "b", State: Alive, Meta: make([]byte, MaxMetaBytes+1)}}},
			"update 0: metadata must be at most 512 bytes, got 513"},
		{"metadata on a suspect update", &Message{Kind: Ack, From: "a", Updates: []Update{{Member: "b", State: Suspect, From: "c", Meta: []byte("x")}}},
			"only an alive update carries metadata"},
		{"metadata on a dead member", &Message{Kind: JoinResponse, From: "a", Members: []Update{{Member: "b", State: Dead, From: "c", Meta: []byte("x")}}},
			"member 0: only an alive update carries metadata"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Encode(c.msg)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want it to contain %q", err, c.want)
			}
		})
	}
}

// FuzzDecode: Decode never panics, and whatever it accepts re-encodes to
// the same bytes with a matching EncodedSize; a Decoder that decoded
// something else first decodes it to the same message.
func FuzzDecode(f *testing.F) {
	for _, v := range wireVectors {
		f.Add(unhex(f, v.hex))
	}
	f.Add([]byte{})
	f.Add([]byte{1, 6, 1, 'a', 0xFF, 0xFF})
	warm, err := Encode(&Message{Kind: JoinRequest, From: "p1", Incarnation: 3, Meta: []byte("m"),
		Updates: legacyUpdates(40, 5)})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var d Decoder
		if _, err := d.Decode(warm); err != nil {
			t.Fatal(err)
		}
		dm, derr := d.Decode(b)
		m, err := Decode(b)
		if (err == nil) != (derr == nil) {
			t.Fatalf("Decode error %v, Decoder error %v", err, derr)
		}
		if err != nil {
			return
		}
		if !reflect.DeepEqual(*dm, *m) {
			t.Fatalf("Decoder\n got %+v\nwant %+v", *dm, *m)
		}
		again, err := Encode(m)
		if err != nil {
			t.Fatalf("decoded %x but cannot re-encode: %v", b, err)
		}
		if string(again) != string(b) {
			t.Fatalf("not canonical:\n in %x\nout %x", b, again)
		}
		if EncodedSize(m) != len(b) {
			t.Fatalf("EncodedSize %d, len %d", EncodedSize(m), len(b))
		}
	})
}

// FuzzNodeReceive feeds whatever decodes to a running node, as a hostile
// or buggy peer could, then lets its timers fire. The node must not panic,
// and everything it sends must encode (a message the codec rejects would
// crash the caller's transport).
func FuzzNodeReceive(f *testing.F) {
	for _, v := range wireVectors {
		f.Add(unhex(f, v.hex), int64(1))
	}
	f.Fuzz(func(t *testing.T, b []byte, at int64) {
		msg, err := Decode(b)
		if err != nil {
			return
		}
		for _, mode := range []GossipMode{Bounded, Legacy} {
			cfg := DefaultConfig()
			cfg.Gossip = mode
			cfg.Seeds = []string{"b"}
			n := New("a", cfg, Joining, abc, &testRand{7})
			check := func(effects []Effect) (timers []Effect) {
				for _, e := range effects {
					switch e.Kind {
					case EffectSend:
						if _, err := Encode(e.Msg); err != nil {
							t.Fatalf("node sent an unencodable message: %v", err)
						}
					case EffectTimer:
						timers = append(timers, e)
					}
				}
				return timers
			}
			timers := check(n.Tick(0))
			now := max(0, at%(10*s))
			timers = append(timers, check(n.Receive(msg.From, msg, now))...)
			for _, tm := range timers {
				check(n.TimerFired(tm.Token, max(now, tm.At)))
			}
			check(n.Tick(now + 100*s))
			_ = n.Snapshot()
		}
	})
}
