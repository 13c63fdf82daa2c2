package agent_test

import (
	"strings"
	"testing"

	"github.com/detsim/detsim/bundle/verdict"
)

// Found by the agent_faults sweep (seeds 38, 54, 56, 110, 155, 195 before
// the fix): a restart while a turn's tools ran made the fresh life call
// the model again for a turn whose call had already ended ok — a retry
// after content (retry_budget), and a second start of the same tool use
// ids (effect_outcome_once, tool_result_matched). The fresh life must
// settle the interrupted tools and end the turn without a new call.
const restartDuringTools = `steps = ["a", "b"]
[[script]]
step = "a"
text = ["one"]
tool_calls = [{ id = "toolu_1", name = "bash", args = ["{}"] }]
[[script]]
step = "a"
text = ["one again"]
tool_calls = [{ id = "toolu_1", name = "bash", args = ["{}"] }]
[[script]]
step = "b"
text = ["two"]
`

func restartAt(killNs, backNs string) string {
	return `
[[mutations]]
at_ns = ` + killNs + `
kind = "PeerKill"
peer = "agent"
[[mutations]]
at_ns = ` + backNs + `
kind = "PeerResurrect"
peer = "agent"
preserve_state = false
`
}

func TestAgent_RestartDuringToolsEndsTheTurnWithoutANewCall(t *testing.T) {
	sc := header(`steps = ["a", "b"]`, restartDuringTools, `effects = [{ effect = "success", duration_ns = 10_000_000_000 }]`) +
		restartAt("3_000_000_000", "8_000_000_000")
	ep := run(t, parse(t, sc))
	want := []string{"t1.a1 ok message_stop", "t1.toolu_1 failed interrupted_by_restart", "t2.a1 ok message_stop"}
	if got := outcomes(ep); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("outcomes %q, want %q", got, want)
	}
	// The interrupted tool's synthesised result feeds the next request.
	if inc := ep.of("tool_result_included"); len(inc) != 1 || field(inc[0], "id") != "t1.toolu_1" || field(inc[0], "call") != "t2.a1" {
		t.Fatalf("tool_result_included %q", inc)
	}
	if end := ep.of("episode_end"); len(end) != 1 || field(end[0], "outcome") != "ok" {
		t.Fatalf("episode_end %q", end)
	}
	for _, oracle := range []string{
		"kind = \"retry_budget\"\npeer = \"agent\"\nmax_attempts = 3",
		"kind = \"effect_outcome_once\"\npeer = \"agent\"",
		"kind = \"tool_result_matched\"\npeer = \"agent\"",
	} {
		v := judge(t, sc+"[[assertions]]\nname = \"oracle\"\n"+oracle+"\n")
		if v.Outcome != verdict.Pass {
			t.Errorf("%s: %s %s", oracle, v.Outcome, v.Reason)
		}
	}
}

// Found by the agent_faults sweep (seed 55 before the fix): a Cancel
// reaching a fresh life before its first tick ended the episode without
// reading the store, so the model call the last life left open never got
// an outcome (effect_outcome_once).
func TestAgent_CancelBeforeTheFreshLifeTicksSettlesTheOpenEffects(t *testing.T) {
	sc := header(`first_byte_timeout_ns = 20_000_000_000`, "[[script]]\nfault = { kind = \"timeout\" }\n", "") +
		restartAt("3_000_000_000", "8_000_000_000") +
		"[[mutations]]\nat_ns = 8_000_000_001\nkind = \"Cancel\"\npeer = \"agent\"\n"
	ep := run(t, parse(t, sc))
	want := []string{"t1.a1 failed interrupted_by_restart"}
	if got := outcomes(ep); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("outcomes %q, want %q", got, want)
	}
	if end := ep.of("episode_end"); len(end) != 1 || field(end[0], "outcome") != "cancelled" {
		t.Fatalf("episode_end %q", end)
	}
	v := judge(t, sc+"[[assertions]]\nname = \"oracle\"\nkind = \"effect_outcome_once\"\npeer = \"agent\"\n")
	if v.Outcome != verdict.Pass {
		t.Errorf("effect_outcome_once: %s %s", v.Outcome, v.Reason)
	}
}
