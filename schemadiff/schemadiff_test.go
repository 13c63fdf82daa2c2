package schemadiff

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/detsim/detsim/batch"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/scenarios"
)

// writeBundle writes a hand-made bundle: a manifest (live or simulated),
// the given event lines and, when gaps is not "", a known_gaps.md.
func writeBundle(t *testing.T, live bool, gaps string, lines ...string) string {
	t.Helper()
	dir := t.TempDir()
	manifest := `{"format":"detsim-bundle/1","clock":"virtual","duration_ns":1}`
	if live {
		manifest = `{"format":"detsim-bundle/1","live":true,"clock":"wall","duration_ns":1}`
	}
	must(t, os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(manifest), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "events.ndjson"), []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	if gaps != "" {
		must(t, os.WriteFile(filepath.Join(dir, "known_gaps.md"), []byte(gaps), 0o644))
	}
	return dir
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

const gapsDoc = "# Known gaps\n\nProse.\n\n## Events not modelled\n\nSome prose.\n\n- `iroh/*` — iroh internals.\n- `kademlia/lookup` — one kind.\n- `relay_stats` — any tag.\n\n## Another section\n\n- not an entry: outside the section\n"

// Records used by the table.
const (
	sent     = `{"virtual_time_ns":1,"host_id":"a","kind_tag":"swim","event":{"type":"message_sent","peer":"b","message":"ping","bytes":40,"updates":0}}`
	sentF    = `{"virtual_time_ns":1,"host_id":"a","kind_tag":"swim","event":{"type":"message_sent","peer":"b","message":"ping","bytes":40.5,"updates":0}}`
	sentNoU  = `{"virtual_time_ns":1,"host_id":"a","kind_tag":"swim","event":{"type":"message_sent","peer":"b","message":"ping","bytes":40}}`
	sentNull = `{"virtual_time_ns":1,"host_id":"a","kind_tag":"swim","event":{"type":"message_sent","peer":null,"message":"ping","bytes":40,"updates":0}}`
	probe1   = `{"virtual_time_ns":2,"host_id":"a","kind_tag":"swim","event":{"type":"probe_sent","target":"b","seq":1,"mode":"indirect","via":["c"]}}`
	probe3   = `{"virtual_time_ns":3,"host_id":"a","kind_tag":"swim","event":{"type":"probe_sent","target":"b","seq":2,"mode":"indirect","via":["c","d","e"]}}`
	probeInt = `{"virtual_time_ns":3,"host_id":"a","kind_tag":"swim","event":{"type":"probe_sent","target":"b","seq":2,"mode":"indirect","via":[1]}}`
	nested   = `{"virtual_time_ns":4,"host_id":null,"kind_tag":"engine","event":{"type":"x","o":{"a":1,"b":{"c":"s"}},"l":[{"k":true}]}}`
	nested2  = `{"virtual_time_ns":4,"host_id":null,"kind_tag":"engine","event":{"type":"x","o":{"a":1,"b":{"c":null}},"l":[{"k":true}]}}`
	iroh     = `{"virtual_time_ns":5,"host_id":"a","kind_tag":"iroh","event":{"type":"conn_opened","remote":"b"}}`
	kadLook  = `{"virtual_time_ns":5,"host_id":"a","kind_tag":"kademlia","event":{"type":"lookup"}}`
	kadPut   = `{"virtual_time_ns":5,"host_id":"a","kind_tag":"kademlia","event":{"type":"put"}}`
	relay    = `{"virtual_time_ns":5,"host_id":"a","kind_tag":"quic","event":{"type":"relay_stats"}}`
	// spaced is sent written with spaces and in another member order.
	spaced = `{ "event" : { "type" : "message_sent", "updates": 0, "peer" : "b", "message":"ping", "bytes" : 40 }, "kind_tag" : "swim", "host_id":"a", "virtual_time_ns" : 1 }`
)

func TestCompare_Table(t *testing.T) {
	type want struct {
		onlySim, onlyProd []string // kind names
		ignored           []string // prod-only kinds ignored
		simGaps           []string
		fields            []string // "kind path A B"
		failed            bool
	}
	cases := []struct {
		name      string
		sim, prod []string
		want      want
	}{
		{name: "same", sim: []string{sent, probe1}, prod: []string{sent, probe3}, want: want{}},
		{name: "spacing and member order do not matter", sim: []string{sent}, prod: []string{spaced}, want: want{}},
		{name: "kind only in sim", sim: []string{sent, probe1}, prod: []string{sent},
			want: want{onlySim: []string{"swim/probe_sent"}, failed: true}},
		{name: "kind only in prod", sim: []string{sent}, prod: []string{sent, probe1},
			want: want{onlyProd: []string{"swim/probe_sent"}, failed: true}},
		{name: "known-gap kinds ignored on prod side", sim: []string{sent}, prod: []string{sent, iroh, kadLook, relay},
			want: want{onlyProd: []string{"iroh/conn_opened", "kademlia/lookup", "quic/relay_stats"}, ignored: []string{"iroh/conn_opened", "kademlia/lookup", "quic/relay_stats"}}},
		{name: "a gap entry names one kind, not its tag", sim: []string{sent}, prod: []string{sent, kadPut},
			want: want{onlyProd: []string{"kademlia/put"}, failed: true}},
		{name: "known-gap kinds not ignored on sim side", sim: []string{sent, iroh}, prod: []string{sent},
			want: want{onlySim: []string{"iroh/conn_opened"}, simGaps: []string{"iroh/conn_opened"}, failed: true}},
		{name: "field missing in prod", sim: []string{sent}, prod: []string{sentNoU},
			want: want{fields: []string{"swim/message_sent event.updates integer -"}, failed: true}},
		{name: "field missing in sim", sim: []string{sentNoU}, prod: []string{sent},
			want: want{fields: []string{"swim/message_sent event.updates - integer"}, failed: true}},
		{name: "integer vs float", sim: []string{sent}, prod: []string{sentF},
			want: want{fields: []string{"swim/message_sent event.bytes integer float"}, failed: true}},
		{name: "a type only sometimes", sim: []string{sent}, prod: []string{sent, sentNull},
			want: want{fields: []string{"swim/message_sent event.peer string string|null"}, failed: true}},
		{name: "array element types", sim: []string{probe1}, prod: []string{probeInt},
			want: want{fields: []string{"swim/probe_sent event.via[] string integer"}, failed: true}},
		{name: "array length does not matter", sim: []string{probe1}, prod: []string{probe3}, want: want{}},
		{name: "nested paths", sim: []string{nested}, prod: []string{nested2},
			want: want{fields: []string{"engine/x event.o.b.c string null"}, failed: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sim := writeBundle(t, false, gapsDoc, c.sim...)
			prod := writeBundle(t, true, "", c.prod...)
			// Both orders: the sim as A (prod found from its manifest), and
			// as B (given explicitly).
			for _, order := range []struct {
				a, b string
				opts Options
			}{{sim, prod, Options{}}, {prod, sim, Options{Prod: A}}} {
				r, err := Compare(order.a, order.b, order.opts)
				if err != nil {
					t.Fatal(err)
				}
				onlyA, onlyB := r.OnlyA, r.OnlyB
				if r.Prod == A {
					onlyA, onlyB = onlyB, onlyA
				}
				var got want
				for _, k := range onlyA {
					got.onlySim = append(got.onlySim, k.Kind)
					if k.Ignored != "" {
						t.Errorf("sim-only kind %s ignored", k.Kind)
					}
				}
				for _, k := range onlyB {
					got.onlyProd = append(got.onlyProd, k.Kind)
					if k.Ignored != "" {
						got.ignored = append(got.ignored, k.Kind)
					}
				}
				for _, k := range r.SimGaps {
					got.simGaps = append(got.simGaps, k.Kind)
				}
				for _, f := range r.Fields {
					fa, fb := f.A, f.B
					if r.Prod == A {
						fa, fb = fb, fa
					}
					got.fields = append(got.fields, f.Kind+" "+f.Path+" "+fa+" "+fb)
				}
				got.failed = r.Failed()
				if strings.Join(got.onlySim, ",") != strings.Join(c.want.onlySim, ",") ||
					strings.Join(got.onlyProd, ",") != strings.Join(c.want.onlyProd, ",") ||
					strings.Join(got.ignored, ",") != strings.Join(c.want.ignored, ",") ||
					strings.Join(got.simGaps, ",") != strings.Join(c.want.simGaps, ",") ||
					strings.Join(got.fields, ";") != strings.Join(c.want.fields, ";") ||
					got.failed != c.want.failed {
					var out bytes.Buffer
					r.Write(&out)
					t.Errorf("prod=%s: got %+v, want %+v\n%s", r.Prod, got, c.want, out.String())
				}
			}
		})
	}
}

func TestCompare_ProdSide(t *testing.T) {
	simA := writeBundle(t, false, gapsDoc, sent)
	simB := writeBundle(t, false, "", sent, iroh)
	live := writeBundle(t, true, "", sent, iroh)
	for _, c := range []struct {
		a, b string
		opts Options
		prod Side
		fail bool
	}{
		{simA, live, Options{}, B, false},       // the live one
		{live, simA, Options{}, A, false},       // the live one, as A
		{simA, simB, Options{}, B, false},       // neither live: B
		{simB, simA, Options{Prod: B}, B, true}, // explicit: simA is prod, simB the sim emitting iroh
	} {
		r, err := Compare(c.a, c.b, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		if r.Prod != c.prod || r.Failed() != c.fail {
			t.Errorf("%+v: prod %s failed %v (%s)", c, r.Prod, r.Failed(), r.ProdWhy)
		}
	}
}

func TestCompare_Write(t *testing.T) {
	sim := writeBundle(t, false, gapsDoc, sent, probe1)
	prod := writeBundle(t, true, "", sentF, iroh)
	r, err := Compare(sim, prod, Options{})
	must(t, err)
	var out bytes.Buffer
	must(t, r.Write(&out))
	for _, want := range []string{
		"production is B: B is live (manifest \"live\": true), A is not",
		"events not modelled (" + filepath.Join(sim, "known_gaps.md") + "): iroh/*, kademlia/lookup, relay_stats",
		"FAIL  kind swim/probe_sent only in A (sim): 1 records, first at events.ndjson#L2",
		"ignored (known gap iroh/*) kind iroh/conn_opened only in B (prod)",
		"FAIL  swim/message_sent event.bytes: A integer, B float (A first at events.ndjson#L1, B first at events.ndjson#L1)",
		"schemadiff: FAIL, 2 schema difference(s)",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	must(t, r.WriteJSON(&out))
	if !strings.Contains(out.String(), `"failed": true`) {
		t.Errorf("JSON report: %s", out.String())
	}
}

func TestCompare_BadLine(t *testing.T) {
	sim := writeBundle(t, false, gapsDoc, sent, `{"virtual_time_ns":1,"kind_tag":"swim","event":{"type":"x",}}`)
	_, err := Compare(sim, sim, Options{})
	var le *LineError
	if !errors.As(err, &le) || le.Line != 2 || !strings.Contains(err.Error(), "events.ndjson line 2") {
		t.Fatalf("err = %v, want a LineError at line 2", err)
	}
}

func TestWalker_Rejects(t *testing.T) {
	for _, line := range []string{
		``, `[]`, `{}`, `{"kind_tag":"swim"}`, `{"kind_tag":"swim","event":{}}`,
		`{"kind_tag":"swim","event":{"type":1}}`, `{"kind_tag":"","event":{"type":"x"}}`,
		`{"kind_tag":"swim","event":{"type":""}}`, `{"kind_tag":"s","event":{"type":"x"}} x`,
		`{"kind_tag":"s","event":{"type":"x","n":01}}`, `{"kind_tag":"s","event":{"type":"x","n":1.}}`,
		`{"kind_tag":"s","event":{"type":"x","s":"a` + "\x01" + `"}}`, `{"kind_tag":"s","event":{"type":"x","s":"\q"}}`,
		`{"kind_tag":"s","event":{"type":"x","a":[1,]}}`, `{"kind_tag":"s","event":{"type":"x"}`,
		`{"kind_tag":"s","event":{"type":"x","d":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}}`,
	} {
		var w walker
		if err := w.line([]byte(line)); err == nil {
			t.Errorf("accepted %q", line)
		}
	}
}

func TestWalker_Escapes(t *testing.T) {
	s, err := readSchema(strings.NewReader(`{"kind_t\u0061g":"sw\u0069m","event":{"\u0074ype":"p\u0069ng","a\"b":1}}` + "\r\n"))
	must(t, err)
	k := s.Kinds["swim/ping"]
	if k == nil || k.Fields[`event.a"b`] == nil || k.Fields["kind_tag"] == nil {
		t.Fatalf("kinds %v", s.Kinds)
	}
}

func TestSchema_CachesShapes(t *testing.T) {
	var in strings.Builder
	for range 1000 {
		in.WriteString(sent + "\n" + probe1 + "\n" + probe3 + "\n")
	}
	s, err := readSchema(strings.NewReader(in.String()))
	must(t, err)
	if s.Records != 3000 || s.Kinds["swim/probe_sent"].Records != 2000 || len(s.shapes) != 2 {
		t.Errorf("records %d, probe_sent %d, shapes %d", s.Records, s.Kinds["swim/probe_sent"].Records, len(s.shapes))
	}
}

func TestParseKnownGaps(t *testing.T) {
	gaps, err := ParseKnownGaps(gapsDoc)
	must(t, err)
	var names []string
	for _, g := range gaps {
		names = append(names, g.String())
	}
	if strings.Join(names, ",") != "iroh/*,kademlia/lookup,relay_stats" || gaps[0].Line != 9 {
		t.Errorf("gaps %v", gaps)
	}
	for _, bad := range []string{"- iroh/*", "- `iroh/*", "- `/x`", "- `iroh/`", "- `*`", "- `a/b/c`", "- `a b`"} {
		if _, err := ParseKnownGaps("## Events not modelled\n\n" + bad + "\n"); err == nil || !strings.Contains(err.Error(), "line 3") {
			t.Errorf("%q: err %v", bad, err)
		}
	}
	if gaps, err := ParseKnownGaps("# no section\n- `x`\n"); err != nil || len(gaps) != 0 {
		t.Errorf("no section: %v %v", gaps, err)
	}
}

// The document built into every bundle parses, and lists the subsystems
// its prose names.
func TestParseKnownGaps_Shipped(t *testing.T) {
	b, err := os.ReadFile("../bundle/known_gaps.md")
	must(t, err)
	gaps, err := ParseKnownGaps(string(b))
	must(t, err)
	if len(gaps) != 3 {
		t.Errorf("shipped known_gaps.md lists %v", gaps)
	}
}

func TestEachLine_LongAndUnterminated(t *testing.T) {
	long := strings.Repeat("x", 3*readBufferSize)
	var got []int
	err := eachLine(strings.NewReader("a\n"+long+"\nb"), func(n int64, b []byte) error {
		got = append(got, len(b))
		return nil
	})
	must(t, err)
	if len(got) != 3 || got[0] != 1 || got[1] != len(long) || got[2] != 1 {
		t.Errorf("lines %v", got)
	}
}

// A simulator bundle against itself reports nothing, and every kind it
// emits has the envelope and a type.
func TestCompare_SimBundleVsItself(t *testing.T) {
	reg := builtin.Registry()
	sc, err := scenarios.LoadLibrary("topology/partition_heal", reg)
	must(t, err)
	dir := filepath.Join(t.TempDir(), "b")
	_, err = batch.Run(sc, reg, batch.Config{Out: dir, Version: "test"})
	must(t, err)
	r, err := Compare(dir, dir, Options{})
	must(t, err)
	var out bytes.Buffer
	must(t, r.Write(&out))
	if r.Failed() || len(r.OnlyA)+len(r.OnlyB)+len(r.Fields)+len(r.SimGaps) != 0 || r.A.Kinds < 8 {
		t.Errorf("a bundle differs from itself:\n%s", out.String())
	}
	if !strings.HasSuffix(out.String(), "schemadiff: no schema differences\n") {
		t.Errorf("report:\n%s", out.String())
	}
}

// TestCompare_UnobservedByProduction: a kind or a field only the
// simulator has, which the production bundle declares it cannot observe
// (a testbed's manifest), is not a difference; one it does not declare
// still is, and a declared field that production does hold, with another
// type, is a real difference.
func TestCompare_UnobservedByProduction(t *testing.T) {
	sim := writeBundle(t, false, gapsDoc, sent, nested, probe1)
	prod := writeBundle(t, true, "", sentNoU, probe1)
	manifest := `{"format":"detsim-bundle/1","mode":"testbed","clock":"wall","duration_ns":1,"testbed":{"unobserved":[` +
		`{"what":"engine/x","why":"no such record on a kernel"},` +
		`{"what":"swim/message_sent event.updates","why":"not on the wire"}]}}`
	must(t, os.WriteFile(filepath.Join(prod, "manifest.json"), []byte(manifest), 0o644))
	r, err := Compare(sim, prod, Options{})
	must(t, err)
	var out strings.Builder
	r.Write(&out)
	if r.Failed() {
		t.Errorf("declared unobserved, still failed:\n%s", out.String())
	}
	for _, want := range []string{"production cannot observe it: no such record on a kernel", "production cannot observe it: not on the wire"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report does not say %q:\n%s", want, out.String())
		}
	}

	// The same declaration does not cover a field production has.
	prod2 := writeBundle(t, true, "", sentF, probe1)
	must(t, os.WriteFile(filepath.Join(prod2, "manifest.json"), []byte(strings.Replace(manifest, "event.updates", "event.bytes", 1)), 0o644))
	if r, err := Compare(sim, prod2, Options{}); err != nil || !r.Failed() {
		t.Errorf("a field production holds with another type passed as unobserved (%v)", err)
	}
	// Nor a kind it does not name.
	must(t, os.WriteFile(filepath.Join(prod, "manifest.json"), []byte(strings.Replace(manifest, "engine/x", "engine/y", 1)), 0o644))
	if r, err := Compare(sim, prod, Options{}); err != nil || !r.Failed() {
		t.Errorf("a kind production does not declare passed (%v)", err)
	}
}

// TestCompare_AlsoProd: a kind the sim emits that one production run
// happened not to is not held against the sim when another production
// run shows it; a kind only the other run has is no kind the sim must
// have.
func TestCompare_AlsoProd(t *testing.T) {
	sim := writeBundle(t, false, gapsDoc, sent, probe1)
	prod := writeBundle(t, true, "", sent)
	other := writeBundle(t, true, "", sent, probe1, nested)
	r, err := Compare(sim, prod, Options{})
	must(t, err)
	if !r.Failed() {
		t.Fatal("probe_sent only in the sim passed without the other run")
	}
	r, err = Compare(sim, prod, Options{AlsoProd: []string{other}})
	must(t, err)
	var out strings.Builder
	r.Write(&out)
	if r.Failed() || len(r.OnlyA) != 1 || r.OnlyA[0].ShownBy != other || len(r.OnlyB) != 0 {
		t.Errorf("with the other run: failed %v, only A %v, only B %v\n%s", r.Failed(), r.OnlyA, r.OnlyB, out.String())
	}
	if !strings.Contains(out.String(), "production emits it too, in "+other) {
		t.Errorf("the report does not name the run that shows it:\n%s", out.String())
	}
	// A run that does not show it excuses nothing.
	r, err = Compare(sim, prod, Options{AlsoProd: []string{writeBundle(t, true, "", sent)}})
	must(t, err)
	if !r.Failed() {
		t.Error("a further run without probe_sent excused it")
	}
}
