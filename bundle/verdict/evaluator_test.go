package verdict

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/kinds/agent/agentcheck"
	"github.com/detsim/detsim/kinds/raft/rafthost"
	"github.com/detsim/detsim/kinds/swim/swimcheck"
	"github.com/detsim/detsim/scenarios"
)

// TestNew_AcceptsEveryCatalogKind ties the evaluator to the scenario
// schema: every §10.1 kind the loader accepts, as the typed value it
// decodes, is one the evaluator can judge.
func TestNew_AcceptsEveryCatalogKind(t *testing.T) {
	ab := peers("a", "b")
	vals := []scenarios.AssertionParams{
		swimcheck.AllAliveAt{AtNs: sec, Peers: ab},
		swimcheck.AllAliveThroughout{WindowStartNs: 0, WindowEndNs: sec, Peers: ab},
		swimcheck.ConvergenceAfter{AfterNs: sec, WithinNs: sec, Peers: ab},
		swimcheck.NoFlapWhileProbesOK{Peer: "a", WindowStartNs: 0, WindowEndNs: sec},
		swimcheck.NoDeadWhenProbesOK{Peer: "a", WindowStartNs: 0, WindowEndNs: sec},
		swimcheck.SelfIncarnationBounded{Peer: "a", MaxValue: 3},
		swimcheck.MessageSizeBounded{MessageKind: "ping", MaxBytes: 3},
		swimcheck.DeadPeerResurrectsWithin{Peer: "a", AfterNs: sec, WithinNs: sec},
		scenarios.EventCount{EventType: "ping", Max: 3},
		scenarios.EventRate{EventType: "ping", WindowNs: sec, MaxPerWindow: 3},
		agentcheck.EffectOutcomeOnce{Peer: "a"},
		agentcheck.CancelSettlesWithin{Peer: "a", WithinNs: sec},
		agentcheck.NoTornSuccess{Peer: "a"},
		agentcheck.NoLostAck{Peer: "a"},
		agentcheck.ToolResultMatched{Peer: "a"},
		agentcheck.OutputBounded{Peer: "a", MaxBytes: 13},
		agentcheck.RetryBudget{Peer: "a", MaxAttempts: 14},
		agentcheck.ResponseBounded{Peer: "a", MaxBytes: 15},
		agentcheck.NoCommitAfterSettle{Peer: "a"},
		agentcheck.TurnOutcomeOnce{Peer: "a"},
		agentcheck.ToolRunOnce{Peer: "a"},
		agentcheck.ToolResultReturned{Peer: "a"},
		agentcheck.TurnNotRepeated{Peer: "a"},
		agentcheck.ToolDeadlineKept{Peer: "a", WithinNs: sec},
		agentcheck.NoWorkAfterCancel{Peer: "a", WithinNs: sec},
		rafthost.ElectionSafety{},
		rafthost.LogMatching{},
		rafthost.LeaderCompleteness{},
		rafthost.StateMachineSafety{},
		rafthost.ProposalCommitsWithin{AfterNs: sec, WithinNs: sec},
		rafthost.NoLeaderChange{WindowStartNs: 0, WindowEndNs: sec},
		rafthost.NoRaftPanic{},
		rafthost.CatchesUpAfterHeal{WithinNs: sec},
		rafthost.Linearizable{},
	}
	var judged, catalog []string
	for _, p := range vals {
		judged = append(judged, p.Kind())
		if _, err := New([]scenarios.Assertion{scenarios.NewAssertion("x", p)}); err != nil {
			t.Errorf("%s: %v", p.Kind(), err)
		}
	}
	for _, k := range scenarios.AssertionKinds(builtin.Registry()) {
		catalog = append(catalog, k.Kind)
	}
	slices.Sort(judged)
	slices.Sort(catalog)
	if !slices.Equal(judged, catalog) {
		t.Errorf("evaluator judges %v, catalog kinds %v", judged, catalog)
	}
}

