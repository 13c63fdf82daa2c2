package edge

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/internal/realtime"
)

// TestEdge_BoundsWhatBadInputLeaves: a client that repeats a bad request
// or starts episode after episode fills neither the disk nor the edge's
// memory without end. A session's episode keeps maxRefusals refused
// records, Out/refused.ndjson as many lines, and the edge begins at most
// MaxEpisodes episodes over every session and reset; each request past a
// bound is still answered and refused.
func TestEdge_BoundsWhatBadInputLeaves(t *testing.T) {
	r := start(t, scenario(t, "[[script]]\n"+clean, "", ""), Options{MaxEpisodes: 2})
	base := r.session(t, "a")
	if code, b := post(t, base+"/reset", ""); code != http.StatusOK {
		t.Fatalf("the first reset (episode 2 of 2): %d %s", code, b)
	}
	for _, u := range []string{base + "/reset", r.url + "/sessions"} {
		if code, b := post(t, u, ""); code != http.StatusTooManyRequests || !strings.Contains(string(b), "2 episodes") {
			t.Errorf("POST %s past MaxEpisodes: %d %s, want 429", u, code, b)
		}
	}
	for i := 0; i < maxRefusals+10; i++ {
		if code, _ := post(t, base+"/report", `{"turn":9,"outcome":"ok"}`); code != http.StatusConflict {
			t.Fatalf("report %d of a turn that never happened: %d, want 409", i, code)
		}
		if code, _ := post(t, r.url+"/s/nobody/report", `{}`); code != http.StatusNotFound {
			t.Fatalf("request %d for an unknown session: %d, want 404", i, code)
		}
	}
	eps := r.episodes(t, 2)
	events := eventsOf(t, eps[1])
	if n := bytes.Count(events, []byte(`"type":"refused"`)); n != maxRefusals {
		t.Errorf("%d refused records in episode 2, want %d", n, maxRefusals)
	}
	if !bytes.Contains(events, []byte("later ones are not")) {
		t.Error("the last refused record does not say later ones go unrecorded")
	}
	b, err := os.ReadFile(filepath.Join(r.out, "refused.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte("\n")); n != maxRefusals {
		t.Errorf("refused.ndjson has %d lines, want %d", n, maxRefusals)
	}
}

// fakeListener is a loopback listener claiming an address's address that no test binds.
type fakeListener struct{ net.Listener }

func (fakeListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(192, 0, 2, 1), Port: 8788} }

// TestEdge_LoopbackOnlyAndSlowBodies: the edge serves on loopback alone
// (Serve refuses any other listener, the command any other address,
// before binding), and a client that stops sending its body is answered
// 408 within the idle bound, recorded, and loses its connection slot to
// the next client.
func TestEdge_LoopbackOnlyAndSlowBodies(t *testing.T) {
	sc := scenario(t, "[[script]]\n"+clean+"[[script]]\n"+clean, "", "")
	e, err := New(sc, Options{Out: filepath.Join(t.TempDir(), "out"), Key: "dsk_t"})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Serve(context.Background(), fakeListener{ln}); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("Serve on 192.0.2.1: %v, want a refusal", err)
	}
	var stderr bytes.Buffer
	out := filepath.Join(t.TempDir(), "cli")
	if code := Command(context.Background(), []string{"agent/faults_base", "--addr", "0.0.0.0:0", "--out", out}, io.Discard, &stderr, builtin.Registry(), "t"); code != 2 || !strings.Contains(stderr.String(), "loopback") {
		t.Errorf("detsim edge --addr 0.0.0.0:0: exit %d, %s", code, stderr.String())
	}

	// One connection slot, so the slow client must give its up for the
	// next to be served; the test's own requests keep none alive.
	r := start(t, sc, Options{MaxConns: 1, BodyIdle: 200 * time.Millisecond, BodyRead: time.Second})
	once := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	postOnce := func(url, body string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("content-type", "application/json")
		req.Header.Set("x-api-key", keyOf(url))
		resp, err := once.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, made := postOnce(r.url+"/sessions", `{"id":"s"}`)
	if code != http.StatusCreated {
		t.Fatalf("POST /sessions: %d %s", code, made)
	}
	var m struct {
		APIKey string `json:"api_key"`
	}
	json.Unmarshal([]byte(made), &m)
	keys.Store(r.url+"/s/s", m.APIKey)
	slow := slowBody(t, r.url, "/s/s/v1/messages")
	reply := make(chan string, 1)
	go func() { b, _ := io.ReadAll(slow); reply <- string(b) }()
	got := receive(t, "the slow body's answer", reply)
	if !strings.Contains(got, " 408 ") || !strings.Contains(got, `"request_timeout"`) {
		t.Errorf("the slow body's answer: %q, want 408 in the API's error shape", got)
	}
	if code, b := postOnce(r.url+"/s/s/v1/messages", `{"messages":[{"role":"user","content":"hi"}]}`); code != http.StatusOK {
		t.Errorf("the next client, after the slow one lost its slot: %d %s", code, b)
	}
	eps := r.stop()
	events := eventsOf(t, eps[0])
	if !bytes.Contains(events, []byte(`"reason":"body too slow"`)) {
		t.Errorf("the slow body is not recorded as refused:\n%s", events)
	}
}

