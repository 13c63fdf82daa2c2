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
	// ZeroOff says 0 is accepted too, below Lo, and switches the
	// feature off (mtu_bytes = 0: no fragmentation; burst_bytes = 0: a
	// serialising wire, no token bucket).
	ZeroOff bool
}

// Accepts reports whether v is a valid value of the key.
func (pf PolicyField) Accepts(v int64) bool {
	return pf.ZeroOff && v == 0 || pf.Lo <= v && v <= pf.Hi
}

// read reads the key from f, reporting an invalid value.
func (pf PolicyField) read(f fields) (int64, bool) {
	if v, isInt := f.tbl[pf.Key].(int64); isInt && pf.Accepts(v) {
		return v, true
	}
	return f.integer(pf.Key, pf.Lo, pf.Hi, false)
}

// PolicyFields are every link-policy key ([default_link], [[links]]), in
// declaration order. Read-only: the property generator draws per-pair
// values in this order.
var PolicyFields = []PolicyField{
	{"latency_ns", 0, MaxDelayNs, func(p *network.Policy) *int64 { return &p.LatencyNs }, false},
	{"jitter_stddev_ns", 0, MaxJitterNs, func(p *network.Policy) *int64 { return &p.JitterStddevNs }, false},
	{"loss_prob_ppm", 0, MaxPPM, func(p *network.Policy) *int64 { return &p.LossProbPPM }, false},
	{"reorder_prob_ppm", 0, MaxPPM, func(p *network.Policy) *int64 { return &p.ReorderProbPPM }, false},
	{"bandwidth_bps", 1, math.MaxInt64, func(p *network.Policy) *int64 { return &p.BandwidthBps }, false},
	{"cold_dial_penalty_ns", 0, MaxDelayNs, func(p *network.Policy) *int64 { return &p.ColdDialPenaltyNs }, false},
	{"cache_warm_after_ns", 0, MaxTimeNs, func(p *network.Policy) *int64 { return &p.CacheWarmAfterNs }, false},
	{"cache_invalidate_after_idle_ns", 0, MaxTimeNs, func(p *network.Policy) *int64 { return &p.CacheInvalidateAfterIdleNs }, false},
	{"send_buffer_bytes", MinSendBufferBytes, MaxSendBufferBytes, func(p *network.Policy) *int64 { return &p.SendBufferBytes }, false},
	{"mtu_bytes", MinMTUBytes, MaxMTUBytes, func(p *network.Policy) *int64 { return &p.MTUBytes }, true},
	{"burst_bytes", 1, MaxBurstBytes, func(p *network.Policy) *int64 { return &p.BurstBytes }, true},
}

// PolicyTable is a link policy as the TOML table the loader reads back
// into the same policy (every key, in PolicyFields order when encoded).
func PolicyTable(p network.Policy) map[string]any {
	t := make(map[string]any, len(PolicyFields))
	for _, pf := range PolicyFields {
		t[pf.Key] = *pf.Field(&p)
	}
	return t
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
		if v, ok := pf.read(f); ok {
			*pf.Field(p) = v
		}
	}
}
