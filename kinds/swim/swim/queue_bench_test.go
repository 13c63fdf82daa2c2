package swim

import (
	"fmt"
	"testing"
)

// legacyUpdates is what a legacy queue holds after a few minutes of the
// gossip flap: many updates about a handful of members, alive ones with
// production's 256 bytes of metadata (kinds/swim/swimhost/library/properties/gossip_flap_legacy.toml).
func legacyUpdates(n, members int) []Update {
	meta := make([]byte, 256)
	us := make([]Update, n)
	for i := range us {
		us[i] = Update{Member: fmt.Sprintf("p%d", i%members), State: Alive, Incarnation: uint64(i), Meta: meta}
		if i%3 == 1 {
			us[i] = Update{Member: us[i].Member, State: Suspect, Incarnation: uint64(i), From: "p0"}
		}
	}
	return us
}

// BenchmarkQueueTake is the broadcast queue's hot path on a send: a
// legacy queue of 200 updates, all piggybacked (a legacy message's budget
// is a whole datagram), into the caller's reused slice. Issue 32 asks it
// to allocate nothing (docs/BENCHMARKS.md, "Judging typed records").
func BenchmarkQueueTake(b *testing.B) {
	q := newQueue(Legacy, MaxDatagramBytes)
	for _, u := range legacyUpdates(200, 5) {
		q.push(u)
	}
	dst := make([]Update, 0, q.len()+1)
	b.ReportAllocs()
	for b.Loop() {
		dst, _ = q.take(dst[:0], MaxDatagramBytes, 0, nil)
	}
	if len(dst) != 200 {
		b.Fatalf("took %d", len(dst))
	}
}

// BenchmarkDecodeUpdates is the receiving side: decoding a ping that
// carries those 200 updates (reader.updates). What it must allocate is
// the message's own: its Updates slice and, once per distinct member, an
// id and a metadata copy.
func BenchmarkDecodeUpdates(b *testing.B) {
	buf, err := Encode(&Message{Kind: Ping, From: "p1", Target: "p2", Seq: 7, Updates: legacyUpdates(200, 5)})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(buf); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecoderUpdates is BenchmarkDecodeUpdates through a warm
// Decoder, as the engine decodes every delivery to a SWIM host: issue 32
// asks it to allocate nothing.
func BenchmarkDecoderUpdates(b *testing.B) {
	buf, err := Encode(&Message{Kind: Ping, From: "p1", Target: "p2", Seq: 7, Updates: legacyUpdates(200, 5)})
	if err != nil {
		b.Fatal(err)
	}
	var d Decoder
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := d.Decode(buf); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendUpdates is the sending side's encoding: a ping that
// carries those 200 updates appended to a buffer the caller reuses, as
// the engine encodes every send into its slab. It allocates nothing.
func BenchmarkAppendUpdates(b *testing.B) {
	m := &Message{Kind: Ping, From: "p1", Target: "p2", Seq: 7, Updates: legacyUpdates(200, 5)}
	buf := make([]byte, 0, EncodedSize(m))
	b.SetBytes(int64(cap(buf)))
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = Append(buf[:0], m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReceiveLegacy is the rest of the receiving side: a member
// applying a legacy queue's ack of 200 updates about the five members it
// knows, every one of them stale (as nearly every update a legacy message
// carries is), decoded by a warm Decoder as the engine does. What it
// allocates is the message_received event, nothing per update.
func BenchmarkReceiveLegacy(b *testing.B) {
	n, buf := staleLegacyAck(b, 200)
	var d Decoder
	now := int64(0)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		m, err := d.Decode(buf)
		if err != nil {
			b.Fatal(err)
		}
		now++
		n.ReceiveID("p2", 1, m, now)
	}
}

// staleLegacyAck returns member p1 of five, which has heard every other
// member alive at incarnation 10, and the wire bytes of an ack from p2
// carrying k updates it holds already or outranks: alives and suspicions
// below incarnation 10, and its own alive.
func staleLegacyAck(tb testing.TB, k int) (*Node, []byte) {
	names := []string{"p0", "p1", "p2", "p3", "p4"}
	cfg := DefaultConfig()
	cfg.Gossip = Legacy
	cfg.MetaBytes = 256
	n := New("p1", cfg, Member, names, &testRand{s: 1})
	var heard []Update
	for _, id := range names {
		if id != "p1" {
			heard = append(heard, Update{Member: id, State: Alive, Incarnation: 10, Meta: DerivedMeta(id, cfg.MetaBytes)})
		}
	}
	n.Receive("p2", &Message{Kind: Ack, From: "p2", Seq: 1, Updates: heard}, 0)
	ups := make([]Update, k)
	for i := range ups {
		id := names[i%len(names)]
		switch {
		case id == "p1":
			ups[i] = Update{Member: id, State: Alive, Meta: DerivedMeta(id, cfg.MetaBytes)}
		case i%3 == 1:
			ups[i] = Update{Member: id, State: Suspect, Incarnation: uint64(i % 10), From: "p0"}
		default:
			ups[i] = Update{Member: id, State: Alive, Incarnation: uint64(i % 10), Meta: DerivedMeta(id, cfg.MetaBytes)}
		}
	}
	buf, err := Encode(&Message{Kind: Ack, From: "p2", Seq: 7, Updates: ups})
	if err != nil {
		tb.Fatal(err)
	}
	return n, buf
}

// BenchmarkDecoderLegacyStream is the receiving side as a legacy run
// really hears one sender: each message is the last one with an update
// in front (64 messages of 137 to 200 updates, then the shortest again),
// through one warm Decoder. A Decoder that remembers the sender's last
// update bytes decodes one update a message and compares the rest
// (docs/BENCHMARKS.md, "The legacy decoder reads only what is new").
func BenchmarkDecoderLegacyStream(b *testing.B) {
	ups := legacyUpdates(200, 5)
	var msgs [][]byte
	size := 0
	for k := 137; k <= 200; k++ {
		buf, err := Encode(&Message{Kind: Ack, From: "p2", Seq: uint64(k), Updates: ups[200-k:]})
		if err != nil {
			b.Fatal(err)
		}
		msgs = append(msgs, buf)
		size += len(buf)
	}
	var d Decoder
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		for _, buf := range msgs {
			if _, err := d.Decode(buf); err != nil {
				b.Fatal(err)
			}
		}
	}
}
