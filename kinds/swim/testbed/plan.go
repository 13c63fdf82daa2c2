package testbed

import (
	"fmt"
	"slices"
	"strings"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/kinds/swim/swimcfg"
	"github.com/detsim/detsim/kinds/swim/testbed/tbnet"
	"github.com/detsim/detsim/network"
	"github.com/detsim/detsim/scenarios"
)

// The implementations a testbed runs as its peers.
const (
	ImplSwimd      = "swimd"
	ImplMemberlist = "memberlist"
)

// Limits of what the testbed realises; a scenario beyond them is refused
// before any namespace is made.
const (
	// MinRateBytes is the lowest bandwidth_bps shaped: 1 kbit/s. Below
	// it one 1500-byte fragment takes longer than twelve seconds, and
	// HTB's token arithmetic (nanosecond ticks over a byte budget of one
	// packet) holds nothing meaningful.
	MinRateBytes = 125
	// UnshapedRateBytes: from 10 Gbit/s up an edge is not shaped at all;
	// the veth pairs and the delay line are slower than that anyway.
	UnshapedRateBytes = 1_250_000_000
	// MaxDelayNs bounds latency_ns and jitter_stddev_ns: the delay line
	// holds a packet at most MaxHoldNs.
	MaxDelayNs = 10_000_000_000
	// MaxQueueBytes bounds an edge's send_buffer_bytes, the byte limit of
	// its queue behind HTB.
	MaxQueueBytes = 64 << 20
	// NoFragmentMTU realises mtu_bytes = 0 ("no fragmentation"): the
	// largest MTU a veth takes, which a 65 507-byte datagram plus its
	// headers fits exactly.
	NoFragmentMTU = 65535
)

// Edge is one directed edge as the testbed realises it.
type Edge struct {
	From, To       int // peer indices
	LatencyNs      int64
	JitterStddevNs int64
	LossPPM        int64
	RateBytes      int64 // bytes/s; 0: not shaped
	BurstBytes     int64 // the HTB class's burst and cburst; 0: a serialising wire
	QueueBytes     int64
	MTUBytes       int64
}

// Serialised reports whether the edge is a serialising wire (a rate and
// burst_bytes 0), which the delay line realises, not HTB: HTB is a token
// bucket and passes a packet that finds tokens at once.
func (e Edge) Serialised() bool { return e.RateBytes > 0 && e.BurstBytes == 0 }

// Plan is a scenario checked for what the testbed can realise, with its
// edges in the kernel's terms.
type Plan struct {
	Scenario *scenarios.Scenario
	Impl     string
	IDs      []string
	Edges    []Edge // sorted by (From, To)
	// VethMTU is every veth's MTU: the largest route MTU, so no hop
	// fragments again what a sender fragmented at its route's MTU.
	VethMTU int64
	edge    map[[2]int]int
	index   map[string]int
}

// EdgeOf returns the index in Edges of from→to, or -1.
func (p *Plan) EdgeOf(from, to int) int {
	if i, ok := p.edge[[2]int{from, to}]; ok {
		return i
	}
	return -1
}

