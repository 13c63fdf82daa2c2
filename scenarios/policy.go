package scenarios

import (
	"math"

	"github.com/detsim/detsim/network"
)

// policyField is one §5.2 link-policy key, its bounds and where it lands
// in a network.Policy.
type policyField struct {
	key    string
	lo, hi int64
	field  func(*network.Policy) *int64
}

var policyFields = []policyField{
	{"latency_ns", 0, MaxDelayNs, func(p *network.Policy) *int64 { return &p.LatencyNs }},
	{"jitter_stddev_ns", 0, MaxJitterNs, func(p *network.Policy) *int64 { return &p.JitterStddevNs }},
	{"loss_prob_ppm", 0, MaxPPM, func(p *network.Policy) *int64 { return &p.LossProbPPM }},
	{"reorder_prob_ppm", 0, MaxPPM, func(p *network.Policy) *int64 { return &p.ReorderProbPPM }},
	{"bandwidth_bps", 1, math.MaxInt64, func(p *network.Policy) *int64 { return &p.BandwidthBps }},
	{"cold_dial_penalty_ns", 0, MaxDelayNs, func(p *network.Policy) *int64 { return &p.ColdDialPenaltyNs }},
	{"cache_warm_after_ns", 0, MaxTimeNs, func(p *network.Policy) *int64 { return &p.CacheWarmAfterNs }},
	{"cache_invalidate_after_idle_ns", 0, MaxTimeNs, func(p *network.Policy) *int64 { return &p.CacheInvalidateAfterIdleNs }},
}

func policyKeys() []string {
	keys := make([]string, len(policyFields))
	for i, pf := range policyFields {
		keys[i] = pf.key
	}
	return keys
}

// readPolicy overwrites the fields of p the table sets, and reports the
// ones that are invalid.
func readPolicy(f fields, p *network.Policy) {
	for _, pf := range policyFields {
		if v, ok := f.integer(pf.key, pf.lo, pf.hi, false); ok {
			*pf.field(p) = v
		}
	}
}