// TestEdge_SlowEndBody: a client that stops sending the body of its
// /end is not waited on past the body's idle bound: the episode ends
// and is answered.
func TestEdge_SlowEndBody(t *testing.T) {
	r := start(t, scenario(t, "[[script]]\n"+clean, "", ""), Options{BodyIdle: 200 * time.Millisecond, BodyRead: time.Second})
	r.session(t, "s")
	slow := slowBody(t, r.url, "/s/s/end")
	_ = slow.SetReadDeadline(time.Now().Add(5 * time.Second))
	got, _ := io.ReadAll(slow)
	if !strings.Contains(string(got), " 200 ") {
		t.Errorf("the slow /end's answer within 5s: %q", got)
	}
	r.stop()
}

// TestEdge_TinyIdleStop: an IdleStop under 4ns stops the edge (its
// ticker no shorter than a millisecond) rather than panicking, and
// --idle-stop 0 means never, as provider-serve's does.
func TestEdge_TinyIdleStop(t *testing.T) {
	e, err := New(scenario(t, "[[script]]\n"+clean, "", ""), Options{Out: filepath.Join(t.TempDir(), "out"), IdleStop: 1, Key: "dsk_t"})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := e.Serve(context.Background(), ln); done <- err }()
	if err := receive(t, "the idle stop", done); err != nil {
		t.Errorf("Serve: %v", err)
	}
	if got := idleStop(0); got >= 0 {
		t.Errorf("--idle-stop 0 is IdleStop %v, want negative (never)", got)
	}
	if got := idleStop(time.Minute); got != time.Minute {
		t.Errorf("--idle-stop 1m is IdleStop %v", got)
	}
}

