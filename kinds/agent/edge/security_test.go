package edge

import (
	"bytes"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/detsim/detsim/internal/guard/guardtest"
)

// The attacks of docs/security.md, "The edge", each as it was made:
// a page in the developer's browser or another local user against an
// edge started with the documented allow-list. Each failed open before.

// TestSecurity_APageCannotDriveTheEdge: the three "simple requests" a
// cross-site page sends without asking (text/plain, a foreign Origin, no
// key) are refused, and no session exists afterwards.
func TestSecurity_APageCannotDriveTheEdge(t *testing.T) {
	var e *Edge
	r := startWith(t, scenario(t, "[[script]]\n"+clean, "", ""), Options{Allow: []string{"ls", "cat", "echo"}}, func(x *Edge) { e = x })
	for _, c := range []struct {
		name   string
		header map[string]string
		status int
	}{
		{"text/plain with the key", map[string]string{"content-type": "text/plain", "x-api-key": e.opts.Key}, 415},
		{"foreign origin with the key", map[string]string{"content-type": "application/json", "origin": "https://evil.example", "x-api-key": e.opts.Key}, 403},
		{"no key", map[string]string{"content-type": "application/json"}, 401},
		{"another listener's key", map[string]string{"content-type": "application/json", "x-api-key": "dsk_other"}, 401},
	} {
		req, _ := http.NewRequest(http.MethodPost, r.url+"/sessions", strings.NewReader(`{}`))
		for k, v := range c.header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Errorf("%s: %d, want %d", c.name, resp.StatusCode, c.status)
		}
	}
	e.mu.Lock()
	n := len(e.sessions)
	e.mu.Unlock()
	if n != 0 {
		t.Errorf("%d sessions made by refused requests", n)
	}
}

// TestSecurity_OneClientCannotTouchAnothers: a session's id is
// unguessable, and neither the edge's key nor another session's opens
// its routes: ending, reporting on, resetting and controlling it are
// 401 and leave nothing in its bundle.
func TestSecurity_OneClientCannotTouchAnothers(t *testing.T) {
	r := start(t, scenario(t, "[[script]]\n"+clean, "", ""), Options{})
	code, b := post(t, r.url+"/sessions", `{}`)
	var made struct {
		ID     string `json:"id"`
		APIKey string `json:"api_key"`
	}
	json.Unmarshal(b, &made)
	ids := made
	if code != http.StatusCreated || len(ids.ID) != 26 || made.APIKey == "" {
		t.Fatalf("POST /sessions: %d %s, want an unguessable id and a key of its own", code, b)
	}
	victim := r.url + "/s/" + ids.ID
	keys.Store(victim, made.APIKey)
	post(t, victim+"/v1/messages", `{"messages":[{"role":"user","content":"hi"}]}`)
	intruder := r.session(t, "intruder")
	for _, key := range []string{keyOf(intruder), keyOf(r.url)} {
		for _, route := range []string{"/end", "/report", "/reset", "/control", "/tools/bash"} {
			req, _ := http.NewRequest(http.MethodPost, victim+route, strings.NewReader(`{"turn":1,"outcome":"ok","id":"toolu_1","argv":["ls"]}`))
			req.Header.Set("content-type", "application/json")
			req.Header.Set("x-api-key", key)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("%s with another's key: %d, want 401", route, resp.StatusCode)
			}
		}
	}
	eps := r.stop()
	for _, ep := range eps {
		if filepath.Base(filepath.Dir(ep.Bundle)) != ids.ID {
			continue
		}
		events := eventsOf(t, ep)
		for _, ty := range []string{`"type":"refused"`, `"type":"turn_end"`, `"type":"tool_state"`} {
			if bytes.Contains(events, []byte(ty)) {
				t.Errorf("the intruder's requests left %s in the victim's bundle", ty)
			}
		}
		return
	}
	t.Fatal("no episode of the victim's session")
}

