package verdict

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/scenarios"
)

// TestNew_AcceptsEveryCatalogKind ties the evaluator to the loader's
// parameter table: every §10.1 kind the loader accepts, with parameters
// of the types it produces, is one the evaluator can judge.
func TestNew_AcceptsEveryCatalogKind(t *testing.T) {
	var kinds []string
	for _, k := range scenarios.AssertionKinds() {
		kinds = append(kinds, k.Kind)
		params := map[string]any{}
		for _, p := range k.Params {
			switch p.Type {
			case scenarios.ParamTime, scenarios.ParamSpan:
				params[p.Key] = sec
			case scenarios.ParamCount:
				params[p.Key] = int64(3)
			case scenarios.ParamPeer:
				params[p.Key] = "a"
			case scenarios.ParamPeers:
				params[p.Key] = peers("a", "b")
			case scenarios.ParamString:
				params[p.Key] = "ping"
			default:
				t.Fatalf("%s.%s: parameter type %d unknown to this test", k.Kind, p.Key, p.Type)
			}
		}
		if _, err := New([]scenarios.Assertion{{Name: "x", Kind: k.Kind, Params: params}}); err != nil {
			t.Errorf("%s: %v", k.Kind, err)
		}
	}
	if got := slices.Sorted(maps.Keys(constructors)); !slices.Equal(got, slices.Sorted(slices.Values(kinds))) {
		t.Errorf("evaluator kinds %v, catalog kinds %v", got, kinds)
	}
}

func TestNew_RejectsParametersItCannotInterpret(t *testing.T) {
	cases := []struct {
		name    string
		a       scenarios.Assertion
		wantErr string
	}{
		{"unknown kind", assertion("all_dead", nil), `unknown kind "all_dead"`},
		{"missing parameter", assertion("all_alive_at", map[string]any{"peers": peers("a")}), `"at_ns": missing`},
		{"wrong type", assertion("all_alive_at", map[string]any{"at_ns": "5s", "peers": peers("a")}), `"at_ns": want an integer`},
		{"negative time", assertion("all_alive_at", map[string]any{"at_ns": int64(-1), "peers": peers("a")}), "must not be negative"},
		{"empty peers", assertion("all_alive_at", map[string]any{"at_ns": sec, "peers": peers()}), "at least one peer"},
		{"peer not a string", assertion("all_alive_at", map[string]any{"at_ns": sec, "peers": []any{int64(1)}}), "element 0"},
		{"inverted window", assertion("all_alive_throughout", map[string]any{"window_start_ns": 2 * sec, "window_end_ns": sec, "peers": peers("a")}), "before window_start_ns"},
		{"zero rate window", assertion("event_rate", map[string]any{"event_type": "x", "window_ns": int64(0), "max_per_window": int64(1)}), "at least 1"},
		{"overflowing deadline", assertion("convergence_after", map[string]any{"after_ns": int64(1 << 62), "within_ns": int64(1 << 62), "peers": peers("a")}), "overflows"},
		{"empty peer", assertion("self_incarnation_bounded", map[string]any{"peer": "", "max_value": int64(1)}), "must not be empty"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New([]scenarios.Assertion{tc.a})
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v, want one mentioning %q", err, tc.wantErr)
			}
		})
	}
}

// twoKinds is a run where an all_alive_at resolves at line 11 (Pass) and
// an event_count fails at line 12.
func twoKinds() (*stream, []scenarios.Assertion) {
	s := &stream{}
	s.initial(0, "a", "b", "c")
	s.other(1*sec, "drop_on_send") // 10
	s.other(6*sec, "tick")         // 11: passes at_ns
	s.other(7*sec, "drop_on_send") // 12: second drop
	s.other(8*sec, "drop_on_send") // 13
	return s, []scenarios.Assertion{
		{Name: "alive", Kind: "all_alive_at", Params: map[string]any{"at_ns": 5 * sec, "peers": peers("a", "b", "c")}},
		{Name: "drops", Kind: "event_count", Params: map[string]any{"event_type": "drop_on_send", "max": int64(1)}},
	}
}

