package jsonw_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/detsim/detsim/internal/jsonw"
	"github.com/detsim/detsim/kinds/swim/swim"
)

// TestAppendString_SameAsSwim: kinds/swim/swim has its own string escaper,
// because it imports nothing of the simulator; its event bytes and the
// records around them must still escape every string the same way, or a
// record's bytes would depend on which side wrote its strings. swim's
// escaper is unexported, so this reads it through an event's AppendJSON.
// Both must also agree with encoding/json (HTML escaping off).
func TestAppendString_SameAsSwim(t *testing.T) {
	tricky := []string{
		"", "orch-1_a", `a"b`, `a\b`, `\"`, "\"\\\"",
		"\b\f\n\r\t", "\x00\x01\x07\x0b\x1b\x1f", "\x7f", "<a&b>", "a/b",
		"héllo 世界 🦀", "a\u2028b\u2029c", "\u2027\u202a",
		"a\xffb", "\xc3\x28\xff", "ab\xe4\xb8", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\ufffd",
		string([]byte{0xe2, 0x80}), "\xe2\x80\xa8\xe2\x80",
	}
	for _, s := range tricky {
		ev := &swim.SelfIncarnationBump{Old: 1, New: 2, Cause: s}
		got := ev.AppendJSON(nil)
		want := jsonw.AppendString([]byte(`{"type":"self_incarnation_bump","old":1,"new":2,"cause":`), s)
		want = append(want, '}')
		if !bytes.Equal(got, want) {
			t.Errorf("%q: swim writes %s, jsonw %s", s, got, want)
		}
		var std bytes.Buffer
		enc := json.NewEncoder(&std)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		if w := jsonw.AppendString(nil, s); !bytes.Equal(w, bytes.TrimSuffix(std.Bytes(), []byte("\n"))) {
			t.Errorf("%q: jsonw writes %s, encoding/json %s", s, w, std.Bytes())
		}
	}
}

// TestFields_SameAsSwim: the field writers write what kinds/swim/swim's twins
// write (read through a swim event's AppendJSON), so a kind using them
// and swim write a record the same way.
func TestFields_SameAsSwim(t *testing.T) {
	ev := &swim.StateTransition{Observer: "n1", Subject: "n\"2", From: swim.Alive, To: swim.Suspect, Incarnation: 1<<53 + 1}
	want := jsonw.AppendTypeField(nil, ev.Type())
	want = jsonw.AppendStringField(want, "observer", ev.Observer)
	want = jsonw.AppendStringField(want, "subject", ev.Subject)
	want = jsonw.AppendStringField(want, "from", ev.From.String())
	want = jsonw.AppendStringField(want, "to", ev.To.String())
	want = jsonw.AppendUintField(want, "incarnation", ev.Incarnation)
	if got := ev.AppendJSON(nil); !bytes.HasPrefix(got, want) {
		t.Errorf("swim writes %s, jsonw %s", got, want)
	}
	for _, v := range []bool{true, false} {
		got := append(jsonw.AppendBoolField(jsonw.AppendTypeField(nil, "t"), "ok", v), '}')
		var back struct {
			Type string `json:"type"`
			OK   bool   `json:"ok"`
		}
		if err := json.Unmarshal(got, &back); err != nil || back.Type != "t" || back.OK != v {
			t.Errorf("%s: %+v %v", got, back, err)
		}
	}
}
