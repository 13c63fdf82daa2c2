package verdict

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/scenarios"
)

const sec = int64(1_000_000_000)

// stream builds an events.ndjson by hand; every adder returns the line it
// wrote, so tests can name the evidence they expect.
type stream struct{ lines []string }

func (s *stream) add(t int64, host, tag, event string) int {
	h := "null"
	if host != "" {
		h = strconv.Quote(host)
	}
	s.lines = append(s.lines, fmt.Sprintf(`{"virtual_time_ns":%d,"host_id":%s,"kind_tag":%q,"event":%s}`, t, h, tag, event))
	return len(s.lines)
}

// view records obs's state_transition about subj.
func (s *stream) view(t int64, obs, subj, to string, inc int64) int {
	return s.add(t, obs, "swim", fmt.Sprintf(
		`{"type":"state_transition","observer":%q,"subject":%q,"from":"alive","to":%q,"incarnation":%d,"reason":"test"}`,
		obs, subj, to, inc))
}

// initial has every peer announce every peer (itself included) alive at
// incarnation 0, observer by observer, as SWIM hosts do at their start.
func (s *stream) initial(t int64, peers ...string) {
	for _, o := range peers {
		for _, p := range peers {
			s.add(t, o, "swim", fmt.Sprintf(
				`{"type":"state_transition","observer":%q,"subject":%q,"from":"none","to":"alive","incarnation":0,"reason":"initial"}`, o, p))
		}
	}
}

// refutedSuspicion is a, b and c alive, then a suspecting c at 10 s
// while probes between them succeed, and holding c alive again at 12 s:
// the first half of a flap.
func refutedSuspicion() *stream {
	s := &stream{}
	s.initial(0, "a", "b", "c")
	s.view(10*sec, "a", "c", "suspect", 0)
	s.probeOK(11*sec, "c", "a", 7)
	s.probeOK(11500*ms, "a", "c", 1)
	s.view(12*sec, "a", "c", "alive", 1)
	return s
}

// probe records a direct probe step ("probe_sent", "probe_acked",
// "probe_timed_out") by prober.
func (s *stream) probe(t int64, prober, step, target string, seq int64) int {
	return s.probeMode(t, prober, step, target, seq, "direct")
}

func (s *stream) probeMode(t int64, prober, step, target string, seq int64, mode string) int {
	return s.add(t, prober, "swim", fmt.Sprintf(`{"type":%q,"target":%q,"seq":%d,"mode":%q}`, step, target, seq, mode))
}

// probeOK records a direct probe sent at t and acked 1ms later; it
// returns the ack's line.
func (s *stream) probeOK(t int64, prober, target string, seq int64) int {
	s.probe(t, prober, "probe_sent", target, seq)
	return s.probe(t+1_000_000, prober, "probe_acked", target, seq)
}

func (s *stream) message(t int64, host, typ, msg string, bytes int) int {
	return s.add(t, host, "swim", fmt.Sprintf(`{"type":%q,"peer":"x","message":%q,"bytes":%d,"updates":0}`, typ, msg, bytes))
}

func (s *stream) bump(t int64, host string, old, new int64) int {
	return s.add(t, host, "swim", fmt.Sprintf(`{"type":"self_incarnation_bump","old":%d,"new":%d,"cause":"refute"}`, old, new))
}

// mutation records an engine mutation; extra is more members, `,"peer":"c"`.
func (s *stream) mutation(t int64, kind, extra string) int {
	return s.add(t, "", "engine", fmt.Sprintf(`{"type":"mutation","kind":%q%s}`, kind, extra))
}

// other records an event the evaluator only counts.
func (s *stream) other(t int64, typ string) int {
	return s.add(t, "", "engine", fmt.Sprintf(`{"type":%q}`, typ))
}

func (s *stream) records(t testing.TB) []bundle.EventRecord {
	t.Helper()
	out := make([]bundle.EventRecord, len(s.lines))
	for i, l := range s.lines {
		rec, err := bundle.ParseEventLine([]byte(l))
		if err != nil {
			t.Fatalf("line %d %s: %v", i+1, l, err)
		}
		out[i] = rec
	}
	return out
}

func (s *stream) write(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	data := strings.Join(s.lines, "\n")
	if len(s.lines) > 0 {
		data += "\n"
	}
	if err := os.WriteFile(filepath.Join(dir, bundle.EventsFile), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func assertion(p scenarios.AssertionParams) scenarios.Assertion {
	return scenarios.NewAssertion(p.Kind()+"#0", p)
}

func peers(ids ...string) []string { return ids }

// judge streams s through a new evaluator, checks that Finish agrees with
// EvaluateBundle over the same records written to disk, and returns the
// streaming evaluator and its verdicts.
func judge(t *testing.T, s *stream, endNs int64, as ...scenarios.Assertion) (*Evaluator, []Verdict) {
	t.Helper()
	e, err := New(as)
	if err != nil {
		t.Fatal(err)
	}
	for i, rec := range s.records(t) {
		e.Observe(i+1, rec)
	}
	if err := e.Err(); err != nil {
		t.Fatal(err)
	}
	streamed := e.Finish(endNs)
	post, err := EvaluateBundle(s.write(t), as, endNs)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(streamed, post) {
		t.Fatalf("streaming and post-run verdicts differ:\nstream: %+v\npost:   %+v", streamed, post)
	}
	return e, streamed
}

// evidenceLines returns the events.ndjson lines a verdict cites.
func evidenceLines(t *testing.T, v Verdict) []int {
	t.Helper()
	var out []int
	for _, ev := range v.Evidence {
		n, ok := strings.CutPrefix(ev.Ref, "events.ndjson#L")
		if !ok {
			t.Fatalf("evidence ref %q", ev.Ref)
		}
		line, err := strconv.Atoi(n)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, line)
	}
	return out
}

// kindCase is one planted-fault table row: a stream, the outcome it must
// get, the evidence lines it must cite and, when the prefix decides it,
// the line that did.
type kindCase struct {
	name     string
	params   scenarios.AssertionParams
	build    func(s *stream) (evidence []int, resolvedAt int)
	endNs    int64
	want     Outcome
	inReason string
}

func runKindCases(t *testing.T, kind string, cases []kindCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := &stream{}
			wantEvidence, wantLine := tc.build(s)
			if tc.params.Kind() != kind {
				t.Fatalf("a %s case with %s parameters", kind, tc.params.Kind())
			}
			e, vs := judge(t, s, tc.endNs, assertion(tc.params))
			v := vs[0]
			if v.Outcome != tc.want {
				t.Fatalf("outcome %s, want %s (reason: %s)", v.Outcome, tc.want, v.Reason)
			}
			if got := evidenceLines(t, v); !slices.Equal(got, wantEvidence) {
				t.Errorf("evidence lines %v, want %v (reason: %s)", got, wantEvidence, v.Reason)
			}
			if tc.inReason != "" && !strings.Contains(v.Reason, tc.inReason) {
				t.Errorf("reason %q does not mention %q", v.Reason, tc.inReason)
			}
			st := e.Status()[0]
			if st.Line != wantLine || st.Resolved != (wantLine > 0) {
				t.Errorf("streaming: resolved=%v at line %d, want line %d (0 = only at Finish)", st.Resolved, st.Line, wantLine)
			}
			if st.Resolved && st.Outcome != v.Outcome {
				t.Errorf("streaming outcome %s, final %s", st.Outcome, v.Outcome)
			}
			if strings.ContainsAny(v.Reason, "\n\r") || v.Reason == "" {
				t.Errorf("reason must be one non-empty line: %q", v.Reason)
			}
		})
	}
}
