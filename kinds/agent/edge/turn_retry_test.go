package edge

import (
	"net/http"
	"strings"
	"testing"
)

// TestEdge_RetryAfterScaled: a 429's retry-after is the schedule's
// scaled by the time scale, as every other delay the agent sees: 3 s at
// 0.01 is retry-after-ms 30 (and retry-after 1, whole seconds rounded
// up), and the request records it for retry_budget. Before, the header
// said 3 whatever the scale, 300 s of schedule time at 0.01.
func TestEdge_RetryAfterScaled(t *testing.T) {
	r, resp := askOnce(t, "[[script]]\nfault = { kind = \"rate_limit\", retry_after_ns = 3_000_000_000 }\n[[script]]\ntext = [\"ok\"]\n")
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("retry-after-ms") != "30" || resp.Header.Get("retry-after") != "1" {
		t.Errorf("status %d retry-after %q retry-after-ms %q, want 429, 1, 30", resp.StatusCode, resp.Header.Get("retry-after"), resp.Header.Get("retry-after-ms"))
	}
	events := string(eventsOf(t, r.stop()[0]))
	if !strings.Contains(events, `"retry_after_ns":3000000000`) {
		t.Errorf("request_received does not record the schedule's retry-after:\n%s", events)
	}
}

// askOnce starts an edge at time scale 0.01 on a scenario whose model
// answers with script, opens session s1 and sends it one Anthropic
// request; the caller closes the response's body.
func askOnce(t *testing.T, script string) (*running, *http.Response) {
	t.Helper()
	r := start(t, scenario(t, script, "", ""), Options{TimeScale: 0.01})
	base := r.session(t, "s1")
	resp, err := keyedPost(base+"/v1/messages", `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	return r, resp
}

// TestEdge_TurnHeader: x-detsim-turn names a request's turn, for an agent
// whose messages do not count its turns (a prefilled assistant message
// here would make the inferred turn 2); a header that is not a turn is
// refused and recorded.
func TestEdge_TurnHeader(t *testing.T) {
	sc := scenario(t, "[[script]]\ntext = [\"ok\"]\n[[script]]\ntext = [\"ok\"]\n", "", "")
	r := start(t, sc, Options{TimeScale: 0.01})
	base := r.session(t, "s1")
	send := func(turn string) int {
		req, err := http.NewRequest(http.MethodPost, base+"/v1/messages",
			strings.NewReader(`{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"Sure:"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("content-type", "application/json")
		if turn != "" {
			req.Header.Set(TurnHeader, turn)
		}
		resp, err := keyed(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if c := send("1"); c != http.StatusOK {
		t.Errorf("turn 1: status %d", c)
	}
	if c := send("0"); c != http.StatusBadRequest {
		t.Errorf("%s 0: status %d, want 400", TurnHeader, c)
	}
	if c := send(""); c != http.StatusOK {
		t.Errorf("no header: status %d", c)
	}
	events := string(eventsOf(t, r.stop()[0]))
	for _, want := range []string{`"call":"t1.a1"`, `"call":"t2.a1"`, `x-detsim-turn \"0\"`} {
		if !strings.Contains(events, want) {
			t.Errorf("no %s in the records:\n%s", want, events)
		}
	}
}

// TestEdge_ControlReadOnce: the control endpoint records that the
// harness read a Cancel (no_work_after_cancel reads it) when a poll
// from past it shows so, once per event however often a client polls:
// a poll loop adds no records without end.
func TestEdge_ControlReadOnce(t *testing.T) {
	sc := scenario(t, "[[script]]\ntext = [\"ok\"]\n", "", "[[mutations]]\nat_ns = 1_000_000\nkind = \"Cancel\"\npeer = \"agent\"\n")
	r := start(t, sc, Options{TimeScale: 0.01})
	base := r.session(t, "s1")
	// Polls from 0 on carry the Cancel but prove nothing read; the
	// first poll from past it (after=1, or any number beyond) does.
	for _, after := range []string{"0", "0", "0", "1", "1", "7", "1"} {
		wait := "5" // for the Cancel to fire
		if after != "0" {
			wait = "0"
		}
		resp, err := keyedGet(base + "/control?after=" + after + "&wait=" + wait)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	events := string(eventsOf(t, r.stop()[0]))
	if n := strings.Count(events, `"control_read"`); n != 1 || !strings.Contains(events, `"actions":"cancel","next":1`) {
		t.Errorf("%d control_read records, want one naming the cancel:\n%s", n, events)
	}
}
