package scenarios

import (
	"math"

	"github.com/detsim/detsim/network"
)

// PolicyField is one §5.2 link-policy key, the loader's bounds for it and
// where it lands in a network.Policy.
type PolicyField struct {
	Key    string
	Lo, Hi int64
	Field  func(*network.Policy) *int64
}

// PolicyFields are every link-policy key ([default_link], [[links]]), in
// declaration order. Read-only: the property generator draws per-pair
// values in this order.
var PolicyFields = []PolicyField{
	{"latency_ns", 0, MaxDelayNs, func(p *network.Policy) *int64 { return &p.LatencyNs }},
	{"jitter_stddev_ns", 0, MaxJitterNs, func(p *network.Policy) *int64 { return &p.JitterStddevNs }},
	{"loss_prob_ppm", 0, MaxPPM, func(p *network.Policy) *int64 { return &p.LossProbPPM }},
	{"reorder_prob_ppm", 0, MaxPPM, func(p *network.Policy) *int64 { return &p.ReorderProbPPM }},
	{"bandwidth_bps", 1, math.MaxInt64, func(p *network.Policy) *int64 { return &p.BandwidthBps }},
	{"cold_dial_penalty_ns", 0, MaxDelayNs, func(p *network.Policy) *int64 { return &p.ColdDialPenaltyNs }},
	{"cache_warm_after_ns", 0, MaxTimeNs, func(p *network.Policy) *int64 { return &p.CacheWarmAfterNs }},
	{"cache_invalidate_after_idle_ns", 0, MaxTimeNs, func(p *network.Policy) *int64 { return &p.CacheInvalidateAfterIdleNs }},
	{"send_buffer_bytes", MinSendBufferBytes, MaxSendBufferBytes, func(p *network.Policy) *int64 { return &p.SendBufferBytes }},
}

func policyKeys() []string {
	keys := make([]string, len(PolicyFields))
	for i, pf := range PolicyFields {
		keys[i] = pf.Key
	}
	return keys
}

// readPolicy overwrites the fields of p the table sets, and reports the
// ones that are invalid.
func readPolicy(f fields, p *network.Policy) {
	for _, pf := range PolicyFields {
		if v, ok := f.integer(pf.Key, pf.Lo, pf.Hi, false); ok {
			*pf.Field(p) = v
		}
	}
}
