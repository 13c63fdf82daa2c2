package bundle

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// ownLines are lines in AppendEventLine's shape the fast path must take.
var ownLines = []string{
	`{"virtual_time_ns":2262719,"host_id":"sgp","kind_tag":"swim","event":{"type":"state_transition","observer":"sgp","subject":"orch","from":"none","to":"alive","incarnation":0,"reason":"initial"}}`,
	`{"virtual_time_ns":146546619,"host_id":"fra","kind_tag":"swim","event":{"type":"probe_acked","target":"orch","seq":1,"mode":"direct","rtt_ns":93276886}}`,
	`{"virtual_time_ns":0,"host_id":null,"kind_tag":"engine","event":{"type":"mutation","index":0,"kind":"Partition","peers_a":["a","b"],"peers_b":[],"links":[{"from":"a","to":"b"}],"factor_x100":-1.5e3,"ok":true,"none":null}}`,
	`{"virtual_time_ns":1,"host_id":"héllo","kind_tag":"swim","event":{"type":"日本","x":{"y":[1,{"z":[]}],"w":{}}}}`,
	`{"virtual_time_ns":1,"host_id":"a","kind_tag":"swim","event":{"x":1,"type":"late"}}`,
	`{"virtual_time_ns":1,"host_id":"a","kind_tag":"s","event":{"type":"a","deep":` + strings.Repeat("[", 64) + strings.Repeat("]", 64) + `}}`,
}

// fastSeeds are ownLines and variants near them that the fast path must
// leave to the slow path or agree on. An escape in the envelope's strings
// is one: the fast path only reads strings that decode to their bytes.
var fastSeeds = append(slices.Clone(ownLines),
	`{"virtual_time_ns":9223372036854775807,"host_id":"h\u00e9","kind_tag":"k","event":{"type":"t","note":"line\nbreak \u0001 \ufffd \"q\" \\ \/","n":-5}}`,
	`{"virtual_time_ns":1,"host_id":"a","kind_tag":"swim","event":{"type":"a","type":"b"}}`,
	`{"virtual_time_ns":1,"host_id":"a","kind_tag":"swim","event":{"type":"a","Type":"b"}}`,
	`{"virtual_time_ns":1,"host_id":"a","kind_tag":"swim","event":{"TYPE":"b"}}`,
	`{"virtual_time_ns":1,"host_id":"a","kind_tag":"swim","event":{"type":"a","typ\u0065":"b"}}`,
	`{"virtual_time_ns":1,"host_id":"a","kind_tag":"swim","event":{"type":null}}`,
	`{"virtual_time_ns":1,"host_id":"a","kind_tag":"swim","event":{"type":""}}`,
	`{"virtual_time_ns":1,"host_id":"","kind_tag":"swim","event":{"type":"a"}}`,
	`{"virtual_time_ns":1,"host_id":"a","kind_tag":"","event":{"type":"a"}}`,
	`{"virtual_time_ns":01,"host_id":"a","kind_tag":"s","event":{"type":"a"}}`,
	`{"virtual_time_ns":-0,"host_id":"a","kind_tag":"s","event":{"type":"a"}}`,
	`{"virtual_time_ns":1e3,"host_id":"a","kind_tag":"s","event":{"type":"a"}}`,
	`{"virtual_time_ns":9223372036854775808,"host_id":"a","kind_tag":"s","event":{"type":"a"}}`,
	`{"virtual_time_ns":18446744073709551616,"host_id":"a","kind_tag":"s","event":{"type":"a"}}`,
	"{\"virtual_time_ns\":1,\"host_id\":\"a\xff\",\"kind_tag\":\"s\",\"event\":{\"type\":\"a\"}}",
	"{\"virtual_time_ns\":1,\"host_id\":\"a\",\"kind_tag\":\"s\",\"event\":{\"type\":\"a\xed\xa0\x80\"}}",
	"{\"virtual_time_ns\":1,\"host_id\":\"a\",\"kind_tag\":\"s\",\"event\":{\"type\":\"a\",\"x\":\"\xff\"}}",
	`{"virtual_time_ns":1,"host_id":"a","kind_tag":"s","event":{"type":"a","y":[1,2,]}}`,
	`{"virtual_time_ns":1,"host_id":"a","kind_tag":"s","event":{"type":"a"},"extra":1}`,
	`{"virtual_time_ns":1,"host_id":"a","kind_tag":"s","event":{"type":"a"}} `,
	`{"virtual_time_ns":1,"host_id":"a","kind_tag":"s","event":{"type":"a"}}}`,
	` {"virtual_time_ns":1,"host_id":"a","kind_tag":"s","event":{"type":"a"}}`,
	`{"virtual_time_ns":1,"host_id":"a","kind_tag":"s","event":{"type":"a","deep":`+strings.Repeat("[", 70)+strings.Repeat("]", 70)+`}}`,
	`{"virtual_time_ns":1,"host_id":"a","kind_tag":"s","event":{"type":"a","deep":`+strings.Repeat("[", 65)+strings.Repeat("]", 65)+`}}`,
)

