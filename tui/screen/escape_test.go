package screen

import (
	"strings"
	"testing"
)

// What the stepper shows of a record is escaped: an event type, a host
// id, a member name and a value carrying an OSC title sequence, BEL, a
// screen-clearing CSI or a right-to-left override reach the panes as
// \xNN and \uNNNN, never as themselves.
func TestParseEvent_EscapesWhatTheRecordCarries(t *testing.T) {
	line := `{"virtual_time_ns":5,"host_id":"h\u001b[2J","kind_tag":"swim","event":{"type":"t\u001b]0;pwned\u0007","k\u202e":"v\u009b31m","nested":{"x":"\u2066y"}}}`
	ev, err := ParseEvent([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	shown := ev.Host + " " + ev.Type + " " + ev.summary(nil)
	for _, raw := range []string{"\x1b", "\x07", "\u202e", "\u009b", "\u2066"} {
		if strings.Contains(shown, raw) {
			t.Errorf("shown raw %q: %q", raw, shown)
		}
	}
	for _, esc := range []string{`h\x1b[2J`, `t\x1b]0;pwned\x07`, `k\u202e=v\u009b31m`, `x:\u2066y`} {
		if !strings.Contains(shown, esc) {
			t.Errorf("%q not shown escaped in %q", esc, shown)
		}
	}
}
