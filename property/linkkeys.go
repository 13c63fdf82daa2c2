package property

import (
	"github.com/detsim/detsim/network"
	"github.com/detsim/detsim/scenarios"
)

// policyTable renders a policy as a [default_link] table.
func policyTable(p network.Policy) map[string]any {
	t := make(map[string]any, len(scenarios.PolicyFields))
	for _, k := range scenarios.PolicyFields {
		t[k.Key] = *k.Field(&p)
	}
	return t
}