// checkFastVsSlow fails when the fast path accepts line and the slow path
// disagrees: rejects it, or decodes another record. ParseEventLine and a
// ReadEvents-style reader must both return the slow path's answer.
func checkFastVsSlow(t *testing.T, line []byte) (fast bool) {
	t.Helper()
	want, wantErr := parseEventLineSlow(line)
	got, start, end, ok := parseEventLineFast(line, nil)
	if ok {
		if wantErr != nil {
			t.Fatalf("fast path accepted %q, slow path rejects it: %v", line, wantErr)
		}
		got.Event = line[start:end]
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("line %q\nfast %+v\nslow %+v", line, got, want)
		}
	}
	var r lineReader
	scanAll := func(b []byte) (EventRecord, error) {
		rec, _, err := r.scan(b, func(_, _ string) Read { return Whole })
		return rec, err
	}
	for _, parse := range []func([]byte) (EventRecord, error){ParseEventLine, r.parse, r.parse, scanAll} {
		rec, err := parse(line)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) || !reflect.DeepEqual(rec, want) {
			t.Fatalf("line %q: got %+v, %v; want %+v, %v", line, rec, err, want, wantErr)
		}
	}
	// The head-only path may accept a line whose payload the slow path
	// rejects (that is its bargain), but never reads a line of
	// AppendEventLine's shape differently. (In a hand-made line with two
	// "type" members it reads the first, encoding/json the last.)
	if head, _, hok := parseHead(line, nil); hok && ok {
		wantHead := want
		wantHead.Event = nil
		if !reflect.DeepEqual(head, wantHead) {
			t.Fatalf("line %q\nhead %+v\nslow %+v", line, head, wantHead)
		}
	}
	// An Unchecked payload that is one valid JSON value (what a validating
	// reader accepts) is the payload the slow path reads.
	if rec, read, _ := r.scan(line, func(_, _ string) Read { return Unchecked }); read == Unchecked && wantErr == nil && json.Valid(rec.Event) {
		if !bytes.Equal(rec.Event, want.Event) {
			t.Fatalf("line %q: unchecked payload %s, slow path %s", line, rec.Event, want.Event)
		}
	}
	return ok
}

func TestParseEventLine_FastPathTakesOwnLines(t *testing.T) {
	lines := slices.Clone(ownLines)
	for _, r := range sampleRecords {
		l := AppendEventLine(nil, r.at, r.host, r.kindTag, r.ev)
		lines = append(lines, string(l[:len(l)-1]))
	}
	for _, l := range lines {
		if !checkFastVsSlow(t, []byte(l)) {
			t.Errorf("fast path left its own shape to the slow path: %s", l)
		}
	}
}

func TestParseEventLine_FastPathAgreesWithSlowPath(t *testing.T) {
	for _, l := range fastSeeds {
		checkFastVsSlow(t, []byte(l))
	}
}

// TestParseEventLine_FastPathAgreesOnEveryOneByteEdit deletes, replaces
// and inserts one byte at every position of valid lines, with the bytes
// that change JSON's meaning, and checks both paths agree on each.
func TestParseEventLine_FastPathAgreesOnEveryOneByteEdit(t *testing.T) {
	edits := []byte("\"\\{}[],: \t0-+.eEnutlTY19a\x00\x1f\x7f\x80\xc3\xff")
	for _, l := range ownLines[:6] {
		b := []byte(l)
		for i := range len(b) + 1 {
			if i < len(b) {
				checkFastVsSlow(t, append(bytes.Clone(b[:i]), b[i+1:]...))
			}
			for _, c := range edits {
				if i < len(b) {
					r := bytes.Clone(b)
					r[i] = c
					checkFastVsSlow(t, r)
				}
				checkFastVsSlow(t, append(append(bytes.Clone(b[:i]), c), b[i:]...))
			}
		}
	}
}

// FuzzFastVsSlow holds the fast path to its contract: on any bytes it
// accepts, the slow path returns the same record and no error.
func FuzzFastVsSlow(f *testing.F) {
	for _, l := range fastSeeds {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		checkFastVsSlow(t, line)
	})
}

