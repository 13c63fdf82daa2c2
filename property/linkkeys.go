package property

import (
	"math"

	"github.com/detsim/detsim/network"
	"github.com/detsim/detsim/scenarios"
)

// linkKey is one §5.2 link policy field a space may draw per pair.
type linkKey struct {
	name   string
	lo, hi int64
	field  func(*network.Policy) *int64
}

// linkKeys lists every [default_link] key, in the order draws are made
// and links are written, with the loader's bounds (docs/scenario-format.md).
var linkKeys = []linkKey{
	{"latency_ns", 0, scenarios.MaxDelayNs, func(p *network.Policy) *int64 { return &p.LatencyNs }},
	{"jitter_stddev_ns", 0, scenarios.MaxJitterNs, func(p *network.Policy) *int64 { return &p.JitterStddevNs }},
	{"loss_prob_ppm", 0, scenarios.MaxPPM, func(p *network.Policy) *int64 { return &p.LossProbPPM }},
	{"reorder_prob_ppm", 0, scenarios.MaxPPM, func(p *network.Policy) *int64 { return &p.ReorderProbPPM }},
	{"bandwidth_bps", 1, math.MaxInt64, func(p *network.Policy) *int64 { return &p.BandwidthBps }},
	{"cold_dial_penalty_ns", 0, scenarios.MaxDelayNs, func(p *network.Policy) *int64 { return &p.ColdDialPenaltyNs }},
	{"cache_warm_after_ns", 0, scenarios.MaxTimeNs, func(p *network.Policy) *int64 { return &p.CacheWarmAfterNs }},
	{"cache_invalidate_after_idle_ns", 0, scenarios.MaxTimeNs, func(p *network.Policy) *int64 { return &p.CacheInvalidateAfterIdleNs }},
}

// policyTable renders a policy as a [default_link] table.
func policyTable(p network.Policy) map[string]any {
	t := make(map[string]any, len(linkKeys))
	for _, k := range linkKeys {
		t[k.name] = *k.field(&p)
	}
	return t
}
