package providerserve

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/internal/guard/guardtest"
	"github.com/detsim/detsim/internal/realtime"
	"github.com/detsim/detsim/kinds/agent/provider"
	"github.com/detsim/detsim/scenarios"
)

// script parses a provider kind_config written as TOML.
func script(t testing.TB, src string) provider.Script {
	t.Helper()
	tree, err := scenarios.DecodeTree([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	s, errs := provider.ParseScript(tree)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return s
}

// start serves s on a loopback port a hundred times faster than scripted
// and returns its base URL; the server stops when the test ends.
func start(t *testing.T, s provider.Script) string {
	t.Helper()
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := Serve(ctx, ln, s, Options{TimeScale: 0.01, Key: testKey}); err != nil {
			t.Errorf("Serve: %v", err)
		}
	}()
	t.Cleanup(func() { cancel(); wg.Wait() })
	return "http://" + ln.Addr().String()
}

// testKey is the key the tests' servers take.
const testKey = "dsk_test"

func client(url string, retries int) anthropic.Client {
	return anthropic.NewClient(option.WithBaseURL(url), option.WithAPIKey(testKey), option.WithMaxRetries(retries))
}

// postJSON posts body to url presenting testKey, as a client holding
// the key file does.
func postJSON(url, body string) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("content-type", "application/json")
	req.Header.Set("x-api-key", testKey)
	return http.DefaultClient.Do(req)
}

var params = anthropic.MessageNewParams{
	Model:     "claude-sim-1",
	MaxTokens: 256,
	Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("list the files"))},
}

// collect streams one response with the SDK: the event types in order,
// the accumulated message, and the stream's error.
func collect(ctx context.Context, c anthropic.Client) (types []string, msg anthropic.Message, err error) {
	st := c.Messages.NewStreaming(ctx, params)
	defer st.Close()
	for st.Next() {
		ev := st.Current()
		types = append(types, ev.Type)
		if aerr := msg.Accumulate(ev); aerr != nil {
			return types, msg, aerr
		}
	}
	return types, msg, st.Err()
}

const clean = `first_byte_ns = 300_000_000
chunk_ns = 20_000_000
text = ["Let me ", "look."]
tool_calls = [{ id = "toolu_1", name = "bash", args = ["{\"cmd\":", " \"ls\"}"] }]
input_tokens = 12
output_tokens = 30
`

// TestSDK_CleanStream: the SDK reads a scripted 200 stream as a whole
// message: text, a tool use with its arguments reassembled, stop reason
// and usage.
func TestSDK_CleanStream(t *testing.T) {
	url := start(t, script(t, "[[script]]\n"+clean))
	types, msg, err := collect(context.Background(), client(url, 0))
	if err != nil {
		t.Fatal(err)
	}
	if types[0] != "message_start" || types[len(types)-1] != "message_stop" {
		t.Fatalf("events %v", types)
	}
	if len(msg.Content) != 2 || msg.Content[0].Text != "Let me look." || msg.Content[1].Name != "bash" ||
		string(msg.Content[1].Input) != `{"cmd": "ls"}` || msg.StopReason != "tool_use" || msg.Usage.OutputTokens != 30 {
		t.Fatalf("message %+v", msg)
	}
}

