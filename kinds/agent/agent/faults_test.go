package agent_test

import (
	"strings"
	"testing"
)

// outcomes lists the agent's effect outcomes as "id outcome reason".
func outcomes(ep episode) []string {
	var out []string
	for _, l := range ep.of("effect_outcome") {
		out = append(out, field(l, "id")+" "+field(l, "outcome")+" "+field(l, "reason"))
	}
	return out
}

// field is a string member's value in an event line.
func field(line, key string) string {
	k := `"` + key + `":"`
	i := strings.Index(line, k)
	if i < 0 {
		return ""
	}
	rest := line[i+len(k):]
	return rest[:strings.IndexByte(rest, '"')]
}

func oneEntry(fault string) string {
	return `[[script]]
text = ["a", "b", "c"]
` + fault + `
[[script]]
text = ["ok"]
`
}

// TestAgent_FaultOutcomes runs each provider fault against the correct
// agent and checks the first attempt's outcome (seed 001 step 5: an
// error entry gives a failed attempt, a timeout entry timed_out, a hang
// entry is cut off by the deadline) and that a retryable one is retried
// into success.
func TestAgent_FaultOutcomes(t *testing.T) {
	cases := []struct {
		fault string
		first string // outcome and reason of t1.a1
		retry bool   // a second attempt follows and succeeds
	}{
		{`fault = { kind = "rate_limit", retry_after_ns = 3_000_000_000 }`, "failed rate_limit_error", true},
		{`fault = { kind = "server_error", status = 503 }`, "failed api_error", true},
		{`fault = { kind = "server_error", status = 529 }`, "failed overloaded_error", true},
		{`fault = { kind = "auth_expired" }`, "failed authentication_error", false},
		{`fault = { kind = "overloaded", after_chunks = 1 }`, "failed overloaded_error", true},
		{`fault = { kind = "overloaded", after_chunks = 3 }`, "failed overloaded_error", false}, // content delivered: no retry
		{`fault = { kind = "timeout" }`, "timed_out first_byte", true},
		{`fault = { kind = "hang", after_chunks = 3 }`, "timed_out idle", false},
		{`fault = { kind = "stall", after_chunks = 3, stall_ns = 7_000_000_000 }`, "timed_out idle", false},
		{`fault = { kind = "stall", after_chunks = 3, stall_ns = 1_000_000_000 }`, "ok message_stop", false},
		{`fault = { kind = "truncated", after_chunks = 4 }`, "failed truncated", false},
		{`fault = { kind = "truncated", after_chunks = 1 }`, "failed truncated", true},
		{`fault = { kind = "malformed_sse", after_chunks = 2 }`, "failed malformed_sse", false},
		{`fault = { kind = "malformed_json", after_chunks = 2 }`, "failed malformed_json", false},
		{`fault = { kind = "oversized", after_chunks = 2, bytes = 300_000 }`, "failed oversized", false},
	}
	for _, c := range cases {
		t.Run(c.fault, func(t *testing.T) {
			ep := run(t, parse(t, header("", oneEntry(c.fault), "")))
			got := outcomes(ep)
			if len(got) == 0 || got[0] != "t1.a1 "+c.first {
				t.Fatalf("outcomes %q, want t1.a1 %s first", got, c.first)
			}
			retried := len(got) > 1 && got[1] == "t1.a2 ok message_stop"
			if retried != c.retry {
				t.Fatalf("outcomes %q: retried into success = %v, want %v", got, retried, c.retry)
			}
		})
	}
}

// TestAgent_HangCutByCallDeadline: a hang whose silence starts before
// the first byte's deadline and outlives the whole-call deadline ends at
// the call deadline when the idle one is longer.
func TestAgent_HangCutByCallDeadline(t *testing.T) {
	ep := run(t, parse(t, header("idle_timeout_ns = 100_000_000_000\ncall_timeout_ns = 20_000_000_000\nmax_attempts = 1",
		oneEntry(`fault = { kind = "hang", after_chunks = 2 }`), "")))
	if got := outcomes(ep); got[0] != "t1.a1 timed_out call" {
		t.Fatalf("outcomes %q", got)
	}
}

func toolScript(tools string) string {
	return `[[script]]
tool_calls = [` + tools + `]
[[script]]
text = ["done"]
`
}

// TestTool_Effects runs each tool effect and checks the agent's outcome
// for the call and the tool's recorded mutation states.
func TestTool_Effects(t *testing.T) {
	cases := []struct {
		effect, outcome, states string
	}{
		{`{ effect = "success" }`, "ok", "started committed"},
		{`{ effect = "exit_nonzero", exit_code = 2 }`, "failed exit_2", "started failed"},
		{`{ effect = "hang" }`, "timed_out tool_timeout", "started cancelled"},
		{`{ effect = "huge_output", output_bytes = 2_000_000 }`, "ok", "started committed"},
		{`{ effect = "binary_output" }`, "ok", "started committed"},
		{`{ effect = "partial_then_fail", duration_ns = 10_000_000 }`, "failed exit_1", "started partial failed"},
		{`{ effect = "cancelled", duration_ns = 10_000_000 }`, "cancelled tool_cancelled", "started partial cancelled"},
	}
	for _, c := range cases {
		t.Run(c.effect, func(t *testing.T) {
			ep := run(t, parse(t, header("turns = 2\ntool_timeout_ns = 5_000_000_000",
				toolScript(`{ id = "toolu_1", name = "bash", args = ["{}"] }`), "effects = ["+c.effect+"]")))
			var got string
			for _, o := range outcomes(ep) {
				if strings.HasPrefix(o, "t1.toolu_1 ") {
					got = strings.TrimSuffix(strings.TrimPrefix(o, "t1.toolu_1 "), " exit_0")
				}
			}
			if got != c.outcome {
				t.Errorf("tool outcome %q, want %q", got, c.outcome)
			}
			var states []string
			for _, l := range ep.of("tool_state") {
				states = append(states, field(l, "state"))
			}
			if s := strings.Join(states, " "); s != c.states {
				t.Errorf("tool states %q, want %q", s, c.states)
			}
			inc := ep.of("tool_result_included")
			if len(inc) != 1 {
				t.Fatalf("tool_result_included %q", inc)
			}
		})
	}
}

