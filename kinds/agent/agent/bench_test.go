package agent_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/detsim/detsim/kinds/agent/internal/agenttest"
)

// hundredTurns is a 100-turn episode where every fifth turn's first
// attempt meets a retryable fault (rotating through rate_limit,
// server_error, overloaded, timeout, truncated before content) and
// every turn calls a tool.
func hundredTurns() string {
	faults := []string{
		`fault = { kind = "rate_limit", retry_after_ns = 1_000_000_000 }`,
		`fault = { kind = "server_error", status = 503 }`,
		`fault = { kind = "overloaded", after_chunks = 1 }`,
		`fault = { kind = "timeout" }`,
		`fault = { kind = "truncated", after_chunks = 1 }`,
	}
	var b strings.Builder
	for i := range 100 {
		if i%5 == 0 {
			fmt.Fprintf(&b, "[[script]]\n%s\n", faults[(i/5)%len(faults)])
		}
		fmt.Fprintf(&b, "[[script]]\nfirst_byte_ns = 200_000_000\nchunk_ns = 10_000_000\ntext = [\"step \", \"%d\"]\n"+
			"tool_calls = [{ id = \"toolu_%d\", name = \"bash\", args = [\"{\\\"n\\\":\", \"%d}\"] }]\n", i, i, i)
	}
	// header's scenario, run for 3 600 s.
	return agenttest.Scenario("t", 3, 3_600_000_000_000, 20_000_000, 1_250_000, "turns = 100\nfirst_byte_timeout_ns = 2_000_000_000", b.String(),
		`effects = [{ effect = "exit_nonzero" }, { effect = "huge_output", output_bytes = 100_000 }]`)
}

// TestHundredTurns_Completes: the benchmark's episode finishes all 100
// turns, each fault retried into success.
func TestHundredTurns_Completes(t *testing.T) {
	ep := run(t, parse(t, hundredTurns()))
	end := ep.of("episode_end")
	if len(end) != 1 || !strings.Contains(end[0], `"outcome":"ok"`) || !strings.Contains(end[0], `"turns_done":100`) {
		t.Fatalf("episode_end %q", end)
	}
	if n := len(ep.of("retry_scheduled")); n != 20 {
		t.Fatalf("%d retries, want 20", n)
	}
}

// BenchmarkHundredTurnEpisodeWithFaults is the target: a
// 100-turn episode with faults in under 50 ms (engine, network and
// serialised records included; scenario parsing excluded).
func BenchmarkHundredTurnEpisodeWithFaults(b *testing.B) {
	sc := parse(b, hundredTurns())
	for b.Loop() {
		run(b, sc)
	}
}
