package edge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	aoption "github.com/anthropics/anthropic-sdk-go/option"
	"github.com/openai/openai-go"
	ooption "github.com/openai/openai-go/option"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/bundle/verdict"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/internal/guard"
	"github.com/detsim/detsim/internal/realtime"
	"github.com/detsim/detsim/kinds/agent/internal/agenttest"
	"github.com/detsim/detsim/kinds/agent/providerserve"
	"github.com/detsim/detsim/property"
	"github.com/detsim/detsim/scenarios"
)

// scenario is a one-agent scenario: script entries, tool effects and
// extra tables (mutations) as given, and the oracles the edge judges.
func scenario(t testing.TB, script, effects, extra string) *scenarios.Scenario {
	t.Helper()
	src := agenttest.Scenario("edge_t", 1, 300_000_000_000, 1, 1_000_000_000, "turns = 2", script, effects) + extra + `
[[assertions]]
name = "no_torn_success"
kind = "no_torn_success"
peer = "agent"
[[assertions]]
name = "response_bounded"
kind = "response_bounded"
peer = "agent"
max_bytes = 262_144
[[assertions]]
name = "output_bounded"
kind = "output_bounded"
peer = "agent"
max_bytes = 17_000
[[assertions]]
name = "cancel_settles"
kind = "cancel_settles_within"
peer = "agent"
within_ns = 2_000_000_000
[[assertions]]
name = "no_commit_after_settle"
kind = "no_commit_after_settle"
peer = "agent"
[[assertions]]
name = "turns"
kind = "turn_outcome_once"
peer = "agent"
[[assertions]]
name = "one_outcome"
kind = "effect_outcome_once"
peer = "agent"
`
	sc, err := scenarios.Parse("edge_t.toml", []byte(src), builtin.Registry(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// running is an edge serving on a loopback port.
type running struct {
	url  string
	out  string
	stop func() []Episode
}

func start(t testing.TB, sc *scenarios.Scenario, opts Options) *running {
	t.Helper()
	return startWith(t, sc, opts, nil)
}

// startWith is start with a hook on the edge before it serves.
func startWith(t testing.TB, sc *scenarios.Scenario, opts Options, hook func(*Edge)) *running {
	t.Helper()
	if opts.TimeScale == 0 {
		opts.TimeScale = 0.001
	}
	opts.Out = filepath.Join(t.TempDir(), "out")
	opts.IdleStop = -1 // stopped by the test
	if opts.Key == "" {
		opts.Key = guard.NewKey()
	}
	e, err := New(sc, opts)
	if err != nil {
		t.Fatal(err)
	}
	if hook != nil {
		hook(e)
	}
	ln, err := providerserve.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var eps []Episode
	var serr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		eps, serr = e.Serve(ctx, ln)
	}()
	once := sync.OnceValue(func() []Episode {
		cancel()
		wg.Wait()
		if serr != nil {
			t.Errorf("Serve: %v", serr)
		}
		return eps
	})
	t.Cleanup(func() { once() })
	url := "http://" + ln.Addr().String()
	keys.Store(url, opts.Key)
	return &running{url: url, out: opts.Out, stop: once}
}

// keys maps a URL prefix (an edge's /sessions, a session's base) to the
// key it takes: the tests' requests present it, as an agent holding
// the key file and its session's api_key does.
var keys sync.Map

// keyOf is the key of the longest prefix of url in keys ("" for none).
func keyOf(url string) string {
	best, key := 0, ""
	keys.Range(func(k, v any) bool {
		if p := k.(string); strings.HasPrefix(url, p) && len(p) > best {
			best, key = len(p), v.(string)
		}
		return true
	})
	return key
}

// keyed sends req with the key its URL takes, unless it carries one.
func keyed(req *http.Request) (*http.Response, error) {
	if req.Header.Get("x-api-key") == "" && req.Header.Get("authorization") == "" {
		if k := keyOf(req.URL.String()); k != "" {
			req.Header.Set("x-api-key", k)
		}
	}
	return http.DefaultClient.Do(req)
}

func keyedPost(url, body string) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	if body != "" {
		req.Header.Set("content-type", "application/json")
	}
	return keyed(req)
}

func keyedGet(url string) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	return keyed(req)
}