func TestResolved_EarlyTermination_4_8(t *testing.T) {
	s, as := twoKinds()
	e, err := New(as)
	if err != nil {
		t.Fatal(err)
	}
	resolvedAt := 0
	for i, rec := range s.records(t) {
		e.Observe(i+1, rec)
		if e.Resolved() {
			resolvedAt = i + 1
			break
		}
	}
	if resolvedAt != 12 {
		t.Fatalf("resolved after line %d, want 12", resolvedAt)
	}
	want := []Partial{
		{Name: "alive", Kind: "all_alive_at", Resolved: true, Outcome: Pass, Line: 11},
		{Name: "drops", Kind: "event_count", Resolved: true, Outcome: Fail, Line: 12},
	}
	got := e.Status()
	for i := range got {
		got[i].Reason = ""
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("status %+v, want %+v", got, want)
	}
	// The bundle of an early-terminated run ends at line 12 and gives the
	// same verdicts as the stream.
	s.lines = s.lines[:12]
	post, err := EvaluateBundle(s.write(t), as, 7*sec)
	if err != nil {
		t.Fatal(err)
	}
	if streamed := e.Finish(7 * sec); !reflect.DeepEqual(streamed, post) {
		t.Fatalf("stream %+v, post-run %+v", streamed, post)
	}
}

func TestResolved_WithNoAssertions(t *testing.T) {
	e, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !e.Resolved() {
		t.Fatal("nothing to decide, yet not resolved")
	}
	if vs := e.Finish(sec); len(vs) != 0 {
		t.Fatalf("verdicts %+v", vs)
	}
}

func TestStatus_UnresolvedHasNoOutcome(t *testing.T) {
	_, as := twoKinds()
	e, _ := New(as)
	for _, p := range e.Status() {
		if p.Resolved || p.Outcome != "" || p.Line != 0 {
			t.Fatalf("fresh evaluator reports %+v", p)
		}
	}
}

func TestFirstFailure(t *testing.T) {
	s, as := twoKinds()
	e, _ := New(as)
	recs := s.records(t)
	for i, rec := range recs[:11] {
		e.Observe(i+1, rec)
	}
	if _, _, ok := e.FirstFailure(); ok {
		t.Fatal("a failure before any was decided")
	}
	e.Observe(12, recs[11])
	name, line, ok := e.FirstFailure()
	if !ok || name != "drops" || line != 12 {
		t.Fatalf("first failure %q at %d (%v), want drops at 12", name, line, ok)
	}
}

func TestClone_IsIndependent(t *testing.T) {
	s := &stream{}
	s.initial(0, "a", "b", "c")
	s.view(4*sec, "b", "c", "suspect", 0) // 10
	recs := s.records(t)
	as := []scenarios.Assertion{
		assertion("all_alive_at", map[string]any{"at_ns": 5 * sec, "peers": peers("a", "b", "c")}),
		{Name: "rate", Kind: "event_rate", Params: map[string]any{"event_type": "drop_on_send", "window_ns": sec, "max_per_window": int64(1)}},
		{Name: "flap", Kind: "no_flap_while_probes_ok", Params: map[string]any{"peer": "c", "window_start_ns": int64(0), "window_end_ns": 10 * sec}},
	}
	e, _ := New(as)
	for i, rec := range recs {
		e.Observe(i+1, rec)
	}
	before := e.Finish(10 * sec)
	c := e.Clone()

	// The clone sees c refuted before at_ns and two drops; the original
	// sees nothing more.
	more := &stream{lines: slices.Clone(s.lines)}
	more.view(4500*ms, "b", "c", "alive", 1)
	more.other(4600*ms, "drop_on_send")
	more.other(4700*ms, "drop_on_send")
	for i, rec := range more.records(t)[len(recs):] {
		c.Observe(len(recs)+i+1, rec)
	}
	if got := e.Finish(10 * sec); !reflect.DeepEqual(got, before) {
		t.Fatalf("feeding the clone changed the original:\n%+v\n%+v", got, before)
	}
	after := c.Finish(10 * sec)
	if after[0].Outcome != Pass || after[1].Outcome != Fail {
		t.Fatalf("clone verdicts %s %s, want Pass Fail", after[0].Outcome, after[1].Outcome)
	}
	if before[0].Outcome != Fail || before[1].Outcome != Pass {
		t.Fatalf("original verdicts %s %s, want Fail Pass", before[0].Outcome, before[1].Outcome)
	}
}

