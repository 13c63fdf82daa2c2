package agent_test

import (
	"strings"
	"testing"

	"github.com/detsim/detsim/bundle/verdict"
	"github.com/detsim/detsim/scenarios"
)

// withStoreFailures is sc with the agent's store failing write attempts
// ws.
func withStoreFailures(sc *scenarios.Scenario, ws ...int64) *scenarios.Scenario {
	for i := range sc.Peers {
		if sc.Peers[i].Kind == "agent" {
			list := make([]any, len(ws))
			for j, w := range ws {
				list[j] = w
			}
			sc.Peers[i].KindConfig["store_fail_writes"] = list
		}
	}
	return sc
}

// TestAgent_StoreExhaustedSettlesEveryEffect: the session store refuses
// one record through all its retries (store_write_retries + 1 = 4
// consecutive failed attempts), at every one of faults_base's 16 records
// in turn.
// Before the fix, a refused outcome at record 4, 10 or 11 stopped the
// agent without the tool's result and with the other tool still
// running (tool_result_matched failed). Now the workflow stops, every
// effect is settled and reported, the tools are told, and every oracle
// of faults_base holds.
func TestAgent_StoreExhaustedSettlesEveryEffect(t *testing.T) {
	for first := int64(1); first <= 16; first++ {
		sc := withStoreFailures(load(t, "library/agent/faults_base.toml"), first, first+1, first+2, first+3)
		for _, v := range verdicts(t, sc) {
			if v.Outcome != verdict.Pass {
				t.Errorf("store exhausted from write %d: %s %s: %s", first, v.Name, v.Outcome, v.Reason)
			}
		}
		ep := run(t, sc)
		end := ep.of("episode_end")
		if len(end) != 1 {
			t.Fatalf("write %d: episode_end %q", first, end)
		}
		if !strings.Contains(end[0], `"store_unavailable"`) {
			t.Errorf("store exhausted from write %d: %s, want the episode stopped (store_unavailable)", first, end[0])
		}
	}
}