// control is the body of a session's GET /control.
type control struct {
	Events []controlEvent `json:"events"`
}

// controlOf reads the control events at url (a session's /control with
// its query), as the agent's client does.
func controlOf(t testing.TB, url string) control {
	t.Helper()
	resp, err := keyedGet(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var ctl control
	json.NewDecoder(resp.Body).Decode(&ctl)
	return ctl
}

func post(t testing.TB, url, body string) (int, []byte) {
	t.Helper()
	resp, err := keyedPost(url, body)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// session makes session id and returns its base URL; its key is in keys.
// episodes stops r and returns its episodes, which must be n.
func (r *running) episodes(t testing.TB, n int) []Episode {
	t.Helper()
	eps := r.stop()
	if len(eps) != n {
		t.Fatalf("%d episodes, want %d", len(eps), n)
	}
	return eps
}

func (r *running) session(t testing.TB, id string) string {
	t.Helper()
	return makeSession(t, r.url, id)
}

// makeSession makes session id on the edge at url and returns its base
// URL; its key is in keys.
func makeSession(t testing.TB, url, id string) string {
	t.Helper()
	code, b := post(t, url+"/sessions", `{"id":"`+id+`"}`)
	var made struct {
		APIKey string `json:"api_key"`
	}
	if code != http.StatusCreated || json.Unmarshal(b, &made) != nil || made.APIKey == "" {
		t.Fatalf("POST /sessions: %d %s", code, b)
	}
	base := url + "/s/" + id
	keys.Store(base+"/", made.APIKey)
	keys.Store(base, made.APIKey)
	return base
}

const clean = `first_byte_ns = 300_000_000
chunk_ns = 20_000_000
text = ["Let me ", "look."]
tool_calls = [{ id = "toolu_1", name = "bash", args = ["{\"cmd\":", " \"ls\"}"] }]
input_tokens = 12
output_tokens = 30
`

var userTurn = anthropic.MessageNewParams{
	Model:     "claude-sim-1",
	MaxTokens: 256,
	Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("list the files"))},
}