func TestReadEvents_PayloadsStayIntactAfterLaterReads(t *testing.T) {
	dir := t.TempDir()
	var data []byte
	for i := range 3000 { // several slabs' worth
		data = AppendEventLine(data, int64(i), "a", "echo", fakeEvent{"t", strings.Repeat("x", i%300), int64(i)})
	}
	big := fakeEvent{"t", strings.Repeat("y", slabSize), 1}
	data = AppendEventLine(data, 3000, "a", "echo", big)
	mustWrite(t, filepath.Join(dir, EventsFile), string(data))
	var kept []EventRecord
	if err := ReadEvents(dir, func(_ int, rec EventRecord) error {
		kept = append(kept, rec)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	if len(kept) != len(lines) {
		t.Fatalf("read %d records, want %d", len(kept), len(lines))
	}
	for i, rec := range kept {
		want, err := parseEventLineSlow(lines[i])
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(rec, want) {
			t.Fatalf("record %d changed after later reads:\n got %s\nwant %s", i+1, rec.Event, want.Event)
		}
	}
	// A caller appending to a kept payload must not write into the next.
	_ = append(kept[0].Event, "garbage"...)
	if want, _ := parseEventLineSlow(lines[1]); !bytes.Equal(kept[1].Event, want.Event) {
		t.Errorf("appending to one payload overwrote the next: %s", kept[1].Event)
	}
}

func BenchmarkParseEventLine(b *testing.B) {
	line := []byte(fastSeeds[1])
	for b.Loop() {
		if _, err := ParseEventLine(line); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadEvents is ReadEvents over a 10,000-line file of SWIM-like
// records; ns/op is per record.
func BenchmarkReadEvents(b *testing.B) {
	dir := b.TempDir()
	var data []byte
	for i := range 10_000 {
		data = append(data, fmt.Sprintf(`{"virtual_time_ns":%d,"host_id":"p%d","kind_tag":"swim","event":{"type":"message_sent","peer":"p%d","message":"ping","bytes":%d,"updates":0}}`+"\n", i*1000, i%10, (i+1)%10, 100+i%50)...)
	}
	if err := os.WriteFile(filepath.Join(dir, EventsFile), data, 0o644); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N / 10_000 {
		if err := ReadEvents(dir, func(int, EventRecord) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

func TestScanEvents_ReadsWantedPayloadsAndSkipsTheRest(t *testing.T) {
	dir := t.TempDir()
	var data []byte
	for i := range 100 {
		typ := []string{"kept", "skipped", "trusted"}[i%3]
		data = AppendEventLine(data, int64(i), "a", "echo", fakeEvent{typ, "n", int64(i)})
	}
	// A payload the reader never looks at may be malformed; the same
	// damage in a payload it reads is an error naming the line.
	data = append(data, `{"virtual_time_ns":100,"host_id":"a","kind_tag":"echo","event":{"type":"skipped","n":}}`+"\n"...)
	mustWrite(t, filepath.Join(dir, EventsFile), string(data))
	var all []EventRecord
	if err := ReadEvents(dir, func(_ int, rec EventRecord) error {
		all = append(all, rec)
		return nil
	}); err == nil {
		t.Fatal("ReadEvents accepted a malformed payload")
	}
	reads := func(_, typ string) Read {
		switch typ {
		case "kept":
			return Whole
		case "trusted":
			return Unchecked
		}
		return Skip
	}
	n, rechecks := 0, 0
	asked := map[int]bool{}
	err := ScanEvents(dir, reads, func(line int, rec EventRecord) error {
		if line > len(all) {
			n++
			return nil // the malformed line, skipped unread
		}
		want := all[line-1]
		switch rec.Type {
		case "skipped":
			want.Event = nil
		case "trusted":
			want.Unchecked = !asked[line]
		}
		// Ask for every other trusted line to be checked whole first:
		// the second call must bring the same record.
		if rec.Type == "trusted" && line%2 == 0 && !asked[line] {
			asked[line] = true
			rechecks++
			return ErrRecheck
		}
		n++
		if !reflect.DeepEqual(rec, want) {
			t.Fatalf("line %d: got %+v, want %+v", line, rec, want)
		}
		return nil
	})
	if err != nil || n != 101 || rechecks == 0 {
		t.Fatalf("ScanEvents read %d records with %d rechecks, err %v; want 101, some, nil", n, rechecks, err)
	}
	for _, typ := range []string{"kept", "trusted"} {
		bad := strings.Replace(string(data), `"type":"skipped","n":}`, `"type":"`+typ+`","n":}`, 1)
		mustWrite(t, filepath.Join(dir, EventsFile), bad)
		err = ScanEvents(dir, reads, func(_ int, rec EventRecord) error {
			if rec.Type == "trusted" && !json.Valid(rec.Event) {
				return ErrRecheck // as a validating reader would
			}
			return nil
		})
		var le *LineError
		if !errors.As(err, &le) || le.Line != 101 {
			t.Fatalf("a malformed %s payload: got %v, want a LineError at line 101", typ, err)
		}
	}
}