// TestSDK_RetryableStatuses: a 429 reaches the client as the API's
// rate_limit_error with its retry-after header and x-should-retry; a 529
// as overloaded_error, a 503 as api_error — each an *anthropic.Error the
// SDK would retry.
func TestSDK_RetryableStatuses(t *testing.T) {
	url := start(t, script(t, `[[script]]
fault = { kind = "rate_limit", retry_after_ns = 2_500_000_000 }
[[script]]
fault = { kind = "server_error", status = 529 }
[[script]]
fault = { kind = "server_error", status = 503 }
`))
	c := client(url, 0)
	for _, want := range []struct {
		status     int
		typ        string
		retryAfter string
	}{{429, "rate_limit_error", "3"}, {529, "overloaded_error", ""}, {503, "api_error", ""}} {
		_, _, err := collect(context.Background(), c)
		var aerr *anthropic.Error
		if !errors.As(err, &aerr) {
			t.Fatalf("%d: err %T %v, want *anthropic.Error", want.status, err, err)
		}
		if aerr.StatusCode != want.status || !strings.Contains(aerr.RawJSON(), want.typ) {
			t.Errorf("status %d body %s, want %d %s", aerr.StatusCode, aerr.RawJSON(), want.status, want.typ)
		}
		if got := aerr.Response.Header.Get("retry-after"); got != want.retryAfter {
			t.Errorf("%d: retry-after %q, want %q", want.status, got, want.retryAfter)
		}
		if got := aerr.Response.Header.Get("x-should-retry"); got != "true" {
			t.Errorf("%d: x-should-retry %q", want.status, got)
		}
	}
}

// TestSDK_RetriesThroughAnOverload: with its default retry policy the
// SDK retries a 529 by itself and gets the script's next entry.
func TestSDK_RetriesThroughAnOverload(t *testing.T) {
	url := start(t, script(t, "[[script]]\nfault = { kind = \"server_error\", status = 529 }\n[[script]]\n"+clean))
	_, msg, err := collect(context.Background(), client(url, 2))
	if err != nil || msg.StopReason != "tool_use" {
		t.Fatalf("after a retry: %v %+v", err, msg)
	}
}

// TestSDK_MidStreamError: an overloaded error event inside a 200 stream
// ends the SDK's stream with an *anthropic.Error carrying
// overloaded_error, after the events sent before it.
func TestSDK_MidStreamError(t *testing.T) {
	url := start(t, script(t, "[[script]]\n"+clean+"fault = { kind = \"overloaded\", after_chunks = 3 }\n"))
	types, _, err := collect(context.Background(), client(url, 0))
	if len(types) != 3 {
		t.Errorf("events before the error %v, want 3", types)
	}
	var aerr *anthropic.Error
	if !errors.As(err, &aerr) || !strings.Contains(err.Error(), "overloaded_error") {
		t.Fatalf("err %T %v, want an overloaded_error", err, err)
	}
}

// TestSDK_TruncatedStream: a stream closed cleanly after four events
// ends the SDK's loop with no error and no message_stop — what a client
// must itself treat as torn (no stop_reason).
func TestSDK_TruncatedStream(t *testing.T) {
	url := start(t, script(t, "[[script]]\n"+clean+"fault = { kind = \"truncated\", after_chunks = 4 }\n"))
	types, msg, err := collect(context.Background(), client(url, 0))
	if err != nil {
		t.Fatalf("err %v: the SDK sees a clean end", err)
	}
	if len(types) != 4 || types[len(types)-1] == "message_stop" || msg.StopReason != "" {
		t.Fatalf("events %v stop_reason %q", types, msg.StopReason)
	}
}

// TestSDK_Stall: a 1 000-scripted-second stall (10 s here) mid-stream;
// the client's deadline (300 ms, scaled to the machine's load, so at most
// 3 s) fires first, after the events before it.
func TestSDK_Stall(t *testing.T) {
	url := start(t, script(t, "[[script]]\n"+clean+"fault = { kind = \"stall\", after_chunks = 2, stall_ns = 1_000_000_000_000 }\n"))
	ctx, cancel := context.WithTimeout(context.Background(), realtime.Scaled(300*time.Millisecond))
	defer cancel()
	began := time.Now()
	types, _, err := collect(ctx, client(url, 0))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v, want the client's deadline", err)
	}
	if len(types) != 2 {
		t.Errorf("events before the stall %v", types)
	}
	if d := time.Since(began); d > realtime.Scaled(900*time.Millisecond) {
		t.Errorf("took %v: the stall was waited out", d)
	}
}

// TestSDK_TimeoutBeforeFirstByte: a timeout entry sends nothing; the
// client's deadline ends the request with no response.
func TestSDK_TimeoutBeforeFirstByte(t *testing.T) {
	url := start(t, script(t, "[[script]]\nfault = { kind = \"timeout\" }\n"))
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, _, err := collect(ctx, client(url, 0))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v", err)
	}
}