// TestClone_ProbeSpansAreIndependent forks a run while a flap waits on a
// pending probe: acked in one branch (Fail), timed out in the other.
func TestClone_ProbeSpansAreIndependent(t *testing.T) {
	s := &stream{}
	s.initial(0, "a", "b", "c")
	s.view(10*sec, "a", "c", "suspect", 0)
	s.probeOK(11*sec, "c", "a", 7)
	s.probeOK(11500*ms, "a", "c", 1)
	s.view(12*sec, "a", "c", "alive", 1)
	s.probe(13*sec, "a", "probe_sent", "c", 2)
	s.view(14*sec, "a", "c", "suspect", 1)
	prefix := len(s.lines)
	acked := &stream{lines: slices.Clone(s.lines)}
	acked.probe(15*sec, "a", "probe_acked", "c", 2)
	timedOut := &stream{lines: slices.Clone(s.lines)}
	timedOut.probe(15*sec, "a", "probe_timed_out", "c", 2)

	as := []scenarios.Assertion{assertion("no_flap_while_probes_ok", map[string]any{"peer": "c", "window_start_ns": int64(0), "window_end_ns": 100 * sec})}
	e, _ := New(as)
	for i, rec := range s.records(t) {
		e.Observe(i+1, rec)
	}
	c := e.Clone()
	e.Observe(prefix+1, acked.records(t)[prefix])
	c.Observe(prefix+1, timedOut.records(t)[prefix])
	if got := e.Status()[0]; got.Outcome != Fail || got.Line != prefix+1 {
		t.Fatalf("acked branch: %+v, want Fail at line %d", got, prefix+1)
	}
	if got := c.Status()[0]; got.Resolved {
		t.Fatalf("timed-out branch resolved: %+v", got)
	}
	if e.Err() != nil || c.Err() != nil {
		t.Fatal(e.Err(), c.Err())
	}
	if got := c.Finish(200 * sec)[0].Outcome; got != Pass {
		t.Fatalf("timed-out branch: %s, want Pass", got)
	}
}

func TestFinish_LeavesTheEvaluatorUsable(t *testing.T) {
	s, as := twoKinds()
	e, _ := New(as)
	recs := s.records(t)
	for i, rec := range recs[:10] {
		e.Observe(i+1, rec)
	}
	early := e.Finish(2 * sec) // a provisional look: at_ns is still ahead
	if early[0].Outcome != Inconclusive || e.Resolved() {
		t.Fatalf("provisional %s, resolved %v", early[0].Outcome, e.Resolved())
	}
	for i, rec := range recs[10:] {
		e.Observe(11+i, rec)
	}
	if vs := e.Finish(10 * sec); vs[0].Outcome != Pass || vs[1].Outcome != Fail {
		t.Fatalf("verdicts %s %s after continuing, want Pass Fail", vs[0].Outcome, vs[1].Outcome)
	}
}

func TestVerdicts_KeepDeclarationOrderAndParameters(t *testing.T) {
	s, as := twoKinds()
	as[0], as[1] = as[1], as[0]
	_, vs := judge(t, s, 10*sec, as...)
	if vs[0].Name != "drops" || vs[1].Name != "alive" {
		t.Fatalf("order %s, %s", vs[0].Name, vs[1].Name)
	}
	if !reflect.DeepEqual(vs[1].Parameters, as[1].Params) {
		t.Fatalf("parameters %v, want %v", vs[1].Parameters, as[1].Params)
	}
}

