package bundle

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseEventLine_Malformed(t *testing.T) {
	ok := `{"virtual_time_ns":5,"host_id":"a","kind_tag":"swim","event":{"type":"ping_sent"}}`
	tests := []struct {
		name, line, want string
	}{
		{"empty", "", "empty line"},
		{"blank", "  \t", "empty line"},
		{"not JSON", "hello", "not a JSON event record"},
		{"truncated", ok[:40], "not a JSON event record"},
		{"array", "[1,2]", "not a JSON event record"},
		{"trailing garbage", ok + "x", "not a JSON event record"},
		{"two records", ok + ok, "not a JSON event record"},
		{"missing time", `{"host_id":"a","kind_tag":"swim","event":{"type":"t"}}`, "missing virtual_time_ns"},
		{"null time", `{"virtual_time_ns":null,"host_id":"a","kind_tag":"swim","event":{"type":"t"}}`, "missing virtual_time_ns"},
		{"negative time", `{"virtual_time_ns":-1,"host_id":"a","kind_tag":"swim","event":{"type":"t"}}`, "negative"},
		{"fractional time", `{"virtual_time_ns":1.5,"host_id":"a","kind_tag":"swim","event":{"type":"t"}}`, "not a JSON event record"},
		{"time overflows", `{"virtual_time_ns":9223372036854775808,"host_id":"a","kind_tag":"swim","event":{"type":"t"}}`, "not a JSON event record"},
		{"string time", `{"virtual_time_ns":"5","host_id":"a","kind_tag":"swim","event":{"type":"t"}}`, "not a JSON event record"},
		{"missing host", `{"virtual_time_ns":5,"kind_tag":"swim","event":{"type":"t"}}`, "missing host_id"},
		{"numeric host", `{"virtual_time_ns":5,"host_id":7,"kind_tag":"swim","event":{"type":"t"}}`, "host_id is neither"},
		{"empty host", `{"virtual_time_ns":5,"host_id":"","kind_tag":"swim","event":{"type":"t"}}`, "host_id is an empty string"},
		{"missing kind tag", `{"virtual_time_ns":5,"host_id":"a","event":{"type":"t"}}`, "missing kind_tag"},
		{"empty kind tag", `{"virtual_time_ns":5,"host_id":"a","kind_tag":"","event":{"type":"t"}}`, "kind_tag is empty"},
		{"missing event", `{"virtual_time_ns":5,"host_id":"a","kind_tag":"swim"}`, "missing event"},
		{"null event", `{"virtual_time_ns":5,"host_id":"a","kind_tag":"swim","event":null}`, "not a JSON object"},
		{"string event", `{"virtual_time_ns":5,"host_id":"a","kind_tag":"swim","event":"t"}`, "not a JSON object"},
		{"event without type", `{"virtual_time_ns":5,"host_id":"a","kind_tag":"swim","event":{"to":"b"}}`, `no "type"`},
		{"event with empty type", `{"virtual_time_ns":5,"host_id":"a","kind_tag":"swim","event":{"type":""}}`, `no "type"`},
		{"event with numeric type", `{"virtual_time_ns":5,"host_id":"a","kind_tag":"swim","event":{"type":3}}`, "event:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseEventLine([]byte(tt.line))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ParseEventLine(%q) = %v, want an error containing %q", tt.line, err, tt.want)
			}
		})
	}
}

