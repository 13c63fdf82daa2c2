package llmwire

import (
	"bytes"
	"reflect"
	"testing"
)

// FuzzDecode: Decode never panics on any bytes and never returns both a
// message and an error, and what it accepts encodes again, to bytes that
// decode to the same message (they are the input itself unless it spelt
// a uvarint with more bytes than needed).
func FuzzDecode(f *testing.F) {
	c := Codec{}
	for _, m := range []any{
		&Request{Call: "t1.a1", Step: "plan", Body: []byte(`{"stream":true}`)},
		&Frame{Call: "t1.a1", Seq: 3, EOF: true, Data: []byte("event: message_stop\ndata: {}\n\n")},
		&Abort{Call: "t2.a1"},
		&ToolCall{Call: "t1.toolu_1", Name: "bash", Args: []byte(`{"cmd":"ls"}`)},
		&ToolResult{Call: "t1.toolu_1", Status: ToolCancelled, Exit: 130, Output: []byte{0, 1, 0xff}},
		&ToolCancel{Call: "t1.toolu_1"},
	} {
		b, err := c.Append(nil, m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{})
	f.Add([]byte{tagFrame, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := c.Decode(b)
		if err != nil {
			if m != nil {
				t.Fatalf("a message and an error: %v", err)
			}
			return
		}
		out, err := c.Append(nil, m)
		if err != nil {
			t.Fatalf("decoded %T does not encode: %v", m, err)
		}
		if !bytes.Equal(out, b) {
			// A non-minimal uvarint decodes to the same value: not an
			// error, but the message must still round-trip as a value.
			again, err := c.Decode(out)
			if err != nil || !reflect.DeepEqual(again, m) {
				t.Fatalf("%T round trip: %v %#v vs %#v", m, err, again, m)
			}
		}
	})
}
