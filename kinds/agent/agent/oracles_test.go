package agent_test

import (
	"strings"
	"testing"

	"github.com/detsim/detsim/batch"
	"github.com/detsim/detsim/bundle/verdict"
	"github.com/detsim/detsim/engine"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/scenarios"
)

// judge runs the scenario with its assertions streamed and returns the
// verdict of the assertion named "oracle".
func judge(t *testing.T, text string) verdict.Verdict {
	t.Helper()
	for _, v := range verdicts(t, parse(t, text)) {
		if v.Name == "oracle" {
			return v
		}
	}
	t.Fatal("no verdict named oracle")
	return verdict.Verdict{}
}

// verdicts runs sc with its assertions streamed and returns every
// verdict, in declaration order.
func verdicts(t testing.TB, sc *scenarios.Scenario) []verdict.Verdict {
	t.Helper()
	ev, err := verdict.New(sc.Assertions)
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(sc, builtin.Registry(), engine.Options{Monitor: batch.Monitor(ev)})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Run(); err != nil {
		t.Fatal(err)
	}
	return ev.Finish(sc.DurationNs)
}

// plantedCases: each oracle, a scenario that exercises it, and the
// planted bug it must catch (docs/agents.md, "Adding an oracle").
var plantedCases = []struct {
	oracle, bug, agent, script, tools, extra string
}{
	{
		oracle: `kind = "effect_outcome_once"` + "\npeer = \"agent\"",
		bug:    "drop_timeout_outcome",
		script: "[[script]]\nfault = { kind = \"timeout\" }\n[[script]]\ntext = [\"ok\"]\n",
	},
	{
		oracle: `kind = "cancel_settles_within"` + "\npeer = \"agent\"\nwithin_ns = 2_000_000_000",
		bug:    "slow_cancel",
		script: oneToolCall,
		tools:  `effects = [{ effect = "hang" }]`,
		extra:  cancelAt5s,
	},
	{
		oracle: `kind = "no_torn_success"` + "\npeer = \"agent\"",
		bug:    "accept_truncated",
		script: "[[script]]\ntext = [\"a\", \"b\", \"c\"]\nfault = { kind = \"truncated\", after_chunks = 4 }\n",
	},
	{
		oracle: `kind = "no_lost_ack"` + "\npeer = \"agent\"",
		bug:    "ack_before_write",
		agent:  "store_fail_writes = [2]\nsteps = [\"a\", \"b\"]",
		script: "steps = [\"a\", \"b\"]\n[[script]]\nstep = \"a\"\ntext = [\"one\"]\n[[script]]\nstep = \"b\"\nfirst_byte_ns = 4_000_000_000\ntext = [\"two\"]\n[[script]]\nstep = \"b\"\ntext = [\"two\"]\n",
		extra: "[[mutations]]\nat_ns = 3_000_000_000\nkind = \"PeerKill\"\npeer = \"agent\"\n" +
			"[[mutations]]\nat_ns = 10_000_000_000\nkind = \"PeerResurrect\"\npeer = \"agent\"\npreserve_state = false\n",
	},
	{
		oracle: `kind = "tool_result_matched"` + "\npeer = \"agent\"",
		bug:    "drop_cancelled_results",
		script: oneToolCall,
		tools:  `effects = [{ effect = "hang" }]`,
		extra:  cancelAt5s,
	},
	{
		oracle: `kind = "output_bounded"` + "\npeer = \"agent\"\nmax_bytes = 17_000",
		bug:    "no_output_cap",
		agent:  "turns = 2",
		script: toolThenOK,
		tools:  `effects = [{ effect = "huge_output", output_bytes = 200_000 }]`,
	},
	{
		oracle: `kind = "retry_budget"` + "\npeer = \"agent\"\nmax_attempts = 3",
		bug:    "retry_after_content",
		script: "[[script]]\ntext = [\"a\", \"b\"]\nfault = { kind = \"overloaded\", after_chunks = 3 }\n[[script]]\ntext = [\"ok\"]\n",
	},
	// The bugs that lie (docs/assertions.md, "Claims against facts"):
	// each keeps the agent's own records consistent, and only a fact
	// from the provider, a tool or the engine shows it.
	{
		oracle: `kind = "effect_outcome_once"` + "\npeer = \"agent\"",
		bug:    "unrecorded_retry", // the provider sees t1.a2; the agent's records have no such effect
		script: "[[script]]\nfault = { kind = \"server_error\", status = 503 }\n[[script]]\ntext = [\"ok\"]\n",
	},
	{
		oracle: `kind = "no_commit_after_settle"` + "\npeer = \"agent\"",
		bug:    "cancel_untold", // recorded cancelled at 4.0 s; the tool commits at 11.2 s
		script: oneToolCall,
		tools:  `effects = [{ effect = "success", duration_ns = 10_000_000_000 }]`,
		extra:  "[[mutations]]\nat_ns = 4_000_000_000\nkind = \"Cancel\"\npeer = \"agent\"\n",
	},
	{
		oracle: `kind = "no_commit_after_settle"` + "\npeer = \"agent\"",
		bug:    "timeout_untold", // recorded timed_out at 21.2 s; the tool commits at 31.2 s
		agent:  "turns = 2\ntool_timeout_ns = 20_000_000_000",
		script: toolThenOK,
		tools:  `effects = [{ effect = "success", duration_ns = 30_000_000_000 }]`,
	},
	{
		oracle: `kind = "cancel_settles_within"` + "\npeer = \"agent\"\nwithin_ns = 2_000_000_000",
		bug:    "ignore_cancel", // the engine delivers the Cancel; the agent records nothing
		script: oneToolCall,
		tools:  `effects = [{ effect = "hang" }]`,
		extra:  cancelAt5s,
	},
	{
		oracle: `kind = "output_bounded"` + "\npeer = \"agent\"\nmax_bytes = 17_000",
		bug:    "misreport_output", // says 16 403 bytes entered the request; 2 080 709 went on the wire
		agent:  "turns = 2",
		script: toolThenOK,
		tools:  `effects = [{ effect = "huge_output", output_bytes = 2_080_700 }]`,
	},
	{
		oracle: `kind = "response_bounded"` + "\npeer = \"agent\"\nmax_bytes = 262_144",
		bug:    "no_response_cap", // takes a 300 KB response whole
		script: "[[script]]\ntext = [\"a\", \"b\"]\nfault = { kind = \"oversized\", after_chunks = 3, bytes = 300_000 }\n[[script]]\ntext = [\"ok\"]\n",
	},
	{
		oracle: `kind = "no_torn_success"` + "\npeer = \"agent\"",
		bug:    "skip_bad_events", // an event whose JSON is cut in half is skipped, the rest taken as whole
		script: "[[script]]\ntext = [\"a\", \"b\", \"c\"]\nfault = { kind = \"malformed_json\", after_chunks = 3 }\n[[script]]\ntext = [\"ok\"]\n",
	},
	{
		oracle: `kind = "no_torn_success"` + "\npeer = \"agent\"",
		bug:    "lenient_tool_input", // a duplicated fragment: {"cmd":{"cmd": "ls"} taken as the input
		agent:  "turns = 2",
		script: "[[script]]\ntool_calls = [{ id = \"toolu_1\", name = \"bash\", args = [\"{\\\"cmd\\\":\", \" \\\"ls\\\"}\"] }]\nfault = { kind = \"duplicate_fragment\", fragment = 0 }\n[[script]]\ntext = [\"ok\"]\n",
	},
	{
		oracle: `kind = "no_torn_success"` + "\npeer = \"agent\"",
		bug:    "lenient_tool_input", // reordered fragments taken as whole
		agent:  "turns = 2",
		script: "[[script]]\ntool_calls = [{ id = \"toolu_1\", name = \"bash\", args = [\"{\\\"cmd\\\":\", \" \\\"ls\\\"}\"] }]\nfault = { kind = \"reorder_fragments\", fragment = 0 }\n[[script]]\ntext = [\"ok\"]\n",
	},
	{
		oracle: `kind = "turn_outcome_once"` + "\npeer = \"agent\"",
		bug:    "repeat_turn_end",
		script: "[[script]]\ntext = [\"ok\"]\n",
	},
	{
		oracle: `kind = "retry_budget"` + "\npeer = \"agent\"\nmax_attempts = 3",
		bug:    "ignore_retry_after",
		script: "[[script]]\nfault = { kind = \"rate_limit\", retry_after_ns = 10_000_000_000 }\n[[script]]\ntext = [\"ok\"]\n",
	},
	// What the edge saw (docs/assertions.md): the oracles an outside
	// agent is judged by from the provider's and the tools' records,
	// here on the built-in agent's planted bugs.
	{
		oracle: `kind = "turn_not_repeated"` + "\npeer = \"agent\"",
		bug:    "repeat_answered_turn", // killed in turn 1's tool, the fresh life asks turn 1 again
		agent:  "turns = 2",
		script: restartScript,
		tools:  `effects = [{ effect = "success", duration_ns = 10_000_000_000 }]`,
		extra:  restartMutations,
	},
	{
		oracle: `kind = "tool_run_once"` + "\npeer = \"agent\"",
		bug:    "repeat_answered_turn", // ... and runs toolu_1 again
		agent:  "turns = 2",
		script: restartScript,
		tools:  `effects = [{ effect = "success", duration_ns = 10_000_000_000 }]`,
		extra:  restartMutations,
	},
	{
		oracle: `kind = "tool_result_returned"` + "\npeer = \"agent\"",
		bug:    "drop_tool_result",
		agent:  "turns = 2",
		script: toolThenOK,
	},
	{
		oracle: `kind = "tool_deadline_kept"` + "\npeer = \"agent\"\nwithin_ns = 20_000_000_000",
		bug:    "timeout_untold", // the hung tool is never told: still running at the end
		agent:  "turns = 2\ntool_timeout_ns = 20_000_000_000",
		script: toolThenOK,
		tools:  `effects = [{ effect = "hang" }]`,
	},
	{
		oracle: `kind = "no_work_after_cancel"` + "\npeer = \"agent\"\nwithin_ns = 2_000_000_000",
		bug:    "ignore_cancel", // the tool commits at 11 s and turn 2 is asked for, 6 s after the Cancel
		agent:  "turns = 2",
		script: toolThenOK,
		tools:  `effects = [{ effect = "success", duration_ns = 10_000_000_000 }]`,
		extra:  cancelAt5s,
	},
}