func TestServe_RefusesNonLoopback(t *testing.T) {
	ln, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Skip(err)
	}
	err = Serve(context.Background(), ln, provider.Script{}, Options{})
	if err == nil || !strings.Contains(err.Error(), "not a loopback address") {
		t.Fatalf("err %v", err)
	}
	for _, addr := range []string{"0.0.0.0:0", "192.0.2.1:80", ":8787", "example.com:80"} {
		if _, err := Listen(addr); err == nil || !strings.Contains(err.Error(), "loopback") {
			t.Errorf("Listen(%q): %v", addr, err)
		}
	}
}

func TestLoadScript_ScriptFileAndScenario(t *testing.T) {
	reg := builtin.Registry()
	s, err := LoadScript("agent/rate_limit", reg)
	if err != nil || len(s.Entries) == 0 || s.Entries[0].Fault.Kind != provider.FaultRateLimit {
		t.Fatalf("agent/rate_limit: %v %+v", err, s)
	}
	if _, err := LoadScript("no/such", reg); err == nil {
		t.Error("a missing script loaded")
	}
}

// TestHandler_Bounds: an oversized body is 413, a wrong path 404, a GET
// 405, a body that is not a JSON object 400 — each the API's JSON error,
// and the script untouched by them.
func TestHandler_Bounds(t *testing.T) {
	url := start(t, script(t, "[[script]]\n"+clean))
	post := func(path, body string) int {
		resp, err := postJSON(url+path, body)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := post("/v1/messages", "{"+strings.Repeat(" ", DefaultMaxRequestBytes)+"}"); got != 413 {
		t.Errorf("oversized: %d", got)
	}
	if got := post("/v1/other", "{}"); got != 404 {
		t.Errorf("path: %d", got)
	}
	if got := post("/v1/messages", "not json"); got != 400 {
		t.Errorf("not json: %d", got)
	}
	req, _ := http.NewRequest(http.MethodGet, url+"/v1/messages", nil)
	req.Header.Set("x-api-key", testKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 405 {
		t.Errorf("GET: %d", resp.StatusCode)
	}
	if _, msg, err := collect(context.Background(), client(url, 0)); err != nil || msg.StopReason != "tool_use" {
		t.Errorf("the script's entry after the bad requests: %v %+v", err, msg)
	}
}

func TestCommand_ServesAndStops(t *testing.T) {
	reg := builtin.Registry()
	ctx, cancel := context.WithCancel(context.Background())
	var out strings.Builder
	var mu sync.Mutex
	w := writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return out.Write(p) })
	done := make(chan int)
	go func() {
		done <- Command(ctx, []string{"agent/overloaded", "--addr", "127.0.0.1:0", "--time-scale", "0.01"}, w, reg)
	}()
	var url, keyPath string
	realtime.WaitFor(t, "the server's address and key file", 5*time.Second, func() bool {
		mu.Lock()
		s := out.String()
		mu.Unlock()
		if i := strings.Index(s, "http://"); i >= 0 {
			url = strings.Fields(s[i:])[0]
		}
		if i := strings.Index(s, "key in "); i >= 0 {
			keyPath = strings.Fields(s[i+len("key in "):])[0]
		}
		return url != "" && keyPath != ""
	})
	info, err := os.Stat(keyPath)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("key file %s: %v %v, want mode 0600", keyPath, info, err)
	}
	key, _ := os.ReadFile(keyPath)
	keyed := anthropic.NewClient(option.WithBaseURL(url), option.WithAPIKey(strings.TrimSpace(string(key))), option.WithMaxRetries(0))
	if _, _, err := collect(context.Background(), client(url, 0)); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("a client without the run's key: %v, want 401", err)
	}
	if _, _, err := collect(context.Background(), keyed); err == nil || !strings.Contains(err.Error(), "overloaded_error") {
		t.Errorf("agent/overloaded's first entry (the unkeyed request took none): %v", err)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit %d", code)
	}
	if _, err := os.Stat(keyPath); !os.IsNotExist(err) {
		t.Errorf("the key file outlived its run: %v", err)
	}
	taken := filepath.Join(t.TempDir(), "key")
	os.WriteFile(taken, []byte("dsk_old\n"), 0o600)
	var stderr strings.Builder
	if code := Command(context.Background(), []string{"agent/overloaded", "--addr", "127.0.0.1:0", "--key-file", taken}, &stderr, reg); code != 2 || !strings.Contains(stderr.String(), "never reused") {
		t.Errorf("a stale key file: exit %d, %s", code, stderr.String())
	}
	for _, args := range [][]string{{}, {"a", "b"}, {"agent/overloaded", "--addr", "0.0.0.0:0"}, {"agent/overloaded", "--time-scale", "0"}, {"no/such"}} {
		if code := Command(context.Background(), args, io.Discard, reg); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// At most MaxConns connections of one client are served at once: with
// its one slot held by an idle connection, its second gets nothing
// until the first closes; then it is served. With no connection open
// for IdleStop, Serve stops by itself and returns nil.
func TestServe_ConnectionLimitAndIdleStop(t *testing.T) {
	addr, served := serveClean(t, Options{TimeScale: 0.01, MaxConns: 1, IdleStop: 300 * time.Millisecond})
	hold, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() { _, _, err := collect(context.Background(), client("http://"+addr, 0)); got <- err }()
	select {
	case err := <-got:
		t.Fatalf("a second connection was served while the client's only slot was held (err %v)", err)
	case <-time.After(200 * time.Millisecond):
	}
	hold.Close()
	select {
	case err := <-got:
		if err != nil {
			t.Fatalf("once the slot was free: %v", err)
		}
	case <-time.After(realtime.Scaled(4 * time.Second)):
		t.Fatal("not served after the slot was freed")
	}
	awaitIdleStop(t, served)
}

// TestServe_AnotherUserCannotStarveTheServer: another local user holding
// forty connections, dripping a byte every few seconds, leaves this
// user's request served at once. Before, the cap was global: the forty
// held its 32 slots and a request waited behind them (58 s by hand).
func TestServe_AnotherUserCannotStarveTheServer(t *testing.T) {
	addr, _ := serveClean(t, Options{TimeScale: 0.01})
	guardtest.HoldConns(t, addr, 40, guardtest.Nobody)
	ctx, cancel := context.WithTimeout(context.Background(), realtime.Scaled(10*time.Second))
	defer cancel()
	if _, msg, err := collect(ctx, client("http://"+addr, 0)); err != nil || msg.StopReason != "tool_use" {
		t.Fatalf("this user's request beside another user's forty connections: %v", err)
	}
}

// TestServe_RefusesWhatAKeylessClientOrAPageSends: without the key a
// request is 401; a foreign Origin, a non-JSON body or a Host that is
// not this listener is refused, each naming what was wrong; none of
// them takes an entry of the script.
func TestServe_RefusesWhatAKeylessClientOrAPageSends(t *testing.T) {
	url := start(t, script(t, "[[script]]\n"+clean))
	for _, c := range []struct {
		name, header, value string
		status              int
		says                string
	}{
		{"no key", "", "", 401, "no key"},
		{"wrong key", "x-api-key", "dsk_other", 401, "not this listener's"},
		{"foreign origin", "origin", "https://evil.example", 403, "cross-origin"},
		{"text/plain", "content-type", "text/plain", 415, "application/json"},
		{"rebound host", "host", "evil.example:80", 421, "not this listener"},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, url+"/v1/messages", strings.NewReader(`{"messages":[]}`))
			req.Header.Set("content-type", "application/json")
			if c.name != "no key" && c.name != "wrong key" {
				req.Header.Set("x-api-key", testKey)
			}
			if c.header == "host" {
				req.Host = c.value
			} else if c.header != "" {
				req.Header.Set(c.header, c.value)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != c.status || !strings.Contains(string(b), c.says) {
				t.Errorf("%d %s, want %d saying %q", resp.StatusCode, b, c.status, c.says)
			}
		})
	}
	if _, msg, err := collect(context.Background(), client(url, 0)); err != nil || msg.StopReason != "tool_use" {
		t.Errorf("the script's first entry after the refusals: %v %+v", err, msg)
	}
}