func TestObserve_MalformedRecordsAreReported(t *testing.T) {
	as := []scenarios.Assertion{
		assertion("all_alive_at", map[string]any{"at_ns": 5 * sec, "peers": peers("a")}),
	}
	cases := []struct {
		name, line, wantErr string
	}{
		{"time going backwards", `{"virtual_time_ns":1,"host_id":"a","kind_tag":"swim","event":{"type":"tick"}}`, "before the previous record"},
		{"unknown state", `{"virtual_time_ns":3000000000,"host_id":"a","kind_tag":"swim","event":{"type":"state_transition","observer":"a","subject":"a","to":"left","incarnation":0}}`, `unknown state "left"`},
		{"missing incarnation", `{"virtual_time_ns":3000000000,"host_id":"a","kind_tag":"swim","event":{"type":"state_transition","observer":"a","subject":"a","to":"alive"}}`, "missing incarnation"},
		{"wrong member type", `{"virtual_time_ns":3000000000,"host_id":"a","kind_tag":"swim","event":{"type":"state_transition","observer":"a","subject":"a","to":"alive","incarnation":"one"}}`, "state_transition"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := &stream{}
			s.other(2*sec, "tick")
			s.lines = append(s.lines, tc.line)
			dir := s.write(t)
			_, err := EvaluateBundle(dir, as, 10*sec)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "line 2") {
				t.Fatalf("error %v, want line 2 and %q", err, tc.wantErr)
			}
		})
	}
}

func TestEvaluateBundle_StopsReadingOnceResolved(t *testing.T) {
	s, as := twoKinds()
	s.lines = append(s.lines[:12], "not json at all")
	dir := s.write(t)
	if _, err := EvaluateBundle(dir, as, 10*sec); err != nil {
		t.Fatalf("read past the resolution point: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, bundle.EventsFile), []byte("not json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := EvaluateBundle(dir, as, 10*sec)
	var le *bundle.LineError
	if !errors.As(err, &le) || le.Line != 1 {
		t.Fatalf("error %v, want a line error at line 1", err)
	}
}

// TestEvaluateBundle_UncheckedTransitionsInOddShapes: post-run
// evaluation reads state_transition payloads without checking the line
// first (bundle.Unchecked), trusting its own reader to reject anything
// but one whole object of the simulator's shape. Lines of other shapes
// must be checked whole and read as encoding/json reads them: an extra
// envelope member after the event, a second "type" that makes the record
// no transition at all, spaces. Streaming and post-run must agree, and
// a, never really marked dead, stays alive throughout.
func TestEvaluateBundle_UncheckedTransitionsInOddShapes(t *testing.T) {
	var s stream
	s.initial(0, "a", "b")
	dead := `{"type":"state_transition","observer":"b","subject":"a","from":"alive","to":"dead","incarnation":0,"reason":"x"`
	s.lines = append(s.lines,
		`{"virtual_time_ns":1000,"host_id":"b","kind_tag":"swim","event":`+dead+`,"type":"noise"}}`,
		`{"virtual_time_ns":2000,"host_id":"b","kind_tag":"swim","event":{"type":"state_transition","observer":"b","subject":"a","from":"alive","to":"alive","incarnation":1,"reason":"x"},"extra":1}`,
		`{"virtual_time_ns":3000,"host_id":"b","kind_tag":"swim","event": {"type":"state_transition","observer":"b","subject":"a","from":"alive","to":"alive","incarnation":2,"reason":"x"}}`,
	)
	_, vs := judge(t, &s, 10*sec, assertion("all_alive_throughout", map[string]any{
		"window_start_ns": int64(0), "window_end_ns": 10 * sec, "peers": peers("a", "b")}))
	if vs[0].Outcome != Pass {
		t.Fatalf("%s: %s", vs[0].Outcome, vs[0].Reason)
	}
}
