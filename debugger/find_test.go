package debugger

import (
	"bytes"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/bundle/verdict"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/scenarios"
)

// allRecords runs sc to the end (or limit steps) and returns every line
// with the step that emitted it.
func allRecords(t testing.TB, sc *scenarios.Scenario, limit int64) (lines [][]byte, steps, ats []int64) {
	t.Helper()
	s := newSession(t, sc)
	e := s.Timeline().Engine()
	for !e.Done() && e.Index() < limit {
		s.Timeline().Step()
		for n := int64(len(lines)) + 1; n <= e.Records(); n++ {
			r, ok := s.Record(n)
			if !ok {
				t.Fatalf("line %d not cached", n)
			}
			lines, steps, ats = append(lines, slices.Clone(r.Bytes)), append(steps, r.Step), append(ats, r.At)
		}
	}
	return lines, steps, ats
}

// Search hits equal a linear scan of the run, forward from the start and
// backward from the end, for queries of every form: a substring, one
// field, conditions ANDed, none matching. The run is longer than the
// record cache, so both directions leave it (re-executing backwards).
func TestSearch_EqualsLinearScan(t *testing.T) {
	sc := library(t, "reproduction/gossip_flap")
	const limit = 40000
	lines, steps, ats := allRecords(t, sc, limit)
	if int64(len(lines)) <= RecordCache {
		t.Fatalf("only %d records: the test must outgrow the cache", len(lines))
	}
	queries := []string{
		"type=state_transition", "type=state_transition subject=orch to=suspect", "host=sgp type=probe_timed_out",
		"ping_req", "message=ack host=fra", "type=mutation", "type=no_such", "time=60s type=probe_sent", "reason=gossip",
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, qs := range queries {
		q, err := ParseQuery(qs)
		if err != nil {
			t.Fatal(err)
		}
		var want []int64
		for i, l := range lines {
			if q.Match(l, steps[i], ats[i]) {
				want = append(want, int64(i+1))
			}
		}
		sc := *sc
		sc.DurationNs = ats[len(ats)-1] // the run ends where the scan did
		s := newSession(t, &sc)
		for !s.Timeline().Engine().Done() && s.Timeline().Engine().Records() < int64(len(lines)) {
			s.Timeline().Step()
		}
		end := s.Timeline().Engine().Records()
		want = slices.DeleteFunc(want, func(n int64) bool { return n > end })
		// backward from the end
		var got []int64
		for from := end + 1; ; {
			f, done, err := s.Search(q, from, false, nil, nil)
			if err != nil || !done {
				t.Fatal(err, done)
			}
			if f.Line == 0 {
				break
			}
			if r, ok := s.Record(f.Line); !ok || r.Step != f.Step {
				t.Fatalf("%q: line %d not cached at its step after the search", qs, f.Line)
			}
			got = append(got, f.Line)
			from = f.Line
		}
		slices.Reverse(got)
		if !slices.Equal(got, want) {
			t.Fatalf("%q backward: %d hits %v…, linear scan %d %v…", qs, len(got), head(got), len(want), head(want))
		}
		// forward from a random point before the start of the cache
		if _, err := s.Timeline().Goto(0); err != nil {
			t.Fatal(err)
		}
		start := int64(rng.IntN(50))
		got = nil
		for from := start; ; {
			f, done, err := s.Search(q, from, true, nil, nil)
			if err != nil || !done {
				t.Fatal(err, done)
			}
			if f.Line == 0 {
				break
			}
			got = append(got, f.Line)
			from = f.Line
		}
		wantFwd := slices.DeleteFunc(slices.Clone(want), func(n int64) bool { return n <= start })
		if !slices.Equal(got, wantFwd) {
			t.Fatalf("%q forward from %d: %d hits %v…, linear scan %d %v…", qs, start, len(got), head(got), len(wantFwd), head(wantFwd))
		}
	}
}

func head(s []int64) []int64 { return s[:min(len(s), 8)] }

// A search that matches nothing leaves the session where it was.
func TestSearch_NoMatchStaysPut(t *testing.T) {
	s := newSession(t, library(t, "reproduction/gossip_flap"))
	s.GotoStep(500, nil)
	q, _ := ParseQuery("type=no_such_type")
	for _, fwd := range []bool{true, false} {
		f, done, err := s.Search(q, s.Timeline().Engine().Records(), fwd, nil, nil)
		if err != nil || !done || f.Line != 0 || s.Timeline().Engine().Index() != 500 {
			t.Fatalf("forward %v: %+v %v %v at step %d", fwd, f, done, err, s.Timeline().Engine().Index())
		}
	}
}

// Every record a run writes has a type and members the schema lists: the
// schema is derived from the kinds' prototypes, and this keeps the
// prototypes complete. docs/events.md names every type and field too.
func TestSchema_CoversEveryRecordAndTheDocs(t *testing.T) {
	docs, err := os.ReadFile("../docs/events.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"reproduction/gossip_flap", "reference/echo_parity"} {
		sc := library(t, name)
		schema := NewSchema(sc, builtin.Registry())
		lines, _, _ := allRecords(t, sc, 20000)
		for i, l := range lines {
			typ := string(bundle.LineType(l))
			fields, ok := schema.fields[typ]
			if !ok {
				t.Fatalf("%s line %d: type %q not in the schema %v", name, i+1, typ, schema.Types())
			}
			for _, m := range members(bundle.LinePayload(l)) {
				f := m.name
				if f != "type" && !slices.Contains(fields, f) {
					t.Fatalf("%s line %d: %s member %q not in the schema %v", name, i+1, typ, f, fields)
				}
				// An ordering is refused on a member the schema does not
				// call a number: the records must agree with it.
				if f != "type" && m.number != schema.Numeric(typ, f) {
					t.Fatalf("%s line %d: %s member %q is a number: %v, the schema says %v", name, i+1, typ, f, m.number, schema.Numeric(typ, f))
				}
			}
		}
		for _, typ := range schema.Types() {
			if !bytes.Contains(docs, []byte("`"+typ+"`")) {
				t.Errorf("docs/events.md does not name type %s", typ)
			}
			for _, f := range schema.Fields(typ) {
				if !bytes.Contains(docs, []byte(f)) {
					t.Errorf("docs/events.md does not name %s's member %s", typ, f)
				}
			}
		}
	}
}

// fail fires at every step an assertion fails, so c goes on from one
// failure to the next; fail=NAME only at that assertion's.
func TestBreakFail_EachFailureAndByName(t *testing.T) {
	sc := library(t, "reproduction/gossip_flap")
	s := newSession(t, sc)
	var fails []string
	for {
		hit := s.Continue([]Breakpoint{{Kind: BreakFail}})
		if hit.Breakpoint == nil {
			break
		}
		for _, p := range s.Evaluator().Status() {
			if p.Resolved && p.Outcome == verdict.Fail && !slices.Contains(fails, p.Name) {
				fails = append(fails, p.Name)
			}
		}
	}
	if len(fails) < 2 {
		t.Fatalf("gossip_flap failed only %v while streaming: the test wants two", fails)
	}
	for _, name := range fails {
		s := newSession(t, sc)
		hit := s.Continue([]Breakpoint{{Kind: BreakFail, Arg: name}})
		var line int
		for _, p := range s.Evaluator().Status() {
			if p.Name == name {
				line = p.Line
			}
		}
		r, ok := s.Record(int64(line))
		if hit.Breakpoint == nil || !ok || r.Step != hit.Step {
			t.Errorf("fail=%s: stopped at %+v; its deciding line %d is from step %d", name, hit, line, r.Step)
		}
	}
	if err := NewSchema(sc, builtin.Registry()).Check(Breakpoint{Kind: BreakFail, Arg: "nope"}); err == nil || !strings.Contains(err.Error(), fails[0]) {
		t.Errorf("unknown assertion: %v", err)
	}
}