// A client that sends its headers and one byte of a ten-byte body, then
// nothing, loses its connection at the body's idle timeout (408): it no
// longer holds its slot for ever, a waiting client is then served, and
// the idle stop still fires. Before, every slot could be held this way
// and the server never stopped.
func TestServe_SlowBodyTimesOutAndFreesItsSlot(t *testing.T) {
	addr, served := serveClean(t, Options{TimeScale: 0.01, MaxConns: 1, IdleStop: 300 * time.Millisecond,
		BodyIdle: 200 * time.Millisecond, BodyRead: time.Second})
	slow, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	if _, err := io.WriteString(slow, "POST /v1/messages HTTP/1.1\r\nHost: "+addr+"\r\nx-api-key: "+testKey+"\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{"); err != nil {
		t.Fatal(err)
	}
	reply := make(chan string, 1)
	go func() { b, _ := io.ReadAll(slow); reply <- string(b) }()
	select {
	case r := <-reply:
		if !strings.Contains(r, " 408 ") {
			t.Errorf("the slow body's answer: %q, want 408", r)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a body stalled after one byte kept its connection for 30 s")
	}
	got := make(chan error, 1)
	go func() { _, _, err := collect(context.Background(), client("http://"+addr, 0)); got <- err }()
	select {
	case err := <-got:
		if err != nil {
			t.Fatalf("after the slow client lost its slot: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("not served after the slow body timed out")
	}
	awaitIdleStop(t, served)
}

// serveClean serves the clean script with opts on a free loopback port;
// Serve's result arrives on served.
func serveClean(t *testing.T, opts Options) (addr string, served <-chan error) {
	t.Helper()
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := script(t, "[[script]]\n"+clean)
	if opts.Key == "" {
		opts.Key = testKey
	}
	ch := make(chan error, 1)
	go func() { ch <- Serve(context.Background(), ln, s, opts) }()
	return ln.Addr().String(), ch
}

// awaitIdleStop waits for Serve to stop by itself, with nil.
func awaitIdleStop(t *testing.T, served <-chan error) {
	t.Helper()
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("idle stop: %v", err)
		}
	case <-time.After(realtime.Scaled(30 * time.Second)):
		t.Fatal("the server did not stop by itself after being idle")
	}
}

// TestSDK_NonStreamingGetsAMessage: a request without "stream": true
// gets the entry as one JSON message, which the SDK reads whole; before,
// it got the SSE body and the SDK returned a message with no content and
// no error. A streamed one has the API's ping after message_start.
func TestSDK_NonStreamingGetsAMessage(t *testing.T) {
	url := start(t, script(t, "[[script]]\n"+clean+"[[script]]\n"+clean))
	c := client(url, 0)
	msg, err := c.Messages.New(context.Background(), params)
	if err != nil || len(msg.Content) != 2 || msg.Content[0].Text != "Let me look." || msg.StopReason != "tool_use" {
		t.Fatalf("non-streaming: %v %+v", err, msg)
	}
	resp, err := postJSON(url+"/v1/messages", `{"stream":true,"messages":[]}`)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if evs := strings.Split(string(b), "\n\n"); len(evs) < 2 || !strings.HasPrefix(evs[1], "event: ping") {
		t.Fatalf("no ping after message_start: %.200s", b)
	}
}

// TestServe_TinyIdleStop: an IdleStop under 4ns stops the server (its
// ticker no shorter than a millisecond) rather than panicking.
func TestServe_TinyIdleStop(t *testing.T) {
	_, served := serveClean(t, Options{TimeScale: 0.01, IdleStop: 1})
	awaitIdleStop(t, served)
}