// TestNew_RejectsParametersItCannotInterpret: assertions built in code
// never met the loader; New rejects those no scenario could hold, with
// the messages the map-reading evaluator gave.
func TestNew_RejectsParametersItCannotInterpret(t *testing.T) {
	cases := []struct {
		name    string
		a       scenarios.Assertion
		wantErr string
	}{
		{"unknown kind", scenarios.Assertion{Name: "x", Kind: "all_dead"}, `verdict: assertion "x" (all_dead): no parameters`},
		{"unknown kind with parameters", scenarios.Assertion{Name: "x", Kind: "all_dead", Params: scenarios.EventCount{EventType: "x"}}, "parameters are event_count's"},
		{"no parameters", scenarios.Assertion{Name: "x", Kind: "all_alive_at"}, `verdict: assertion "x" (all_alive_at): no parameters`},
		{"parameters of another kind", scenarios.Assertion{Name: "x", Kind: "all_alive_at", Params: scenarios.EventCount{EventType: "x"}}, "parameters are event_count's"},
		{"a pointer", scenarios.Assertion{Name: "x", Kind: "event_count", Params: &scenarios.EventCount{EventType: "x"}}, "parameters of type *scenarios.EventCount"},
		{"a nil pointer", scenarios.Assertion{Name: "x", Kind: "event_count", Params: (*scenarios.EventCount)(nil)}, "parameters of type *scenarios.EventCount"},
		{"negative time", assertion(swimcheck.AllAliveAt{AtNs: -1, Peers: peers("a")}), `verdict: assertion "all_alive_at#0" (all_alive_at): parameter "at_ns": must not be negative, got -1`},
		{"empty peers", assertion(swimcheck.AllAliveAt{AtNs: sec, Peers: peers()}), "at least one peer"},
		{"empty peer id", assertion(swimcheck.AllAliveAt{AtNs: sec, Peers: peers("")}), "element 0"},
		{"inverted window", assertion(swimcheck.AllAliveThroughout{WindowStartNs: 2 * sec, WindowEndNs: sec, Peers: peers("a")}), "before window_start_ns"},
		{"zero rate window", assertion(scenarios.EventRate{EventType: "x", WindowNs: 0, MaxPerWindow: 1}), "at least 1"},
		{"overflowing deadline", assertion(swimcheck.ConvergenceAfter{AfterNs: 1 << 62, WithinNs: 1 << 62, Peers: peers("a")}), "overflows"},
		{"empty peer", assertion(swimcheck.SelfIncarnationBounded{Peer: "", MaxValue: 1}), "must not be empty"},
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

// TestNew_RepeatedPeersCountOnce: a code-built peers list may repeat an
// id (the loader rejects that); it judges as the set.
func TestNew_RepeatedPeersCountOnce(t *testing.T) {
	s := &stream{}
	s.initial(0, "a", "b")
	_, once := judge(t, s, 10*sec, assertion(swimcheck.AllAliveAt{AtNs: sec, Peers: peers("a", "b")}))
	_, twice := judge(t, s, 10*sec, assertion(swimcheck.AllAliveAt{AtNs: sec, Peers: peers("a", "b", "a")}))
	if once[0].Outcome != Pass || twice[0].Outcome != once[0].Outcome || twice[0].Reason != once[0].Reason {
		t.Fatalf("once: %s %q; twice: %s %q", once[0].Outcome, once[0].Reason, twice[0].Outcome, twice[0].Reason)
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
		{Name: "alive", Kind: "all_alive_at", Params: swimcheck.AllAliveAt{AtNs: 5 * sec, Peers: peers("a", "b", "c")}},
		{Name: "drops", Kind: "event_count", Params: scenarios.EventCount{EventType: "drop_on_send", Max: int64(1)}},
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
		got[i].Reason, got[i].Evidence = "", nil // the reason's wording and the evidence are other tests'
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
		assertion(swimcheck.AllAliveAt{AtNs: 5 * sec, Peers: peers("a", "b", "c")}),
		{Name: "rate", Kind: "event_rate", Params: scenarios.EventRate{EventType: "drop_on_send", WindowNs: sec, MaxPerWindow: int64(1)}},
		{Name: "flap", Kind: "no_flap_while_probes_ok", Params: swimcheck.NoFlapWhileProbesOK{Peer: "c", WindowStartNs: int64(0), WindowEndNs: 10 * sec}},
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
	s := refutedSuspicion()
	s.probe(13*sec, "a", "probe_sent", "c", 2)
	s.view(14*sec, "a", "c", "suspect", 1)
	prefix := len(s.lines)
	acked := &stream{lines: slices.Clone(s.lines)}
	acked.probe(15*sec, "a", "probe_acked", "c", 2)
	timedOut := &stream{lines: slices.Clone(s.lines)}
	timedOut.probe(15*sec, "a", "probe_timed_out", "c", 2)

	as := []scenarios.Assertion{assertion(swimcheck.NoFlapWhileProbesOK{Peer: "c", WindowStartNs: int64(0), WindowEndNs: 100 * sec})}
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
	want := map[string]any{"at_ns": 5 * sec, "peers": []string{"a", "b", "c"}}
	if !reflect.DeepEqual(vs[1].Parameters, want) {
		t.Fatalf("parameters %v, want %v", vs[1].Parameters, want)
	}
}

func TestObserve_MalformedRecordsAreReported(t *testing.T) {
	as := []scenarios.Assertion{
		assertion(swimcheck.AllAliveAt{AtNs: 5 * sec, Peers: peers("a")}),
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
	_, vs := judge(t, &s, 10*sec, assertion(swimcheck.AllAliveThroughout{WindowStartNs: int64(0), WindowEndNs: 10 * sec, Peers: peers("a", "b")}))
	if vs[0].Outcome != Pass {
		t.Fatalf("%s: %s", vs[0].Outcome, vs[0].Reason)
	}
}

// TestObserve_RoutesByKindTag (issue 24): a record of another kind that
// happens to use a swim event type name is not read as SWIM's. Before
// routing by kind_tag, the "dead" view below failed all_alive_at, and a
// malformed payload of another kind was an error in this run's bundle.
func TestObserve_RoutesByKindTag(t *testing.T) {
	s := &stream{}
	s.initial(0, "a", "b")
	s.add(sec, "a", "raftlike", `{"type":"state_transition","observer":"a","subject":"b","from":"alive","to":"dead","incarnation":0,"reason":"x"}`)
	s.add(2*sec, "a", "raftlike", `{"type":"state_transition","term":3}`)
	_, vs := judge(t, s, 10*sec, assertion(swimcheck.AllAliveAt{AtNs: 5 * sec, Peers: peers("a", "b")}))
	if vs[0].Outcome != Pass {
		t.Fatalf("%s: %s", vs[0].Outcome, vs[0].Reason)
	}
	// The same record tagged swim is SWIM's.
	s.lines[len(s.lines)-2] = strings.Replace(s.lines[len(s.lines)-2], `"raftlike"`, `"swim"`, 1)
	s.lines = s.lines[:len(s.lines)-1]
	if _, vs := judge(t, s, 10*sec, assertion(swimcheck.AllAliveAt{AtNs: 5 * sec, Peers: peers("a", "b")})); vs[0].Outcome != Fail {
		t.Fatalf("tagged swim: %s: %s", vs[0].Outcome, vs[0].Reason)
	}
}

// fakeFamily is a kind's assertions as a new kind declares them: its
// judge counts the records of its own tag it is handed.
var fakeFamily = &hosts.Assertions{Judge: func(ps []hosts.AssertionParams) hosts.Judge { return &fakeJudge{res: make([]hosts.Result, len(ps))} }}

type fakeParams struct{ Max int64 }

func (p *fakeParams) Bind() []hosts.Slot     { return []hosts.Slot{hosts.CountParam("max", &p.Max)} }
func (p fakeParams) Slots() []hosts.Slot     { return p.Bind() }
func (fakeParams) Kind() string              { return "fake_count" }
func (fakeParams) Family() *hosts.Assertions { return fakeFamily }
func init() {
	fakeFamily.Kinds = []hosts.AssertionKind{hosts.Def[fakeParams]([2]string{}, [2]string{})}
}
func (j *fakeJudge) Reads(tag, typ string) hosts.Read {
	if tag == "fake" {
		return hosts.ReadWhole
	}
	return hosts.ReadSkip
}

type fakeJudge struct {
	n    int64
	tags []string
	res  []hosts.Result
}

func (j *fakeJudge) Observe(rec *hosts.EventRec) error {
	j.n++
	j.tags = append(j.tags, rec.KindTag+"/"+rec.Type+"/"+string(rec.Event))
	return nil
}
func (j *fakeJudge) Hold(int64, int64) {}
func (j *fakeJudge) Finish(int64) {
	for i := range j.res {
		j.res[i].Resolve(Pass, fmt.Sprintf("%d records", j.n))
	}
}
func (j *fakeJudge) Results() []*hosts.Result {
	out := make([]*hosts.Result, len(j.res))
	for i := range j.res {
		out[i] = &j.res[i]
	}
	return out
}
func (j *fakeJudge) Clone() hosts.Judge {
	c := *j
	c.res = slices.Clone(j.res)
	c.tags = slices.Clone(j.tags)
	return &c
}

// TestNew_AJudgeSeesOnlyWhatItReads: a kind's judge is handed the
// records its Reads accepts, payload included, and nothing else; its
// assertions sit among the core's in declaration order.
func TestNew_AJudgeSeesOnlyWhatItReads(t *testing.T) {
	s := &stream{}
	s.add(sec, "a", "fake", `{"type":"state_transition","x":1}`)
	s.initial(sec, "a")
	s.add(2*sec, "a", "fake", `{"type":"tick"}`)
	s.other(3*sec, "drop_on_send")
	as := []scenarios.Assertion{
		{Name: "drops", Kind: "event_count", Params: scenarios.EventCount{EventType: "drop_on_send", Max: 5}},
		{Name: "fake", Kind: "fake_count", Params: fakeParams{Max: 1}},
	}
	e, vs := judge(t, s, 10*sec, as...)
	if vs[0].Name != "drops" || vs[1].Name != "fake" || vs[1].Reason != "2 records" {
		t.Fatalf("verdicts %+v", vs)
	}
	want := []string{`fake/state_transition/{"type":"state_transition","x":1}`, `fake/tick/{"type":"tick"}`}
	if got := e.judges[0].judge.(*fakeJudge).tags; !slices.Equal(got, want) {
		t.Fatalf("judge saw %q, want %q", got, want)
	}
}