// TestEdge_AnthropicSDK: the official Go SDK reads the same entry
// streamed — with the ping the API sends after message_start — and not
// streamed, as a whole message (before, a non-streaming request got an
// SSE body the SDK took for a message with no content and no error).
func TestEdge_AnthropicSDK(t *testing.T) {
	r := start(t, scenario(t, "[[script]]\n"+clean+"[[script]]\n"+clean+"[[script]]\n"+clean, "", ""), Options{})
	c := anthropic.NewClient(aoption.WithBaseURL(r.session(t, "a")), aoption.WithAPIKey(keyOf(r.url+"/s/a")), aoption.WithMaxRetries(0))
	st := c.Messages.NewStreaming(context.Background(), userTurn)
	var types []string
	var msg anthropic.Message
	for st.Next() {
		types = append(types, st.Current().Type)
		if err := msg.Accumulate(st.Current()); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Err(); err != nil || msg.Content[0].Text != "Let me look." || string(msg.Content[1].Input) != `{"cmd": "ls"}` {
		t.Fatalf("stream: %v %v %+v", err, types, msg.Content)
	}
	whole, err := c.Messages.New(context.Background(), userTurn)
	if err != nil || len(whole.Content) != 2 || whole.Content[0].Text != "Let me look." || whole.StopReason != "tool_use" || whole.ID != "msg_t1.a2" {
		t.Fatalf("non-streaming: %v %+v", err, whole)
	}
	// The SDK hides pings; the wire has one right after message_start.
	_, raw := post(t, r.url+"/s/a/v1/messages", `{"stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	if evs := strings.Split(string(raw), "\n\n"); len(evs) < 2 || !strings.HasPrefix(evs[0], "event: message_start") || !strings.HasPrefix(evs[1], "event: ping") {
		t.Fatalf("no ping after message_start: %.300s", raw)
	}
}

// TestEdge_OpenAISDK: the official Go SDK of the Chat Completions API
// reads an entry streamed and not: text, a tool call with its arguments,
// the finish reason; a 429 reaches it as the API's error.
func TestEdge_OpenAISDK(t *testing.T) {
	r := start(t, scenario(t, "[[script]]\n"+clean+"[[script]]\n"+clean+"[[script]]\nfault = { kind = \"rate_limit\" }\n", "", ""), Options{})
	c := openai.NewClient(ooption.WithBaseURL(r.session(t, "o")+"/v1"), ooption.WithAPIKey(keyOf(r.url+"/s/o")), ooption.WithMaxRetries(0))
	params := openai.ChatCompletionNewParams{Model: "gpt-sim", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("list the files")}}
	st := c.Chat.Completions.NewStreaming(context.Background(), params)
	acc := openai.ChatCompletionAccumulator{}
	for st.Next() {
		acc.AddChunk(st.Current())
	}
	if err := st.Err(); err != nil || acc.Choices[0].Message.Content != "Let me look." || acc.Choices[0].Message.ToolCalls[0].Function.Arguments != `{"cmd": "ls"}` ||
		acc.Choices[0].FinishReason != "tool_calls" {
		t.Fatalf("stream: %v %+v", err, acc.Choices)
	}
	whole, err := c.Chat.Completions.New(context.Background(), params)
	if err != nil || whole.Choices[0].Message.Content != "Let me look." || whole.Choices[0].Message.ToolCalls[0].ID != "toolu_1" {
		t.Fatalf("non-streaming: %v %+v", err, whole)
	}
	_, err = c.Chat.Completions.New(context.Background(), params)
	var aerr *openai.Error
	if !errors.As(err, &aerr) || aerr.StatusCode != 429 {
		t.Fatalf("rate limit: %T %v", err, err)
	}
}

// TestEdge_SessionsApartAndReset: two sessions each take the script from
// its first entry (an SDK's retry in one does not take the other's
// entry), and a reset starts a session's episode over.
func TestEdge_SessionsApartAndReset(t *testing.T) {
	r := start(t, scenario(t, "[[script]]\ntext = [\"first\"]\n[[script]]\ntext = [\"second\"]\n", "", ""), Options{})
	a, b := r.session(t, "a"), r.session(t, "b")
	text := func(base string) string {
		c := anthropic.NewClient(aoption.WithBaseURL(base), aoption.WithAPIKey(keyOf(base)), aoption.WithMaxRetries(0))
		m, err := c.Messages.New(context.Background(), userTurn)
		if err != nil {
			t.Fatal(err)
		}
		return m.Content[0].Text
	}
	if got := []string{text(a), text(b), text(a)}; strings.Join(got, ",") != "first,first,second" {
		t.Fatalf("texts %v", got)
	}
	if code, body := post(t, a+"/reset", ""); code != 200 {
		t.Fatalf("reset: %d %s", code, body)
	}
	if got := text(a); got != "first" {
		t.Fatalf("after reset: %q", got)
	}
}

// verdictsOf reads an episode's verdicts by name.
func verdictsOf(t testing.TB, ep Episode) map[string]verdict.Verdict {
	t.Helper()
	if ep.Err != nil {
		t.Fatal(ep.Err)
	}
	out := map[string]verdict.Verdict{}
	for _, v := range ep.Verdicts {
		out[v.Name] = v
	}
	return out
}

// TestEdge_JudgesWhatTheAgentReports: an agent that reports the content
// it took and its tool's outcome passes; one that reports success on a
// stream that carried no whole response (a duplicated fragment, which
// the official TypeScript SDK returns as success), or content other
// than the stream's, fails no_torn_success; one whose tool keeps running
// after it reported it cancelled fails no_commit_after_settle.
func TestEdge_JudgesWhatTheAgentReports(t *testing.T) {
	r := start(t, scenario(t, "[[script]]\n"+clean+"[[script]]\n"+clean+"fault = { kind = \"duplicate_fragment\", fragment = 0 }\n",
		`effects = [{ effect = "success", duration_ns = 20_000_000_000 }]`, ""), Options{Allow: []string{"echo"}})

	honest := r.session(t, "honest")
	post(t, honest+"/v1/messages", `{"stream":false,"messages":[{"role":"user","content":"hi"}]}`)
	if code, out := post(t, honest+"/tools/bash", `{"id":"toolu_1","argv":["echo","hello"]}`); code != 200 || !bytes.Contains(out, []byte(`"output":"hello\n"`)) {
		t.Fatalf("tool: %d %s", code, out)
	}
	rep := `{"turn":1,"outcome":"ok","message_id":"msg_t1.a1","text":"Let me look.","tool_uses":[{"id":"toolu_1","name":"bash","input":{"cmd":"ls"}}],"tool_results":[{"id":"toolu_1","outcome":"ok","bytes":6}]}`
	if code, out := post(t, honest+"/report", rep); code != 200 {
		t.Fatalf("report: %d %s", code, out)
	}

	liar := r.session(t, "liar")
	post(t, liar+"/v1/messages", `{"stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	post(t, liar+"/v1/messages", `{"stream":true,"messages":[{"role":"user","content":"hi"}]}`) // the duplicated fragment
	post(t, liar+"/report", `{"turn":1,"outcome":"ok","message_id":"msg_t1.a2","text":"Let me look.","tool_uses":[{"id":"toolu_1","name":"bash","input":{"cmd":{"cmd":"ls"}}}]}`)

	eps := r.episodes(t, 2)
	for _, ep := range eps {
		vs := verdictsOf(t, ep)
		switch ep.Session {
		case "honest":
			for _, v := range ep.Verdicts {
				if v.Outcome == verdict.Fail {
					t.Errorf("honest: %s: %s", v.Name, v.Reason)
				}
			}
			if vs["one_outcome"].Outcome != verdict.Inconclusive {
				t.Errorf("effect_outcome_once is not judged at the edge: %+v", vs["one_outcome"])
			}
		case "liar":
			if v := vs["no_torn_success"]; v.Outcome != verdict.Fail {
				t.Errorf("liar: no_torn_success %s: %s", v.Outcome, v.Reason)
			}
		}
		if res, err := bundle.Verify(ep.Bundle); err != nil || len(res) > 0 {
			t.Errorf("%s does not verify: %v %+v", ep.Bundle, err, res)
		}
	}
}

// TestEdge_ToolToldOrNot: a tool whose agent cancels it (the cancel
// endpoint, or closing the request) is cancelled and recorded so; one
// the agent reports cancelled but never tells commits later, and
// no_commit_after_settle fails.
func TestEdge_ToolToldOrNot(t *testing.T) {
	report := `{"turn":1,"outcome":"ok","message_id":"msg_t1.a1","text":"Let me look.","tool_uses":[{"id":"toolu_1","name":"bash","input":{"cmd":"ls"}}],"tool_results":[{"id":"toolu_1","outcome":"cancelled","bytes":0}]}`
	judge := func(eps []Episode) verdict.Verdict { return verdictsOf(t, eps[0])["no_commit_after_settle"] }

	// Told: a 100 s run (1 s here) cancelled through the endpoint.
	r := start(t, scenario(t, "[[script]]\n"+clean, `effects = [{ effect = "success", duration_ns = 100_000_000_000 }]`, ""), Options{TimeScale: 0.01})
	base := r.session(t, "told")
	post(t, base+"/v1/messages", `{"messages":[{"role":"user","content":"hi"}]}`)
	done := make(chan []byte)
	go func() { _, b := post(t, base+"/tools/bash", `{"id":"toolu_1"}`); done <- b }()
	realtime.WaitFor(t, "the tool run to start and take its cancel", 10*time.Second, func() bool {
		code, _ := post(t, base+"/tools/bash/toolu_1/cancel", "")
		return code == 200
	})
	if b := <-done; !bytes.Contains(b, []byte(`"status":"cancelled"`)) {
		t.Fatalf("cancelled run answered %s", b)
	}
	post(t, base+"/report", report)
	if v := judge(r.stop()); v.Outcome != verdict.Pass {
		t.Errorf("told: no_commit_after_settle %s: %s", v.Outcome, v.Reason)
	}

	// Untold: the report says cancelled and the run goes on; it answers
	// once it committed, 20 s × 0.01 after it began.
	r = start(t, scenario(t, "[[script]]\n"+clean, `effects = [{ effect = "success", duration_ns = 20_000_000_000 }]`, ""), Options{TimeScale: 0.01})
	untold := r.session(t, "untold")
	post(t, untold+"/v1/messages", `{"messages":[{"role":"user","content":"hi"}]}`)
	ran := make(chan []byte)
	go func() { _, b := post(t, untold+"/tools/bash", `{"id":"toolu_1"}`); ran <- b }()
	if code, b := post(t, untold+"/report", report); code != 200 {
		t.Fatalf("report: %d %s", code, b)
	}
	if b := <-ran; !bytes.Contains(b, []byte(`"status":"ok"`)) {
		t.Fatalf("untold run answered %s", b)
	}
	if v := judge(r.stop()); v.Outcome != verdict.Fail {
		t.Errorf("untold: no_commit_after_settle %s: %s", v.Outcome, v.Reason)
	}
}

// TestEdge_BadInput: a request the edge cannot parse gets the API's own
// error shape and a record, never a crash; an unknown session, tool, or
// command off the allow-list, and a report for a turn that never
// happened are refused and recorded.
func TestEdge_BadInput(t *testing.T) {
	r := start(t, scenario(t, "[[script]]\n"+clean, "", ""), Options{Allow: []string{"echo"}, MaxRequestBytes: 1 << 10})
	base := r.session(t, "s")
	for _, c := range []struct {
		url, body string
		code      int
		shape     string
	}{
		{base + "/v1/messages", `not json`, 400, `{"type":"error","error":{"type":"invalid_request_error"`},
		{base + "/v1/chat/completions", `{"messages":3}`, 400, `{"error":{"message":`},
		{base + "/v1/messages", `{"messages":[],"x":"` + strings.Repeat("a", 2<<10) + `"}`, 413, `"request_too_large"`},
		{r.url + "/s/nobody/v1/messages", `{"messages":[]}`, 404, `unknown session`},
		{base + "/tools/nope", `{"id":"toolu_1"}`, 404, `unknown tool`},
		{base + "/tools/bash", `{"id":"toolu_1","argv":["rm","-rf","/"]}`, 403, `allow-list`},
		{base + "/tools/bash", `{"id":"toolu_9"}`, 409, `asked for tool use`},
		{base + "/report", `{"turn":5,"outcome":"ok"}`, 409, `never happened`},
		{base + "/report", `{"turn":1,"outcome":"maybe"}`, 400, `outcome`},
	} {
		code, body := post(t, c.url, c.body)
		if code != c.code || !strings.Contains(string(body), c.shape) {
			t.Errorf("POST %s %.40q: %d %s, want %d with %s", c.url, c.body, code, body, c.code, c.shape)
		}
	}
	eps := r.stop()
	events := eventsOf(t, eps[0])
	if n := bytes.Count(events, []byte(`"type":"refused"`)); n != 8 {
		t.Errorf("%d refusals recorded in the session's bundle, want 8:\n%s", n, events)
	}
	if b, _ := os.ReadFile(filepath.Join(r.out, "refused.ndjson")); !bytes.Contains(b, []byte("nobody")) {
		t.Errorf("the unknown session's request is not in refused.ndjson: %s", b)
	}
	var v []map[string]any
	if b, _ := os.ReadFile(filepath.Join(eps[0].Bundle, "verdicts.json")); json.Unmarshal(b, &v) != nil || len(v) != 7 {
		t.Errorf("verdicts.json: %s", b)
	}
}

// TestEdge_CancelAtTheScenarioInstant: the scenario's Cancel fires at
// its instant, scaled, whether or not the agent listens: the control
// endpoint tells it, and the edge records it as the engine's mutation.
// An agent that reports its turn cancelled passes cancel_settles_within;
// one that never does fails it.
func TestEdge_CancelAtTheScenarioInstant(t *testing.T) {
	sc := scenario(t, "[[script]]\n"+clean+"[[script]]\n"+clean, "", "[[mutations]]\nat_ns = 1_000_000_000\nkind = \"Cancel\"\npeer = \"agent\"\n")
	var e *Edge
	r := startWith(t, sc, Options{TimeScale: 0.01, Schedule: ScheduleTime}, func(x *Edge) { e = x })
	for _, id := range []string{"settles", "ignores"} {
		base := r.session(t, id)
		post(t, base+"/v1/messages", `{"messages":[{"role":"user","content":"hi"}]}`)
		ctl := controlOf(t, base+"/control?wait=30")
		if len(ctl.Events) != 1 || ctl.Events[0].Action != "cancel" || ctl.Events[0].AtNs < 1_000_000_000 {
			t.Fatalf("%s: control %+v", id, ctl)
		}
		if id == "settles" {
			post(t, base+"/report", `{"turn":1,"outcome":"cancelled"}`)
		}
	}
	// The ignored cancellation's bound, 2 s × 0.01 after it, must pass
	// before the episode ends for it to fail rather than be undecided.
	waitSession(t, e, "ignores", "the ignored cancellation's bound to pass", func(s *session) bool { return s.now() > 3_100_000_000 })
	for _, ep := range r.stop() {
		v := verdictsOf(t, ep)["cancel_settles"]
		want := map[string]verdict.Outcome{"settles": verdict.Pass, "ignores": verdict.Fail}[ep.Session]
		if v.Outcome != want {
			t.Errorf("%s: cancel_settles %s (%s), want %s", ep.Session, v.Outcome, v.Reason, want)
		}
	}
}

// TestEdge_PropertySeedIsTheSweepsScenario: detsim edge PROPERTY --seed
// N serves the scenario the sweep runs as seed N, the same fault draws.
func TestEdge_PropertySeedIsTheSweepsScenario(t *testing.T) {
	reg := builtin.Registry()
	fs := flag.NewFlagSet("edge", flag.ContinueOnError)
	fs.Uint64("seed", 0, "")
	got, _, _, err := resolve("agent_faults", 38, fs, reg)
	if err != nil {
		t.Fatal(err)
	}
	p, err := property.LoadLibrary("agent_faults", reg)
	if err != nil {
		t.Fatal(err)
	}
	want, err := p.Scenario(38, reg)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.TOML(), want.TOML()) {
		t.Fatal("the edge's scenario for agent_faults seed 38 is not the sweep's")
	}
}

// waitSession waits, as realtime.WaitFor does, until cond holds of
// session id, called with the session's lock held.
func waitSession(t testing.TB, e *Edge, id, what string, cond func(*session) bool) {
	t.Helper()
	realtime.WaitFor(t, what, 10*time.Second, func() bool {
		e.mu.Lock()
		s := e.sessions[id]
		e.mu.Unlock()
		s.mu.Lock()
		defer s.mu.Unlock()
		return cond(s)
	})
}

// receive waits, as realtime.WaitFor does, for a value on ch.
func receive[T any](t testing.TB, what string, ch <-chan T) T {
	t.Helper()
	var v T
	realtime.WaitFor(t, what, 30*time.Second, func() bool {
		select {
		case v = <-ch:
			return true
		default:
			return false
		}
	})
	return v
}

// TestEdge_RefusedReportsAreJudged: a second report for a turn, and an
// ok report naming a message the edge never served, are refused with a
// 409 and their claims recorded all the same, so the episode's
// turn_outcome_once and no_torn_success fail on the lie.
func TestEdge_RefusedReportsAreJudged(t *testing.T) {
	r := start(t, scenario(t, "[[script]]\n"+clean, "", ""), Options{})
	twice := r.session(t, "twice")
	post(t, twice+"/v1/messages", `{"stream":false,"messages":[{"role":"user","content":"hi"}]}`)
	rep := `{"turn":1,"outcome":"ok","message_id":"msg_t1.a1","text":"Let me look.","tool_uses":[{"id":"toolu_1","name":"bash","input":{"cmd":"ls"}}]}`
	if code, out := post(t, twice+"/report", rep); code != 200 {
		t.Fatalf("report: %d %s", code, out)
	}
	if code, out := post(t, twice+"/report", `{"turn":1,"outcome":"failed"}`); code != 409 || !bytes.Contains(out, []byte("reported already")) {
		t.Fatalf("second report: %d %s", code, out)
	}
	unserved := r.session(t, "unserved")
	post(t, unserved+"/v1/messages", `{"stream":false,"messages":[{"role":"user","content":"hi"}]}`)
	if code, out := post(t, unserved+"/report", `{"turn":1,"outcome":"ok","message_id":"msg_t1.a7","text":"made up"}`); code != 409 || !bytes.Contains(out, []byte("never served")) {
		t.Fatalf("unserved report: %d %s", code, out)
	}
	eps := r.episodes(t, 2)
	for _, ep := range eps {
		vs := verdictsOf(t, ep)
		switch ep.Session {
		case "twice":
			if v := vs["turns"]; v.Outcome != verdict.Fail {
				t.Errorf("twice: turn_outcome_once %s: %s", v.Outcome, v.Reason)
			}
		case "unserved":
			if v := vs["no_torn_success"]; v.Outcome != verdict.Fail {
				t.Errorf("unserved: no_torn_success %s: %s", v.Outcome, v.Reason)
			}
		}
		events := eventsOf(t, ep)
		if !bytes.Contains(events, []byte(`"type":"refused"`)) {
			t.Errorf("%s: no refusal recorded", ep.Session)
		}
		if res, err := bundle.Verify(ep.Bundle); err != nil || len(res) > 0 {
			t.Errorf("%s does not verify: %v %+v", ep.Bundle, err, res)
		}
	}
}

// TestEdge_ToolGrandchildHoldingThePipe: a command that exits leaving a
// grandchild outside its process group with the output pipe open ends
// its run when the command ends (give or take toolWaitDelay), not when
// the grandchild does.
func TestEdge_ToolGrandchildHoldingThePipe(t *testing.T) {
	r := start(t, scenario(t, "[[script]]\n"+clean, `effects = [{ effect = "success", duration_ns = 20_000_000 }]`, ""), Options{Allow: []string{"sh"}})
	base := r.session(t, "s")
	post(t, base+"/v1/messages", `{"stream":false,"messages":[{"role":"user","content":"hi"}]}`)
	began := time.Now()
	code, out := post(t, base+"/tools/bash", `{"id":"toolu_1","argv":["sh","-c","setsid sleep 8 & echo hello"]}`)
	if took := time.Since(began); took > 5*time.Second {
		t.Errorf("the run took %v: it waited for the grandchild", took)
	}
	if code != 200 || !bytes.Contains(out, []byte(`"output":"hello\n"`)) || !bytes.Contains(out, []byte(`"exit_code":0`)) {
		t.Errorf("tool: %d %s", code, out)
	}
	r.stop()
}

// TestEdge_CancelNamesItsTool: a cancel finds its run by the tool use's
// key and only under the tool that runs it: a cancel naming another
// tool is refused and the run goes on.
func TestEdge_CancelNamesItsTool(t *testing.T) {
	var e *Edge
	r := startWith(t, scenario(t, "[[script]]\n"+clean, `effects = [{ effect = "hang" }]`, ""), Options{}, func(x *Edge) { e = x })
	base := r.session(t, "s")
	post(t, base+"/v1/messages", `{"messages":[{"role":"user","content":"hi"}]}`)
	done := make(chan []byte, 1)
	go func() { _, b := post(t, base+"/tools/bash", `{"id":"toolu_1"}`); done <- b }()
	waitSession(t, e, "s", "the run to start", func(s *session) bool { return len(s.runs) == 1 })
	if code, b := post(t, base+"/tools/nope/toolu_1/cancel", ""); code != http.StatusNotFound {
		t.Errorf("cancel under another tool's name: %d %s, want 404", code, b)
	}
	select {
	case b := <-done:
		t.Fatalf("the run ended on another tool's cancel: %s", b)
	default:
	}
	if code, b := post(t, base+"/tools/bash/toolu_1/cancel", ""); code != http.StatusOK {
		t.Errorf("cancel: %d %s", code, b)
	}
	if b := receive(t, "the cancelled run's answer", done); !bytes.Contains(b, []byte(`"status":"cancelled"`)) {
		t.Errorf("cancelled run answered %s", b)
	}
	r.stop()
}