// TestSecurity_ToolRunsOnlyWhatWasServed: the script served toolu_1 as
// argv ["ls"]; cat /etc/shadow under that id is 403 and recorded as the
// agent's attempt. A tool use served with no argv is the agent's own
// command, and the allow-list's argument policy still refuses a path
// outside the tool directory.
func TestSecurity_ToolRunsOnlyWhatWasServed(t *testing.T) {
	bound := `first_byte_ns = 1
tool_calls = [{ id = "toolu_1", name = "bash", args = ["{\"argv\": [\"ls\"]}"] }]
[[script]]
first_byte_ns = 1
tool_calls = [{ id = "toolu_2", name = "bash", args = ["{\"cmd\": \"cat main.go\"}"] }]
`
	r := start(t, scenario(t, "[[script]]\n"+bound, "", ""), Options{Allow: []string{"ls", "cat", "echo:any"}})
	base := r.session(t, "s")
	post(t, base+"/v1/messages", `{"messages":[{"role":"user","content":"hi"}]}`)
	post(t, base+"/v1/messages", `{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"x"},{"role":"user","content":"y"}]}`)
	for _, c := range []struct {
		body   string
		status int
		says   string
	}{
		{`{"id":"toolu_1","argv":["cat","/etc/shadow"]}`, 403, "not the"},
		{`{"id":"toolu_1","argv":["ls","-la"]}`, 403, "not the"},
		{`{"id":"toolu_2","argv":["cat","/etc/shadow"]}`, 403, "outside the tool directory"},
		{`{"id":"toolu_2","argv":["cat","--file=../../etc/shadow"]}`, 403, "outside the tool directory"},
		{`{"id":"toolu_2","argv":["echo","/etc/shadow"]}`, 200, ""},
		{`{"id":"toolu_1","argv":["ls"]}`, 200, ""},
	} {
		code, b := post(t, base+"/tools/bash", c.body)
		if code != c.status || !strings.Contains(string(b), c.says) {
			t.Errorf("%s: %d %s, want %d saying %q", c.body, code, b, c.status, c.says)
		}
	}
	events := eventsOf(t, r.stop()[0])
	if n := bytes.Count(events, []byte(`"type":"refused"`)); n != 4 {
		t.Errorf("%d refused records, want the agent's 4 attempts:\n%s", n, events)
	}
}

// TestSecurity_ABudgetSpentIsThatClientsAlone: another local user that
// spends its episodes is refused, saying so; this user still begins
// its own. Before, the budget was the edge's: a create/end loop spent
// it for every client.
func TestSecurity_ABudgetSpentIsThatClientsAlone(t *testing.T) {
	var e *Edge
	r := startWith(t, scenario(t, "[[script]]\n"+clean, "", ""), Options{MaxEpisodes: 2}, func(x *Edge) { e = x })
	addr := strings.TrimPrefix(r.url, "http://")
	h := map[string]string{"content-type": "application/json", "x-api-key": e.opts.Key}
	for i := range 3 {
		code, body := guardtest.Post(t, guardtest.Nobody, addr, "/sessions", h, `{}`)
		switch {
		case i < 2 && code != http.StatusCreated:
			t.Fatalf("nobody's session %d: %d %s", i+1, code, body)
		case i == 2 && (code != http.StatusTooManyRequests || !strings.Contains(body, "uid:65534 has begun its 2 episodes")):
			t.Fatalf("nobody's third session: %d %s, want 429 naming its budget", code, body)
		}
	}
	if code, b := post(t, r.url+"/sessions", `{}`); code != http.StatusCreated {
		t.Fatalf("this user's session after nobody spent its budget: %d %s", code, b)
	}
}

// TestSecurity_AnotherUserCannotStarveTheEdge: another local user
// holding a hundred idle connections leaves this user's requests
// served. Before, 32 of them held every slot of the edge.
func TestSecurity_AnotherUserCannotStarveTheEdge(t *testing.T) {
	r := start(t, scenario(t, "[[script]]\n"+clean, "", ""), Options{})
	guardtest.HoldConns(t, strings.TrimPrefix(r.url, "http://"), 100, guardtest.Nobody)
	base := r.session(t, "s")
	if code, b := post(t, base+"/v1/messages", `{"messages":[{"role":"user","content":"hi"}]}`); code != http.StatusOK {
		t.Fatalf("this user's request beside another user's hundred connections: %d %s", code, b)
	}
}
