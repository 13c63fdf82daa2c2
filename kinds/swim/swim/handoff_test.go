package swim

import (
	"reflect"
	"strings"
	"testing"
)

// TestHandoff_IsDecodeOfEncode: Handoff returns what decoding the
// message's bytes returns, nil for empty metadata and lists included, and
// their length, into a message of its own or one it returned before; it
// refuses what Encode refuses, with Encode's error.
func TestHandoff_IsDecodeOfEncode(t *testing.T) {
	long := strings.Repeat("x", MaxIDBytes)
	ups := append(edgeUpdates(long),
		Update{Member: "m6", State: Alive, Incarnation: 7, Meta: []byte{}},              // empty, not nil: Decode gives nil
		Update{Member: "m7", State: Suspect, Incarnation: 8, From: "a", Meta: []byte{}}) // the same on a suspect update
	msgs := []Message{
		{Kind: Ping, From: long, Seq: ^uint64(0), Target: long, Updates: ups},
		{Kind: Ack, From: "a", Seq: 0, Updates: []Update{}},
		{Kind: Ack, From: "a", Seq: 3, Updates: ups},
		{Kind: PingReq, From: "a", Seq: 3, Target: "b", Updates: ups[:1]},
		{Kind: IndirectAck, From: "a", Seq: 3, Target: "b", Nack: true, Updates: ups},
		{Kind: JoinRequest, From: "a", Incarnation: 77, Meta: []byte{}, Updates: ups},
		{Kind: JoinRequest, From: long, Incarnation: 78, Meta: DerivedMeta(long, MaxMetaBytes), Updates: ups},
		{Kind: JoinResponse, From: "a", Members: ups, Updates: ups},
		{Kind: JoinResponse, From: "a", Members: []Update{}},
	}
	var into *Message
	for i := range msgs {
		m := &msgs[i]
		b, err := Encode(m)
		if err != nil {
			t.Fatalf("%s: %v", m.Kind, err)
		}
		want, err := Decode(b)
		if err != nil {
			t.Fatalf("%s: %v", m.Kind, err)
		}
		fresh, size, err := Handoff(m, nil)
		if err != nil || size != len(b) || !reflect.DeepEqual(fresh, want) {
			t.Fatalf("%s: Handoff = %+v, %d, %v\nwant %+v, %d", m.Kind, fresh, size, err, want, len(b))
		}
		if into, _, _ = Handoff(m, into); !reflect.DeepEqual(into, want) {
			t.Fatalf("%s: Handoff into a used message = %+v\nwant %+v", m.Kind, into, want)
		}
	}
	many := make([]Update, 6000)
	for i := range many {
		many[i] = Update{Member: "abcdefgh", State: Alive}
	}
	for _, m := range []*Message{
		nil,
		{Kind: 9, From: "a"},
		{Kind: Ack, From: "a", Target: "b"},
		{Kind: Ack, From: "a", Updates: []Update{{Member: "b", State: Suspect}}},
		{Kind: Ack, From: "a", Updates: many},
		{Kind: JoinResponse, From: "a", Members: []Update{{Member: "b", State: Dead, From: "c", Meta: []byte("x")}}},
	} {
		_, encErr := Encode(m)
		v, _, err := Handoff(m, nil)
		if encErr == nil || err == nil || err.Error() != encErr.Error() || v != nil {
			t.Errorf("Handoff(%+v) = %v, %v; Encode's error %v", m, v, err, encErr)
		}
	}
}

// TestHandoff_SharesNothingTheSenderWrites: a node that reuses its sent
// updates' array (as swimhost sets) overwrites a message's Updates on its
// next call; what Handoff returned for the message before then, and the
// receiver reads later, stays what was sent.
func TestHandoff_SharesNothingTheSenderWrites(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Gossip = Legacy
	ids := []string{"a", "b", "c", "d"}
	n := New("a", cfg, Member, ids, &testRand{3})
	n.ReuseSentUpdates(true)
	var handed []*Message
	var want [][]byte
	for now := int64(0); now < 60*s && len(handed) < 20; now += 100 * ms {
		effs := n.Tick(now)
		// News for the node, so that its queue and its messages change.
		effs = append(effs, n.Receive("b", &Message{Kind: Ack, From: "b", Seq: 1 << 40,
			Updates: []Update{{Member: ids[1+int(now/ms)%3], State: Alive, Incarnation: uint64(now / ms)}}}, now)...)
		for _, e := range effs {
			if e.Kind != EffectSend || len(e.Msg.Updates) == 0 {
				continue
			}
			b, err := Encode(e.Msg)
			if err != nil {
				t.Fatal(err)
			}
			v, _, err := Handoff(e.Msg, nil)
			if err != nil {
				t.Fatal(err)
			}
			handed, want = append(handed, v), append(want, b)
		}
	}
	if len(handed) < 2 {
		t.Fatalf("%d messages with updates sent: the premise does not hold", len(handed))
	}
	for i, v := range handed {
		if got, _ := Encode(v); string(got) != string(want[i]) {
			t.Fatalf("message %d of %d changed after it was handed over: the sender's later calls wrote into it", i+1, len(handed))
		}
	}
}
