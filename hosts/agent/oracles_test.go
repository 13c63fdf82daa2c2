package agent_test

import (
	"strings"
	"testing"

	"github.com/detsim/detsim/batch"
	"github.com/detsim/detsim/bundle/verdict"
	"github.com/detsim/detsim/engine"
	"github.com/detsim/detsim/hosts/builtin"
)

// judge runs the scenario with its assertions streamed and returns the
// verdict of the assertion named "oracle".
func judge(t *testing.T, text string) verdict.Verdict {
	t.Helper()
	sc := parse(t, text)
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
	for _, v := range ev.Finish(sc.DurationNs) {
		if v.Name == "oracle" {
			return v
		}
	}
	t.Fatal("no verdict named oracle")
	return verdict.Verdict{}
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
		script: "[[script]]\ntool_calls = [{ id = \"toolu_1\", name = \"bash\", args = [\"{}\"] }]\n",
		tools:  `effects = [{ effect = "hang" }]`,
		extra:  "[[mutations]]\nat_ns = 5_000_000_000\nkind = \"Cancel\"\npeer = \"agent\"\n",
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
		script: "[[script]]\ntool_calls = [{ id = \"toolu_1\", name = \"bash\", args = [\"{}\"] }]\n",
		tools:  `effects = [{ effect = "hang" }]`,
		extra:  "[[mutations]]\nat_ns = 5_000_000_000\nkind = \"Cancel\"\npeer = \"agent\"\n",
	},
	{
		oracle: `kind = "output_bounded"` + "\npeer = \"agent\"\nmax_bytes = 17_000",
		bug:    "no_output_cap",
		agent:  "turns = 2",
		script: "[[script]]\ntool_calls = [{ id = \"toolu_1\", name = \"bash\", args = [\"{}\"] }]\n[[script]]\ntext = [\"ok\"]\n",
		tools:  `effects = [{ effect = "huge_output", output_bytes = 200_000 }]`,
	},
	{
		oracle: `kind = "retry_budget"` + "\npeer = \"agent\"\nmax_attempts = 3",
		bug:    "retry_after_content",
		script: "[[script]]\ntext = [\"a\", \"b\"]\nfault = { kind = \"overloaded\", after_chunks = 3 }\n[[script]]\ntext = [\"ok\"]\n",
	},
	{
		oracle: `kind = "retry_budget"` + "\npeer = \"agent\"\nmax_attempts = 3",
		bug:    "ignore_retry_after",
		script: "[[script]]\nfault = { kind = \"rate_limit\", retry_after_ns = 10_000_000_000 }\n[[script]]\ntext = [\"ok\"]\n",
	},
}

// TestOracles_CatchPlantedFaults: every oracle passes the correct agent
// on its scenario and fails the agent with its planted bug (seed 000:
// "each oracle lands with a mutation proving it catches a planted
// fault").
func TestOracles_CatchPlantedFaults(t *testing.T) {
	for _, c := range plantedCases {
		name := strings.Fields(c.oracle)[2] + "/" + c.bug
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