// The scripts and mutations several cases share: a tool call (then,
// in toolThenOK, a second turn answered "ok"), and a Cancel of the
// agent 5 s in.
const (
	oneToolCall = "[[script]]\ntool_calls = [{ id = \"toolu_1\", name = \"bash\", args = [\"{}\"] }]\n"
	toolThenOK  = "[[script]]\ntool_calls = [{ id = \"toolu_1\", name = \"bash\", args = [\"{}\"] }]\n[[script]]\ntext = [\"ok\"]\n"
	cancelAt5s  = "[[mutations]]\nat_ns = 5_000_000_000\nkind = \"Cancel\"\npeer = \"agent\"\n"
)

// restartScript and restartMutations: turn 1's answer asks for a tool
// that runs 10 s; the agent is killed 4 s in and restarted fresh.
const (
	restartScript = "[[script]]\ntool_calls = [{ id = \"toolu_1\", name = \"bash\", args = [\"{}\"] }]\n" +
		"[[script]]\ntool_calls = [{ id = \"toolu_1\", name = \"bash\", args = [\"{}\"] }]\n[[script]]\ntext = [\"ok\"]\n[[script]]\ntext = [\"ok\"]\n"
	restartMutations = "[[mutations]]\nat_ns = 4_000_000_000\nkind = \"PeerKill\"\npeer = \"agent\"\n" +
		"[[mutations]]\nat_ns = 6_000_000_000\nkind = \"PeerResurrect\"\npeer = \"agent\"\npreserve_state = false\n"
)

// TestOracles_CatchPlantedFaults: every oracle passes the correct agent
// on its scenario and fails the agent with its planted bug (seed 000:
// "each oracle lands with a mutation proving it catches a planted
// fault").
func TestOracles_CatchPlantedFaults(t *testing.T) {
	for _, c := range plantedCases {
		name := strings.Fields(c.oracle)[2] + "/" + c.bug
		if strings.Contains(c.script, "reorder") {
			name += "/reordered"
		}
		t.Run(name, func(t *testing.T) {
			text := func(bug string) string {
				agent := c.agent
				if bug != "" {
					agent += "\nbug = \"" + bug + "\""
				}
				return header(agent, c.script, c.tools) + c.extra + "[[assertions]]\nname = \"oracle\"\n" + c.oracle + "\n"
			}
			if v := judge(t, text("")); v.Outcome != verdict.Pass {
				t.Errorf("correct agent: %s: %s", v.Outcome, v.Reason)
			}
			if v := judge(t, text(c.bug)); v.Outcome != verdict.Fail {
				t.Errorf("bug %s: %s: %s, want Fail", c.bug, v.Outcome, v.Reason)
			} else {
				t.Logf("bug %s caught: %s", c.bug, v.Reason)
			}
		})
	}
}