// TestAgent_DuplicateAndReorderedFragments: tool arguments assembled
// from duplicated or reordered fragments do not parse, so the attempt is
// a torn result, never a success.
func TestAgent_DuplicateAndReorderedFragments(t *testing.T) {
	for _, f := range []string{"duplicate_fragment", "reorder_fragments"} {
		script := `[[script]]
tool_calls = [{ id = "toolu_1", name = "bash", args = ["{\"cmd\":", "\"ls\"}"] }]
fault = { kind = "` + f + `" }
`
		ep := run(t, parse(t, header("max_attempts = 1", script, "")))
		if got := outcomes(ep); len(got) != 1 || got[0] != "t1.a1 failed invalid_tool_args" {
			t.Errorf("%s: outcomes %q", f, got)
		}
	}
}

// TestAgent_CancelMidStream: a Cancel mutation during a stream settles
// the call as cancelled at once and ends the episode.
func TestAgent_CancelMidStream(t *testing.T) {
	sc := header("", `[[script]]
first_byte_ns = 100_000_000
chunk_ns = 100_000_000
text = ["a", "b", "c", "d", "e", "f"]
`, "") + `
[[mutations]]
at_ns = 1_900_000_000
kind = "Cancel"
peer = "agent"
`
	ep := run(t, parse(t, sc))
	got := outcomes(ep)
	if len(got) != 1 || got[0] != "t1.a1 cancelled cancel" {
		t.Fatalf("outcomes %q", got)
	}
	if n := len(ep.of("cancel_settled")); n != 1 {
		t.Fatalf("%d cancel_settled", n)
	}
	if ab := ep.of("response_aborted"); len(ab) != 1 {
		t.Fatalf("provider saw %d aborts", len(ab))
	}
}

// TestAgent_CancelDuringTools: cancelled tools get a result each, from
// the tool or synthesised after the grace period.
func TestAgent_CancelDuringTools(t *testing.T) {
	sc := header("cancel_grace_ns = 500_000_000\ntools = { bash = \"shell\", slow = \"model\" }",
		toolScript(`{ id = "toolu_1", name = "bash", args = ["{}"] }, { id = "toolu_2", name = "slow", args = ["{}"] }`),
		`effects = [{ effect = "hang" }]`) + `
[[mutations]]
at_ns = 5_000_000_000
kind = "Cancel"
peer = "agent"
`
	// "slow" goes to the provider, which never answers a tool call: its
	// result must be synthesised.
	sc = strings.Replace(sc, "tools = { bash = \"shell\" }\n", "", 1)
	ep := run(t, parse(t, sc))
	res := ep.of("tool_result")
	if len(res) != 2 {
		t.Fatalf("tool results %q", res)
	}
	if !strings.Contains(res[0], `"id":"t1.toolu_1","outcome":"cancelled","synthesised":false`) ||
		!strings.Contains(res[1], `"id":"t1.toolu_2","outcome":"cancelled","synthesised":true`) {
		t.Fatalf("tool results %q", res)
	}
}

// TestAgent_RecoversAfterRestart: killed mid-episode and resurrected
// fresh, the agent recovers its store, settles the interrupted attempt
// and finishes the workflow.
func TestAgent_RecoversAfterRestart(t *testing.T) {
	sc := header("steps = [\"a\", \"b\", \"c\"]", `steps = ["a", "b", "c"]
[[script]]
step = "a"
text = ["one"]
[[script]]
step = "b"
first_byte_ns = 4_000_000_000
text = ["two"]
[[script]]
step = "b"
text = ["two again"]
[[script]]
step = "c"
text = ["three"]
`, "") + `
[[mutations]]
at_ns = 3_000_000_000
kind = "PeerKill"
peer = "agent"
[[mutations]]
at_ns = 10_000_000_000
kind = "PeerResurrect"
peer = "agent"
preserve_state = false
`
	ep := run(t, parse(t, sc))
	rec := ep.of("store_recovered")
	if len(rec) != 1 {
		t.Fatalf("store_recovered %q", rec)
	}
	want := []string{"t1.a1 ok message_stop", "t2.a1 failed interrupted_by_restart", "t2.a2 ok message_stop", "t3.a1 ok message_stop"}
	if got := outcomes(ep); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("outcomes %q, want %q", got, want)
	}
	if end := ep.of("episode_end"); len(end) != 1 || field(end[0], "outcome") != "ok" {
		t.Fatalf("episode_end %q", end)
	}
}

// TestAgent_StoreWriteFailureRetried: a failed write is retried and
// acknowledged only once written.
func TestAgent_StoreWriteFailureRetried(t *testing.T) {
	ep := run(t, parse(t, header("store_fail_writes = [2]", "[[script]]\ntext = [\"x\"]\n", "")))
	w := ep.of("store_write")
	if !strings.Contains(w[1], `"seq":2`) || !strings.Contains(w[1], `"ok":false`) || !strings.Contains(w[2], `"seq":2`) || !strings.Contains(w[2], `"ok":true`) {
		t.Fatalf("writes %q", w[:3])
	}
	if acks := ep.of("store_ack"); len(acks) != len(w)-1 {
		t.Fatalf("%d acks for %d writes, one failed", len(acks), len(w))
	}
}
