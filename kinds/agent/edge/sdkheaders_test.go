package edge

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestEdge_ErrorBodyCarriesRequestID: an Anthropic error body names its
// request (request_id, the request-id header's value), as the API's does;
// the SDKs read it into the error they raise.
func TestEdge_ErrorBodyCarriesRequestID(t *testing.T) {
	r, resp := askOnce(t, "[[script]]\nfault = { kind = \"server_error\", status = 503 }\n")
	defer resp.Body.Close()
	var body struct {
		Type      string `json:"type"`
		RequestID string `json:"request_id"`
		Error     struct {
			Type string `json:"type"`
		} `json:"error"`
	}
	b, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(b, &body); err != nil || resp.StatusCode != 503 || body.Type != "error" || body.Error.Type != "api_error" ||
		body.RequestID == "" || body.RequestID != resp.Header.Get("request-id") {
		t.Errorf("status %d request-id %q body %s: want 503 with the request's id in the body", resp.StatusCode, resp.Header.Get("request-id"), b)
	}
	r.stop()
}

// TestEdge_RateLimitHeadersTellTheSchedule: every response carries its
// API's rate-limit headers; a 429's say no request is left until its
// retry-after (scaled) has passed — anthropic-ratelimit-*-reset the
// instant, x-ratelimit-reset-* the delay —, an answer's that the
// episode's requests are left and the limit resets now.
func TestEdge_RateLimitHeadersTellTheSchedule(t *testing.T) {
	script := "[[script]]\nfault = { kind = \"rate_limit\", retry_after_ns = 300_000_000_000 }\n[[script]]\ntext = [\"ok\"]\n"
	for _, api := range []string{"anthropic", "openai"} {
		t.Run(api, func(t *testing.T) {
			sc := scenario(t, script+script, "", "")
			r := start(t, sc, Options{TimeScale: 0.01}) // 300 s × 0.01: 3 s
			base := r.session(t, "s1")
			path, pre := "/v1/messages", "anthropic-ratelimit-requests-"
			if api == "openai" {
				path = "/v1/chat/completions"
			}
			for i, want := range []int{429, 200} {
				sent := time.Now()
				resp, err := keyedPost(base+path, `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				h := resp.Header
				if resp.StatusCode != want {
					t.Fatalf("request %d: status %d, want %d", i+1, resp.StatusCode, want)
				}
				left, reset := h.Get(pre+"remaining"), h.Get(pre+"reset")
				if api == "openai" {
					left, reset = h.Get("x-ratelimit-remaining-requests"), h.Get("x-ratelimit-reset-requests")
				}
				n, err := strconv.Atoi(left)
				switch {
				case err != nil || reset == "":
					t.Fatalf("request %d: remaining %q reset %q: %v", i+1, left, reset, h)
				case want == 429 && n != 0, want == 200 && n != maxRequestsPerEp-2:
					t.Errorf("request %d (%d): %d requests remaining", i+1, want, n)
				}
				var wait time.Duration
				if api == "openai" {
					wait, err = time.ParseDuration(reset)
				} else {
					var at time.Time
					at, err = time.Parse(time.RFC3339, reset)
					wait = at.Sub(sent)
				}
				if err != nil {
					t.Fatalf("reset %q: %v", reset, err)
				}
				retryMs, _ := strconv.Atoi(h.Get("retry-after-ms"))
				switch {
				case want == 429 && (wait < time.Duration(retryMs)*time.Millisecond || wait > 3*time.Second+2*time.Second):
					t.Errorf("429: resets in %v (%q), retry-after-ms %d: want the retry-after", wait, reset, retryMs)
				case want == 200 && wait > 2*time.Second:
					t.Errorf("200: resets in %v (%q), want now", wait, reset)
				}
			}
			r.stop()
		})
	}
}

// TestEdge_IncludeUsage: an OpenAI stream ends with a usage chunk (no
// choices) before [DONE] exactly when the request's
// stream_options.include_usage asks for it, as the API's does.
func TestEdge_IncludeUsage(t *testing.T) {
	entry := "[[script]]\ntext = [\"ok\"]\ninput_tokens = 12\noutput_tokens = 30\n"
	sc := scenario(t, entry+entry, "", "")
	r := start(t, sc, Options{TimeScale: 0.01})
	base := r.session(t, "s1")
	for _, include := range []bool{true, false} {
		body := `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}],"stream_options":{"include_usage":` + strconv.FormatBool(include) + `}}`
		status, b := post(t, base+"/v1/chat/completions", body)
		var chunks [][]byte
		for _, line := range bytes.Split(b, []byte("\n")) {
			if d, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
				chunks = append(chunks, d)
			}
		}
		if status != 200 || len(chunks) < 2 || string(chunks[len(chunks)-1]) != "[DONE]" {
			t.Fatalf("include_usage %v: status %d stream %s", include, status, b)
		}
		var last struct {
			Choices []json.RawMessage `json:"choices"`
			Usage   *struct {
				Prompt     int `json:"prompt_tokens"`
				Completion int `json:"completion_tokens"`
				Total      int `json:"total_tokens"`
			} `json:"usage"`
		}
		json.Unmarshal(chunks[len(chunks)-2], &last)
		got := last.Usage != nil && len(last.Choices) == 0 && *last.Usage == struct {
			Prompt     int `json:"prompt_tokens"`
			Completion int `json:"completion_tokens"`
			Total      int `json:"total_tokens"`
		}{12, 30, 42}
		if got != include {
			t.Errorf("include_usage %v: the chunk before [DONE] is %s", include, chunks[len(chunks)-2])
		}
	}
	r.stop()
}

// TestEdge_ReportOfTheUnservedIsAClaim: a report naming a turn, a
// message or a tool use the edge never served is refused with a 409
// naming each, and its claims are recorded all the same (turn_end, the
// tool's outcome), so the oracles judge them. Before, a report of a turn
// never asked for, and a failed one naming a message never served, left
// no claim, and tool use ids were not checked at all.
func TestEdge_ReportOfTheUnservedIsAClaim(t *testing.T) {
	r := start(t, scenario(t, "[[script]]\n"+clean+"[[script]]\n"+clean, "", ""), Options{})
	base := r.session(t, "s")
	post(t, base+"/v1/messages", `{"stream":false,"messages":[{"role":"user","content":"hi"}]}`)
	for _, c := range []struct{ body, names string }{
		{`{"turn":3,"outcome":"cancelled"}`, `turn 3 never happened`},
		{`{"turn":2,"outcome":"failed","message_id":"msg_t2.a9"}`, `message "msg_t2.a9" was never served`},
		{`{"turn":1,"outcome":"ok","message_id":"msg_t1.a1","tool_uses":[{"id":"toolu_1","name":"bash","input":{}}],"tool_results":[{"id":"toolu_zz","outcome":"ok","bytes":3}]}`, `tool use "toolu_zz" was never served`},
	} {
		code, out := post(t, base+"/report", c.body)
		if code != 409 || !bytes.Contains(out, []byte(strings.ReplaceAll(c.names, `"`, `\"`))) {
			t.Errorf("report %s: %d %s, want 409 naming %s", c.body, code, out, c.names)
		}
	}
	eps := r.stop()
	events := string(eventsOf(t, eps[0]))
	for _, want := range []string{`"type":"turn_end","turn":3,"outcome":"cancelled"`, `"type":"turn_end","turn":2,"outcome":"failed"`,
		`"id":"t1.toolu_zz","outcome":"ok"`, `tool use \"toolu_zz\" was never served`} {
		if !strings.Contains(events, want) {
			t.Errorf("events lack %s:\n%s", want, events)
		}
	}
}