// NewPlan checks sc against what the testbed can realise with impl and
// returns its plan. Every refusal names the scenario field and says why;
// nothing has been touched when it is returned.
func NewPlan(sc *scenarios.Scenario, impl string) (*Plan, error) {
	var errs []string
	refuse := func(field, format string, args ...any) {
		errs = append(errs, field+": "+fmt.Sprintf(format, args...))
	}
	if impl != ImplSwimd && impl != ImplMemberlist {
		return nil, fmt.Errorf("testbed: --impl %q: want %q or %q", impl, ImplSwimd, ImplMemberlist)
	}
	p := &Plan{Scenario: sc, Impl: impl, edge: map[[2]int]int{}, index: map[string]int{}}
	if len(sc.Peers) > tbnet.MaxPeers {
		return nil, fmt.Errorf("testbed: %s: peers: %d peers; the testbed holds at most %d (a namespace, a veth pair and an address each)", sc.Path, len(sc.Peers), tbnet.MaxPeers)
	}
	for i, peer := range sc.Peers {
		p.IDs = append(p.IDs, peer.ID)
		p.index[peer.ID] = i
	}
	for _, peer := range sc.Peers {
		field := fmt.Sprintf("peers[%s]", peer.ID)
		if peer.Kind != "swim" {
			refuse(field+".kind", "%q: the testbed runs SWIM daemons only", peer.Kind)
			continue
		}
		if _, ferrs := swimcfg.Parse(peer.KindConfig, p.IDs); len(ferrs) > 0 {
			refuse(field+".kind_config."+ferrs[0].Field, "%s", ferrs[0].Msg)
		}
		if peer.RecvCostNs != 0 {
			refuse(field+".recv_cost_ns", "%d: a daemon's cost of receiving is its real CPU's; the testbed cannot add one", peer.RecvCostNs)
		}
		if peer.RecvBufferBytes != 0 {
			refuse(field+".recv_buffer_bytes", "%d: a daemon's receive buffer is its socket's; the testbed does not set one", peer.RecvBufferBytes)
		}
	}
	for _, l := range sc.Edges() {
		from, to := p.index[l.From], p.index[l.To]
		e, ok := realise(l.Policy, fmt.Sprintf("links[%s→%s]", l.From, l.To), refuse)
		if !ok {
			continue
		}
		e.From, e.To = from, to
		p.edge[[2]int{from, to}] = len(p.Edges)
		p.Edges = append(p.Edges, e)
		p.VethMTU = max(p.VethMTU, e.MTUBytes)
	}
	p.VethMTU = max(p.VethMTU, 1500)
	for i, m := range sc.Mutations {
		field := fmt.Sprintf("mutations[%d] (%s at %d ns)", i, m.Kind, m.At)
		switch m.Kind {
		case network.Partition, network.Heal, network.LatencySpike, network.LossBurst,
			network.RelayBuffer, network.PeerKill, network.PeerPause:
		case network.PeerResurrect:
			if m.PreserveState {
				refuse(field+".preserve_state", "true: a restarted daemon is a new process and keeps nothing")
			}
		default:
			refuse(field+".kind", "the testbed cannot apply a %s", m.Kind)
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("testbed: %s cannot be realised on the kernel testbed:\n  %s", sc.Path, strings.Join(errs, "\n  "))
	}
	slices.SortFunc(p.Edges, func(a, b Edge) int {
		if a.From != b.From {
			return a.From - b.From
		}
		return a.To - b.To
	})
	for i, e := range p.Edges {
		p.edge[[2]int{e.From, e.To}] = i
	}
	return p, nil
}

// realise turns one link policy into the kernel's terms, refusing what
// the kernel and the delay line cannot do.
func realise(pol network.Policy, field string, refuse func(field, format string, args ...any)) (Edge, bool) {
	ok := true
	no := func(name, format string, args ...any) {
		refuse(field+"."+name, format, args...)
		ok = false
	}
	e := Edge{LatencyNs: pol.LatencyNs, JitterStddevNs: pol.JitterStddevNs, LossPPM: pol.LossProbPPM, QueueBytes: pol.SendBufferBytes}
	if pol.LatencyNs > MaxDelayNs {
		no("latency_ns", "%d: the delay line holds a packet at most %d ns", pol.LatencyNs, int64(MaxDelayNs))
	}
	if pol.JitterStddevNs > MaxDelayNs {
		no("jitter_stddev_ns", "%d: the delay line holds a packet at most %d ns", pol.JitterStddevNs, int64(MaxDelayNs))
	}
	if pol.ReorderProbPPM != 0 {
		no("reorder_prob_ppm", "%d: the delay line draws each packet's delay on its own, which reorders packets by itself (as netem's jitter does); it has no separate reorder draw (set 0)", pol.ReorderProbPPM)
	}
	if pol.ColdDialPenaltyNs != 0 {
		no("cold_dial_penalty_ns", "%d: UDP on a kernel has no connection to dial, so no dial penalty (set 0; the cache fields then do nothing)", pol.ColdDialPenaltyNs)
	}
	switch {
	case pol.BandwidthBps >= UnshapedRateBytes:
	case pol.BandwidthBps < MinRateBytes:
		no("bandwidth_bps", "%d: below %d bytes/s (1 kbit/s), the least the testbed shapes with HTB", pol.BandwidthBps, MinRateBytes)
	default:
		e.RateBytes = pol.BandwidthBps
		e.BurstBytes = pol.BurstBytes // 0: the delay line serialises the edge
	}
	if e.QueueBytes == 0 || e.QueueBytes > MaxQueueBytes {
		no("send_buffer_bytes", "%d: the queue behind HTB holds 1 to %d bytes", e.QueueBytes, MaxQueueBytes)
	}
	e.MTUBytes = pol.MTUBytes
	if e.MTUBytes == 0 {
		e.MTUBytes = NoFragmentMTU
	}
	return e, ok
}

// Realised is the plan's edges as the manifest records them.
func (p *Plan) Realised() []bundle.TestbedEdge {
	out := make([]bundle.TestbedEdge, len(p.Edges))
	for i, e := range p.Edges {
		out[i] = bundle.TestbedEdge{
			From: p.IDs[e.From], To: p.IDs[e.To],
			LatencyNs: e.LatencyNs, JitterStddevNs: e.JitterStddevNs, LossPPM: e.LossPPM,
			RateBitsPerSecond: e.RateBytes * 8, BurstBytes: e.BurstBytes, QueueBytes: e.QueueBytes, MTUBytes: e.MTUBytes,
		}
	}
	return out
}

// Index is peer id's index, or -1.
func (p *Plan) Index(id string) int {
	if i, ok := p.index[id]; ok {
		return i
	}
	return -1
}
