package bundle

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/detsim/detsim/hosts"
)

func TestAppendEventLine_Envelope_9_2(t *testing.T) {
	tests := []struct {
		name string
		rec  record
		want string
	}{
		{
			name: "host bound",
			rec:  record{123, "a", "echo", fakeEvent{"ping_sent", "x", 64}},
			want: `{"virtual_time_ns":123,"host_id":"a","kind_tag":"echo","event":{"type":"ping_sent","note":"x","n":64}}` + "\n",
		},
		{
			name: "no host is null",
			rec:  record{0, "", "engine", fakeEvent{"mutation", "Heal", 0}},
			want: `{"virtual_time_ns":0,"host_id":null,"kind_tag":"engine","event":{"type":"mutation","note":"Heal","n":0}}` + "\n",
		},
		{
			name: "strings escaped",
			rec:  record{9223372036854775807, `we"ird\`, "k\tind", fakeEvent{"t", "line\nbreak \x01 \xff", -5}},
			want: `{"virtual_time_ns":9223372036854775807,"host_id":"we\"ird\\","kind_tag":"k\tind","event":{"type":"t","note":"line\nbreak \u0001 \ufffd","n":-5}}` + "\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(AppendEventLine([]byte("prefix|"), tt.rec.at, tt.rec.host, tt.rec.kindTag, tt.rec.ev))
			if got != "prefix|"+tt.want {
				t.Errorf("got  %s\nwant %s", got, "prefix|"+tt.want)
			}
			if !json.Valid([]byte(tt.want[:len(tt.want)-1])) {
				t.Errorf("line is not valid JSON: %s", tt.want)
			}
		})
	}
}

func TestAppendEventLine_NoAllocationWithCapacity(t *testing.T) {
	var ev hosts.Event = fakeEvent{"message_sent", "to b", 64}
	buf := make([]byte, 0, 512)
	allocs := testing.AllocsPerRun(100, func() {
		buf = AppendEventLine(buf[:0], 1_000_000, "orch", "swim", ev)
	})
	if allocs != 0 {
		t.Errorf("AppendEventLine allocated %v times per call, want 0", allocs)
	}
}

func BenchmarkWriteEventLine(b *testing.B) {
	w, err := Create(filepath.Join(b.TempDir(), "out"))
	if err != nil {
		b.Fatal(err)
	}
	defer w.Abort()
	benchEventLines(b, func(line []byte) {
		if err := w.WriteEventLine(line); err != nil {
			b.Fatal(err)
		}
	})
	if err := w.FlushEvents(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkAppendEventLine is the CPU side of BenchmarkWriteEventLine,
// without the file and the hash.
func BenchmarkAppendEventLine(b *testing.B) { benchEventLines(b, nil) }

// benchEventLines appends a swim message_sent line each loop, hands it
// to write when that is not nil, and reports the records per second.
func benchEventLines(b *testing.B, write func(line []byte)) {
	var ev hosts.Event = fakeEvent{"message_sent", "to sgp kind=ping updates=41", 9812}
	line := make([]byte, 0, 512)
	var at int64
	for b.Loop() {
		at += 1_000
		line = AppendEventLine(line[:0], at, "orch", "swim", ev)
		if write != nil {
			write(line)
		}
	}
	b.SetBytes(int64(len(line)))
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// TestAppendEventLineWith_SameBytes: a kept Envelope writes exactly the
// line AppendEventLine writes, null host and strings needing escapes
// included.
func TestAppendEventLineWith_SameBytes(t *testing.T) {
	for _, r := range append(sampleRecords, record{7, "h\"\\\n\u2028é", "k\t", fakeEvent{"t", "x", 1}}) {
		want := AppendEventLine(nil, r.at, r.host, r.kindTag, r.ev)
		if got := AppendEventLineWith(nil, r.at, NewEnvelope(r.host, r.kindTag), r.ev); string(got) != string(want) {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}
}

// TestLineTypeAndPayload_AgreeWithParseEventLine: LineType and LinePayload
// take the writer's shape on trust where ParseEventLine checks it; on
// every line the writer can produce, the answers must be the same.
func TestLineTypeAndPayload_AgreeWithParseEventLine(t *testing.T) {
	var lines [][]byte
	for _, r := range append(slices.Clone(sampleRecords),
		record{9223372036854775807, `we"ird\`, "k\tind", fakeEvent{"t", "line\nbreak \x01 \xff", -5}},
		record{1, `"event":{"type":"x"}`, `,"event":{"type":"y"}`, fakeEvent{"real", `"event":{"type":"z"}`, 0}},
		record{2, "h\u2028", "swim", fakeEvent{"日本", "}}", 1}},
	) {
		lines = append(lines, AppendEventLine(nil, r.at, r.host, r.kindTag, r.ev))
	}
	for _, l := range ownLines {
		if strings.HasPrefix(l[strings.Index(l, lineEventKey)+len(lineEventKey):], `{"type":`) {
			lines = append(lines, []byte(l+"\n"))
		}
	}
	for _, line := range lines {
		rec, err := ParseEventLine(bytes.TrimSuffix(line, []byte("\n")))
		if err != nil {
			t.Fatalf("ParseEventLine(%s): %v", line, err)
		}
		for _, l := range [][]byte{line, bytes.TrimSuffix(line, []byte("\n"))} {
			if got := LineType(l); string(got) != rec.Type {
				t.Errorf("LineType(%q) = %q, ParseEventLine's type %q", l, got, rec.Type)
			}
			if got := LinePayload(l); !bytes.Equal(got, rec.Event) {
				t.Errorf("LinePayload(%q) = %s, ParseEventLine's event %s", l, got, rec.Event)
			}
		}
	}
}