// TestEdge_ToolOutputCapped: a tool effect's output, with or without a
// command run, is capped at MaxToolOutput as the docs say.
func TestEdge_ToolOutputCapped(t *testing.T) {
	for _, c := range []struct{ name, effects, body string }{
		{"no command", `effects = [{ effect = "success", output_bytes = 5000 }]`, `{"id":"toolu_1"}`},
		{"binary", `effects = [{ effect = "binary_output", output_bytes = 5000 }]`, `{"id":"toolu_1","argv":["echo","hi"]}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := start(t, scenario(t, "[[script]]\n"+clean, c.effects, ""), Options{Allow: []string{"echo"}, MaxToolOutput: 1000})
			base := r.session(t, "s")
			post(t, base+"/v1/messages", `{"stream":false,"messages":[{"role":"user","content":"hi"}]}`)
			code, out := post(t, base+"/tools/bash", c.body)
			if code != http.StatusOK || !bytes.Contains(out, []byte(`"bytes":1000}`)) {
				t.Errorf("tool: %d %.200s, want 1000 bytes", code, out)
			}
			r.stop()
		})
	}
}

// TestEdge_ResetThatCannotBegin: a reset whose next episode cannot begin
// (its bundle directory is taken) closes the session: it is no longer
// served nor counted open.
func TestEdge_ResetThatCannotBegin(t *testing.T) {
	var e *Edge
	r := startWith(t, scenario(t, "[[script]]\n"+clean, "", ""), Options{}, func(x *Edge) { e = x })
	base := r.session(t, "s")
	if err := os.MkdirAll(filepath.Join(r.out, "s", "e2"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.out, "s", "e2", "taken"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, b := post(t, base+"/reset", ""); code != http.StatusInternalServerError {
		t.Fatalf("reset onto a taken bundle: %d %s, want 500", code, b)
	}
	e.mu.Lock()
	open, still := e.open, e.sessions["s"] != nil
	e.mu.Unlock()
	if open != 0 || still {
		t.Errorf("after the failed reset: %d sessions open, session kept %v", open, still)
	}
	if code, b := post(t, base+"/v1/messages", `{"messages":[]}`); code != http.StatusNotFound || !strings.Contains(string(b), "unknown session") {
		t.Errorf("the closed session still serves: %d %s", code, b)
	}
	r.stop()
}

// TestEdge_ResetThatCannotBeginEndsTheLastSession: with --sessions 1, the
// session a failed reset closes is the edge's last: the edge stops.
func TestEdge_ResetThatCannotBeginEndsTheLastSession(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	e, err := New(scenario(t, "[[script]]\n"+clean, "", ""), Options{Out: out, IdleStop: -1, Sessions: 1, TimeScale: 0.001, Key: "dsk_t"})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { _, err := e.Serve(ctx, ln); done <- err }()
	url := "http://" + ln.Addr().String()
	keys.Store(url, "dsk_t")
	makeSession(t, url, "s")
	if err := os.MkdirAll(filepath.Join(out, "s", "e2", "taken"), 0o755); err != nil {
		t.Fatal(err)
	}
	if code, b := post(t, url+"/s/s/reset", ""); code != http.StatusInternalServerError {
		t.Fatalf("reset onto a taken bundle: %d %s, want 500", code, b)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		cancel()
		<-done
		t.Error("the edge did not stop once its one session closed")
	}
}

// slowBody opens a connection to the edge at url and sends a POST to path
// whose body stops after its first of 100 bytes; the connection closes
// when the test ends.
func slowBody(t *testing.T, url, path string) net.Conn {
	t.Helper()
	slow, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { slow.Close() })
	if _, err := io.WriteString(slow, rawHead(path, url)+"Content-Length: 100\r\n\r\n{"); err != nil {
		t.Fatal(err)
	}
	return slow
}

// rawHead is the head of a POST to path on the edge at url, as a client
// that writes its own bytes sends it: the Host, the key and the type the
// edge takes, and no end of headers.
func rawHead(path, url string) string {
	return "POST " + path + " HTTP/1.1\r\nHost: " + strings.TrimPrefix(url, "http://") + "\r\nx-api-key: " + keyOf(url+path) + "\r\ncontent-type: application/json\r\n"
}

// TestEdge_AnEpisodePastTheScenarioEndVerifies: a real agent's episode
// is not bounded by the scenario's duration; one that goes on past it
// (its schedule time is real time over the time scale, so a slow agent
// or a loaded machine gets there) keeps every record, and its bundle
// verifies: scenario.toml ends where the episode did. Before, verify
// refused such a bundle ("duration_ns is after scenario.toml's").
func TestEdge_AnEpisodePastTheScenarioEndVerifies(t *testing.T) {
	var e *Edge
	// 300 s of scenario at a time scale of 1e-4: 30 ms of real time.
	r := startWith(t, scenario(t, "[[script]]\n"+clean, "", ""), Options{TimeScale: 1e-4}, func(x *Edge) { e = x })
	base := r.session(t, "s")
	post(t, base+"/v1/messages", `{"messages":[{"role":"user","content":"hi"}]}`)
	realtime.WaitFor(t, "the episode's schedule time to pass the scenario's end", 10*time.Second, func() bool {
		e.mu.Lock()
		s := e.sessions["s"]
		e.mu.Unlock()
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.now() > e.sc.DurationNs
	})
	eps := r.stop()
	if len(eps) != 1 || eps[0].Err != nil {
		t.Fatalf("episodes %+v", eps)
	}
	if res, err := bundle.Verify(eps[0].Bundle); err != nil || len(res) > 0 {
		t.Fatalf("verify: %v %v", err, res)
	}
	m, err := bundle.ReadManifest(eps[0].Bundle)
	if err != nil || m.DurationNs <= e.sc.DurationNs || !strings.Contains(m.Interrupted, "past the scenario's duration_ns") {
		t.Fatalf("manifest %+v %v: want the episode's end, past the scenario's, said so", m, err)
	}
}