func TestParseEventLine_AcceptsOtherProducersSpacingAndOrder(t *testing.T) {
	line := ` { "event" : { "n" : 1 , "type" : "probe_sent" } , "kind_tag" : "swim" , "host_id" : null , "virtual_time_ns" : 42 } `
	rec, err := ParseEventLine([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	want := EventRecord{VirtualTimeNs: 42, KindTag: "swim", Type: "probe_sent", Event: json.RawMessage(`{ "n" : 1 , "type" : "probe_sent" }`)}
	if rec.VirtualTimeNs != want.VirtualTimeNs || rec.HostID != "" || rec.KindTag != want.KindTag || rec.Type != want.Type || !bytes.Equal(rec.Event, want.Event) {
		t.Errorf("ParseEventLine = %+v, want %+v", rec, want)
	}
}

func TestReadEvents_NamesMalformedLine(t *testing.T) {
	dir := t.TempDir()
	good := string(AppendEventLine(nil, 1, "a", "echo", fakeEvent{"t", "", 0}))
	mustWrite(t, filepath.Join(dir, EventsFile), good+good+`{"virtual_time_ns":2,"host_id":"a"}`+"\n"+good)
	calls := 0
	err := ReadEvents(dir, func(int, EventRecord) error { calls++; return nil })
	var le *LineError
	if !errors.As(err, &le) || le.Line != 3 {
		t.Fatalf("ReadEvents = %v, want a *LineError for line 3", err)
	}
	if !strings.Contains(err.Error(), "events.ndjson line 3: missing kind_tag") {
		t.Errorf("error %q does not say where and what", err)
	}
	if calls != 2 {
		t.Errorf("callback ran %d times before the bad line, want 2", calls)
	}
}

func TestReadEvents_CallbackErrorStopsAndIsReturned(t *testing.T) {
	dir := t.TempDir()
	good := string(AppendEventLine(nil, 1, "a", "echo", fakeEvent{"t", "", 0}))
	mustWrite(t, filepath.Join(dir, EventsFile), good+good+good)
	stop := errors.New("stop")
	calls := 0
	err := ReadEvents(dir, func(line int, _ EventRecord) error {
		calls++
		if line == 2 {
			return stop
		}
		return nil
	})
	if err != stop || calls != 2 {
		t.Errorf("ReadEvents = %v after %d calls, want the callback's error after 2", err, calls)
	}
}

func TestReadEvents_EmptyFileAndMissingFile(t *testing.T) {
	dir := t.TempDir()
	if err := ReadEvents(dir, func(int, EventRecord) error { return nil }); err == nil {
		t.Error("ReadEvents without events.ndjson succeeded, want an error")
	}
	mustWrite(t, filepath.Join(dir, EventsFile), "")
	if err := ReadEvents(dir, func(int, EventRecord) error { t.Error("callback on empty file"); return nil }); err != nil {
		t.Errorf("ReadEvents on an empty file = %v, want nil", err)
	}
}

// rawEvent replays a decoded payload through AppendEventLine.
type rawEvent struct {
	typ string
	raw []byte
}

func (e rawEvent) Type() string                 { return e.typ }
func (e rawEvent) AppendJSON(dst []byte) []byte { return append(dst, e.raw...) }

func FuzzParseEventLine(f *testing.F) {
	f.Add([]byte(`{"virtual_time_ns":5,"host_id":"a","kind_tag":"swim","event":{"type":"ping_sent","n":1}}`))
	f.Add([]byte(`{"virtual_time_ns":0,"host_id":null,"kind_tag":"engine","event":{"type":"mutation"}}`))
	f.Add([]byte(`{"virtual_time_ns":1,"host_id":"\u00e9\n","kind_tag":"k","event":{"type":"t\"","x":[1,{"y":null}]}}`))
	f.Add([]byte(`{"virtual_time_ns":-1}`))
	f.Add([]byte(`{"event":null}`))
	f.Add([]byte("\xff"))
	f.Fuzz(func(t *testing.T, line []byte) {
		rec, err := ParseEventLine(line)
		if err != nil {
			return
		}
		// A record that parses is written back by AppendEventLine as a
		// line that parses to the same record.
		var compact bytes.Buffer
		if err := json.Compact(&compact, rec.Event); err != nil {
			t.Fatalf("accepted event is not JSON: %v", err)
		}
		out := AppendEventLine(nil, rec.VirtualTimeNs, rec.HostID, rec.KindTag, rawEvent{rec.Type, compact.Bytes()})
		back, err := ParseEventLine(out[:len(out)-1])
		if err != nil {
			t.Fatalf("re-encoded line %s does not parse: %v", out, err)
		}
		if back.VirtualTimeNs != rec.VirtualTimeNs || back.HostID != rec.HostID || back.KindTag != rec.KindTag ||
			back.Type != rec.Type || !bytes.Equal(back.Event, compact.Bytes()) {
			t.Fatalf("round trip changed the record: %+v -> %+v", rec, back)
		}
	})
}
