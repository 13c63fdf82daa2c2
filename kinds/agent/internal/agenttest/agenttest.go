// Package agenttest writes the scenario the agent family's tests run:
// an agent, the model it asks (a provider) and the shell its bash tool
// runs in (a tool), each with the kind_config a test gives it.
package agenttest

import (
	"fmt"
	"strings"
)

// Scenario is the text of a scenario named name with its seed and
// duration, whose links all have latencyNs and bandwidthBps and nothing
// else (no jitter, loss, reordering or dial penalty). agent, script and
// tools are the peers' kind_config; script's entries are written
// [[script]], as in a provider's own kind_config.
func Scenario(name string, seed uint64, durationNs, latencyNs, bandwidthBps int64, agent, script, tools string) string {
	return fmt.Sprintf(`name = %q
seed = %d
duration_ns = %d
[default_tick]
period_ns = 1_000_000_000
[default_link]
latency_ns = %d
jitter_stddev_ns = 0
loss_prob_ppm = 0
reorder_prob_ppm = 0
bandwidth_bps = %d
cold_dial_penalty_ns = 0
cache_warm_after_ns = 0
cache_invalidate_after_idle_ns = 0
mtu_bytes = 0
[[peers]]
id = "agent"
kind = "agent"
[peers.kind_config]
provider = "model"
tools = { bash = "shell" }
`, name, seed, durationNs, latencyNs, bandwidthBps) + agent + `
[[peers]]
id = "model"
kind = "provider"
[peers.kind_config]
` + strings.ReplaceAll(script, "[[script]]", "[[peers.kind_config.script]]") + `
[[peers]]
id = "shell"
kind = "tool"
[peers.kind_config]
` + tools + "\n"
}
