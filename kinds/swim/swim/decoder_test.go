package swim

import (
	"reflect"
	"strings"
	"testing"
)

// TestDecoder_DecodesAsDecode: one Decoder, fed every message kind (with
// and without updates, metadata, a nack) and malformed input in between,
// returns what Decode returns for each, error text included: nothing of
// one message leaks into the next through the memory it reuses.
func TestDecoder_DecodesAsDecode(t *testing.T) {
	long := strings.Repeat("x", MaxIDBytes)
	ups := edgeUpdates(long)
	msgs := []Message{
		{Kind: Ping, From: long, Seq: ^uint64(0), Target: long, Updates: ups},
		{Kind: Ack, From: "a", Seq: 0},
		{Kind: IndirectAck, From: "a", Seq: 3, Target: "b", Nack: true, Updates: ups},
		{Kind: PingReq, From: "a", Seq: 3, Target: "b", Updates: ups[:1]},
		{Kind: JoinRequest, From: long, Incarnation: 78, Meta: DerivedMeta(long, MaxMetaBytes), Updates: ups},
		{Kind: Ack, From: "a", Seq: 3, Updates: ups[3:]},
		{Kind: JoinResponse, From: "a", Members: ups, Updates: ups[1:3]},
		{Kind: JoinRequest, From: "a", Incarnation: 77},
		{Kind: JoinResponse, From: "a"},
		{Kind: Ack, From: "a", Seq: 4, Updates: legacyUpdates(200, 5)},
		{Kind: Ping, From: "c", Seq: 5, Target: "d", Updates: legacyUpdates(3, 3)},
	}
	var inputs [][]byte
	for _, m := range msgs {
		b, err := Encode(&m)
		if err != nil {
			t.Fatalf("%s: %v", m.Kind, err)
		}
		inputs = append(inputs, b, b[:len(b)-1])
	}
	for _, v := range wireVectors {
		inputs = append(inputs, unhex(t, v.hex))
	}
	var d Decoder
	if d.Message() != nil {
		t.Fatal("a new Decoder has a message")
	}
	for i, b := range inputs {
		want, werr := Decode(b)
		got, gerr := d.Decode(b)
		if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) {
			t.Fatalf("input %d: Decoder error %v, Decode error %v", i, gerr, werr)
		}
		if werr != nil {
			if got != nil || d.Message() != nil {
				t.Fatalf("input %d: rejected, yet the Decoder returned %+v / holds %+v", i, got, d.Message())
			}
			continue
		}
		if !reflect.DeepEqual(*got, *want) {
			t.Fatalf("input %d: Decoder\n got %+v\nwant %+v", i, *got, *want)
		}
		if d.Message() != got {
			t.Fatalf("input %d: Message() is not the message Decode returned", i)
		}
	}
}

// TestDecoder_AllocatesNothingOnceWarm is issue 32's receiving side: a
// warm Decoder decodes a legacy queue's ping of 200 updates (the same few
// members and metadata over and over) without allocating. Decode itself
// allocated 8 times for it: the message, its Updates and one id and
// metadata copy per distinct member.
func TestDecoder_AllocatesNothingOnceWarm(t *testing.T) {
	b, err := Encode(&Message{Kind: Ping, From: "p1", Target: "p2", Seq: 7, Updates: legacyUpdates(200, 5)})
	if err != nil {
		t.Fatal(err)
	}
	var d Decoder
	if _, err := d.Decode(b); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(20, func() {
		if _, err := d.Decode(b); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Fatalf("a warm Decoder allocated %v times a message, want 0", n)
	}
}

// TestDecoder_GrowingLegacyMessagesAllocateNothing is the receiving side
// of a legacy queue as it really runs: the queue holds every update ever
// made, so each message is an update or two longer than the last and, late
// in a run, longer than a few hundred updates; and it names more members
// than a handful, each with metadata of its own. Once the first message
// is decoded, decoding a hundred ever longer ones (600 to 700 updates
// about 20 members) may allocate once, for the doubling of the Updates
// array, and nothing else per message. It failed before: the kept array stopped at
// 512 updates and grew to exactly each new count, and the eight ids
// remembered were not enough for twenty members.
func TestDecoder_GrowingLegacyMessagesAllocateNothing(t *testing.T) {
	ups := legacyUpdates(700, 20)
	for i := range ups {
		if ups[i].State == Alive {
			ups[i].Meta = DerivedMeta(ups[i].Member, 32)
		}
	}
	var msgs [][]byte
	for n := 600; n <= 700; n++ {
		b, err := Encode(&Message{Kind: Ping, From: "p1", Target: "p2", Seq: uint64(n), Updates: ups[:n]})
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, b)
	}
	decodeAll := func(msgs [][]byte) {
		var d Decoder
		for _, b := range msgs {
			if _, err := d.Decode(b); err != nil {
				t.Fatal(err)
			}
		}
	}
	first := testing.AllocsPerRun(5, func() { decodeAll(msgs[:1]) })
	all := testing.AllocsPerRun(5, func() { decodeAll(msgs) })
	// One more is the array's doubling; a few more leave room for the
	// runtime's own, which AllocsPerRun counts too.
	if all > first+5 {
		t.Fatalf("decoding %d growing messages allocated %v times, the first alone %v: want at most one more (the array's doubling)", len(msgs), all, first)
	}
	var d Decoder
	decodeAll(msgs)
	if n := testing.AllocsPerRun(20, func() {
		if _, err := d.Decode(msgs[len(msgs)-1]); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Fatalf("a warm Decoder allocated %v times a 700-update message, want 0", n)
	}
}
