package swim

import (
	"fmt"
	"reflect"
	"testing"
)

// legacyStream is what a Decoder hears from senders with legacy queues:
// each sender's next message is its last one with zero to three new
// updates in front (a take keeps the queue's order), senders
// interleaved, six of them (more than a Decoder remembers), each
// message large enough to be remembered.
func legacyStream(t *testing.T) [][]byte {
	t.Helper()
	pool := legacyUpdates(400, 7)
	var out [][]byte
	queues := make([][]Update, 6)
	for i := range queues {
		queues[i] = pool[:30]
	}
	next := 30
	for step := range 120 {
		s := (step * 5) % len(queues)
		if k := step % 4; k > 0 && next+k <= len(pool) {
			queues[s] = append(append([]Update(nil), pool[next:next+k]...), queues[s]...)
			next += k
		}
		b, err := Encode(&Message{Kind: Ack, From: fmt.Sprintf("s%d", s), Seq: uint64(step), Updates: queues[s]})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// TestDecoder_RemembersTailsAsDecode: a Decoder that decodes a sender's
// message only in front of the updates it remembers from that sender
// returns what Decode returns, error text included, also when what is
// in front does not end where the remembered updates begin, is
// malformed, or claims another count, and when senders evict each other.
func TestDecoder_RemembersTailsAsDecode(t *testing.T) {
	var inputs [][]byte
	for i, b := range legacyStream(t) {
		inputs = append(inputs, b)
		switch i % 10 {
		case 3: // the same sender's bytes again, with a count one higher
			c := append([]byte(nil), b...)
			c[len(c)-updBytesAfterCount(t, b)-1]++
			inputs = append(inputs, c)
		case 5: // a stray byte in front of the remembered updates
			at := len(b) - updBytesAfterCount(t, b)
			c := append(append(append([]byte(nil), b[:at]...), 0xEE), b[at:]...)
			c[at-1]++
			inputs = append(inputs, c)
		case 7: // a truncated front update
			at := len(b) - updBytesAfterCount(t, b)
			c := append(append(append([]byte(nil), b[:at]...), byte(Alive), 0, 0), b[at:]...)
			c[at-1]++
			inputs = append(inputs, c)
		}
	}
	var d Decoder
	for i, b := range inputs {
		want, werr := Decode(b)
		got, gerr := d.Decode(b)
		if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) {
			t.Fatalf("input %d: Decoder error %v, Decode error %v", i, gerr, werr)
		}
		if werr == nil && !reflect.DeepEqual(*got, *want) {
			t.Fatalf("input %d: Decoder\n got %+v\nwant %+v", i, *got, *want)
		}
	}
}

// updBytesAfterCount is the length of b's update section after its
// count: b is a message from legacyStream.
func updBytesAfterCount(t *testing.T, b []byte) int {
	t.Helper()
	m, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i := range m.Updates {
		n += updateSize(&m.Updates[i])
	}
	return n
}

// TestDecoder_DecodesOnlyWhatIsNew: once a Decoder has a sender's large
// message, the sender's next one (two updates more, in front) is decoded
// only in front: its other updates are the remembered ones, where they
// were, not decoded again into the Decoder's array. It failed before,
// when every message was decoded whole from the array's start.
func TestDecoder_DecodesOnlyWhatIsNew(t *testing.T) {
	ups := legacyUpdates(204, 5)
	var d Decoder
	enc := func(us []Update) []byte {
		b, err := Encode(&Message{Kind: Ping, From: "p1", Target: "p2", Seq: 7, Updates: us})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	// The first message, then one update more: the remembered array
	// grows (doubling), so it is the third message whose repeated
	// updates stay where the second's are.
	for _, us := range [][]Update{ups[4:], ups[3:]} {
		if _, err := d.Decode(enc(us)); err != nil {
			t.Fatal(err)
		}
	}
	first, err := d.Decode(enc(ups[2:]))
	if err != nil {
		t.Fatal(err)
	}
	// The Decoder's message is overwritten by its next Decode: keep the
	// addresses.
	head, last := &first.Updates[0], &first.Updates[len(first.Updates)-1]
	second, err := d.Decode(enc(ups))
	if err != nil {
		t.Fatal(err)
	}
	if len(second.Updates) != 204 || &second.Updates[203] != last || &second.Updates[2] != head {
		t.Fatalf("the repeated updates were decoded again: %d updates, the last at %p, was %p", len(second.Updates), &second.Updates[203], last)
	}
	if !reflect.DeepEqual(second.Updates, ups) {
		t.Fatal("the message's updates are not the ones encoded")
	}
}
