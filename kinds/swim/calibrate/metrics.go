package calibrate

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/detsim/detsim/network"
)

// The metric families (spec §11.3). A metric's name is its family, then
// what it is about, "/"-separated; the tolerances file gives one rule per
// family. docs/calibration.md, "Metrics", defines each precisely.
const (
	// timespan/<peer>/<kind_tag>/<type>/p50|p90|p99: quantiles, in ms, of
	// the time between consecutive events of one kind on one peer.
	famTimespan = "timespan"
	// timespan_w1/<peer>/<kind_tag>/<type>: Wasserstein-1 distance, in ms,
	// of those gaps' distribution to the simulator's pooled one.
	famTimespanW1 = "timespan_w1"
	// transition_reason/<reason>: the fraction of all state transitions,
	// on every peer, with that reason.
	famReason = "transition_reason"
	// msg_size/<message>/p50|p90|p99: quantiles, in bytes, of the size
	// of sent messages of one message kind.
	famMsgSize = "msg_size"
	// msg_size_w1/<message>: Wasserstein-1 distance, in bytes.
	famMsgSizeW1 = "msg_size_w1"
	// msg_count/<from>-><to>/<message>: messages of one kind sent on one
	// directed peer pair.
	famMsgCount = "msg_count"
	// self_incarnation/<peer>/t25|t50|t75|t100: the peer's own incarnation
	// at 25 %, 50 %, 75 % and 100 % of the scenario's duration;
	// self_incarnation/<peer>/bumps: how often it raised it.
	famSelfInc = "self_incarnation"
	// cache_hits/<peer>|total: sends that reached the wire without a dial.
	famCacheHits = "cache_hits"
	// dials/<peer>|total: dial_start records.
	famDials = "dials"
	// alive_fraction/<peer>: the fraction of the run, averaged over every
	// other peer, that they viewed the peer as alive.
	famAlive = "alive_fraction"
	// rtt/<from>-><to>/p50|p90|p99: quantiles, in ms, of the round trip of
	// acked direct probes (probe_acked's rtt_ns, measured by the prober).
	famRTT = "rtt"
	// rtt_w1/<from>-><to>: Wasserstein-1 distance, in ms.
	famRTTW1 = "rtt_w1"
	// rtt_iqr/<from>-><to>: the interquartile range (p75 − p25), in ms,
	// of the same round trips: the jitter of both legs, which the
	// quantiles of one run's few hundred samples judge only loosely. A
	// quartile range, not a standard deviation, so that one ack that
	// waited behind a large message does not decide it.
	famRTTIQR = "rtt_iqr"
	// probe_timeouts/<from>-><to>|total: how many direct probes timed
	// out (of the edge's periodic probes, whose number is the msg_count
	// of its pings: the count is the timeout fraction's numerator).
	famTimeouts = "probe_timeouts"
	// probe_wait/<peer>/p50|p90|p99: quantiles, in ms, of how long a
	// direct probe waited before it timed out (the probe timeout, as
	// Lifeguard scales it).
	famProbeWait = "probe_wait"
	// probe_wait_w1/<peer>: Wasserstein-1 distance, in ms.
	famProbeWaitW1 = "probe_wait_w1"
	// suspicion/<subject>|all/refuted|dead/p50|p90|p99: quantiles, in
	// ms, of how long a view of the subject (every view, for all) stayed
	// suspect before it was alive again at a higher incarnation (refuted)
	// or dead.
	famSuspicion = "suspicion"
	// suspicion_w1/<subject>|all/refuted|dead: Wasserstein-1 distance, in ms.
	famSuspicionW1 = "suspicion_w1"
	// kill/<victim>/<survivor>/suspect|dead: ms from the victim's first
	// PeerKill to the survivor's first view of it as suspect, and as dead.
	famKill = "kill"
	// wire_size/<message>/p50|p90|p99: quantiles, in bytes, of the size of
	// sent messages on the wire: with the UDP header and an IPv4 header per
	// fragment at the edge's MTU (network.DatagramWire).
	famWire = "wire_size"
	// wire_size_w1/<message>: Wasserstein-1 distance, in bytes.
	famWireW1 = "wire_size_w1"
	// indirect_fanout/all/p50|p90|p99: how many members each indirect
	// probe went through (probe_sent with mode indirect: its via), on
	// every peer: indirect_checks, bounded by the members a prober may
	// ask.
	famFanout = "indirect_fanout"
	// indirect_fanout_w1/all: Wasserstein-1 distance, in members.
	famFanoutW1 = "indirect_fanout_w1"
)

// Families lists every metric family, in the order the table prints them.
var Families = []string{famTimespan, famTimespanW1, famReason, famMsgSize, famMsgSizeW1,
	famWire, famWireW1, famMsgCount, famSelfInc, famCacheHits, famDials, famAlive,
	famRTT, famRTTW1, famRTTIQR, famTimeouts, famProbeWait, famProbeWaitW1, famFanout, famFanoutW1,
	famSuspicion, famSuspicionW1, famKill}

// samplesFamily maps each quantile family to the family of the samples
// behind it (whose rows are its Wasserstein-1 distances).
var samplesFamily = map[string]string{
	famTimespan: famTimespanW1, famMsgSize: famMsgSizeW1, famWire: famWireW1,
	famRTT: famRTTW1, famProbeWait: famProbeWaitW1, famSuspicion: famSuspicionW1,
	famFanout: famFanoutW1,
}

// isW1 reports whether fam is the samples family of a quantile family.
func isW1(fam string) bool {
	for _, w := range samplesFamily {
		if w == fam {
			return true
		}
	}
	return false
}

// zeroDefault says a family's metric is 0, not missing, on a side that
// has no event for it: a count or a fraction, where no events is a value.
// Quantiles of no samples are missing ("no data").
var zeroDefault = map[string]bool{
	famReason: true, famMsgCount: true, famSelfInc: true,
	famCacheHits: true, famDials: true, famAlive: true, famTimeouts: true,
}

// trajectoryPoints are the fractions of the scenario's duration at which
// the self-incarnation trajectory is sampled, with their metric suffixes.
var trajectoryPoints = []struct {
	name     string
	num, den int64
}{{"t25", 1, 4}, {"t50", 1, 2}, {"t75", 3, 4}, {"t100", 1, 1}}

// samplesOf names the samples behind a quantile metric
// ("timespan/a/swim/x/p50" -> "timespan_w1/a/swim/x") and its quantile.
func samplesOf(name string) (key string, q float64, ok bool) {
	fam, rest, _ := strings.Cut(name, "/")
	i := strings.LastIndexByte(rest, '/')
	w1, quantileFamily := samplesFamily[fam]
	if !quantileFamily || i < 0 {
		return "", 0, false
	}
	for _, qq := range quantiles {
		if rest[i+1:] == qq.name {
			return w1 + "/" + rest[:i], qq.q, true
		}
	}
	return "", 0, false
}

// quantiles are the quantiles the distribution families report.
var quantiles = []struct {
	name string
	q    float64
}{{"p50", 0.50}, {"p90", 0.90}, {"p99", 0.99}}

type hostKind struct{ host, kind string }
type view struct{ observer, subject string }

type viewState struct {
	alive   bool
	since   int64
	aliveNs int64
}

type incPoint struct {
	at  int64
	inc int64
}

// collector computes one bundle's metrics from its records, in order. The
// simulator's runs feed it from the engine (Observe, the engine.Monitor
// interface); a production bundle from events.ndjson: the same code
// reads both sides.
type collector struct {
	// end is the window: records after it are not counted.
	end int64
	// peers are the scenario's peer ids, sorted.
	peers []string

	hosts   map[string]int64 // host id -> first line
	lastAt  map[hostKind]int64
	gaps    map[hostKind][]float64
	reasons map[string]int
	trans   int
	sizes   map[string][]float64
	counts  map[string]int // "<from>-><to>/<message>"
	sends   map[string]int
	dropped map[string]int
	dials   map[string]int
	bumps   map[string]int
	selfInc map[string][]incPoint
	views   map[view]*viewState
	// mtu is the MTU of the edge from→to, for wire sizes.
	mtu   func(from, to string) int64
	wires map[string][]float64
	// rtts are round trips by "<from>-><to>"; probes the direct probes
	// in flight, by prober, target and sequence number; directSent and
	// directLost count direct probes and their timeouts by edge.
	rtts       map[string][]float64
	probes     map[probeKey]int64
	directSent map[string]int
	directLost map[string]int
	waits      map[string][]float64
	// suspects holds when each view became suspect; suspicions the
	// suspect periods' lengths, ended by a refutation or by death.
	suspects   map[view]int64
	suspicions map[string][]float64
	// nSuspect counts transitions of a view of another peer to suspect.
	nSuspect int
	// fanout holds each indirect probe's number of intermediaries.
	fanout []float64
	// killed holds each victim's first PeerKill time; killSeen the
	// survivors' first suspect and dead views of it after that.
	killed   map[string]int64
	killSeen map[string]float64
	line     int64
	err      error

	// What a hostile bundle could otherwise grow without bound: host ids
	// the scenario does not declare (two million of them took 800 MB and
	// a 19 MB error line), and distinct kinds, reasons and message names.
	declared map[string]bool
	extra    int
	names    [3]map[string]bool // kinds, reasons, message names seen
	nNames   int
}

type probeKey struct {
	host, target string
	seq          int64
}

// What admit counts.
const (
	nameKind = iota
	nameReason
	nameMessage
)

// Caps on a bundle's distinct names (docs/calibration.md). A bundle over
// one is refused as input, naming the cap.
const (
	// MaxExtraHosts is how many host ids the scenario does not declare a
	// bundle may hold; the error lists at most that many.
	MaxExtraHosts = 16
	// MaxNames bounds the distinct event kinds, transition reasons and
	// message names together.
	MaxNames = 4096
)

// newCollector collects over [0, end] for the scenario's peers; mtu gives
// each edge's MTU for the wire sizes (nil: no IP model, sizes as sent).
func newCollector(peers []string, end int64, mtu func(from, to string) int64) *collector {
	if mtu == nil {
		mtu = func(string, string) int64 { return 0 }
	}
	declared := make(map[string]bool, len(peers))
	for _, p := range peers {
		declared[p] = true
	}
	return &collector{
		end: end, peers: peers, mtu: mtu, declared: declared,
		names: [3]map[string]bool{{}, {}, {}},
		hosts: map[string]int64{}, lastAt: map[hostKind]int64{}, gaps: map[hostKind][]float64{},
		reasons: map[string]int{}, sizes: map[string][]float64{}, counts: map[string]int{},
		sends: map[string]int{}, dropped: map[string]int{}, dials: map[string]int{},
		bumps: map[string]int{}, selfInc: map[string][]incPoint{}, views: map[view]*viewState{},
		wires: map[string][]float64{}, rtts: map[string][]float64{}, probes: map[probeKey]int64{},
		directSent: map[string]int{}, directLost: map[string]int{}, waits: map[string][]float64{},
		suspects: map[view]int64{}, suspicions: map[string][]float64{},
		killed: map[string]int64{}, killSeen: map[string]float64{},
	}
}

// Payloads the collector decodes.
type transitionEv struct {
	Observer    string `json:"observer"`
	Subject     string `json:"subject"`
	To          string `json:"to"`
	Incarnation int64  `json:"incarnation"`
	Reason      string `json:"reason"`
}

type messageEv struct {
	Peer    string `json:"peer"`
	Message string `json:"message"`
	Bytes   int64  `json:"bytes"`
}

type probeEv struct {
	Target string   `json:"target"`
	Via    []string `json:"via"`
	Seq    int64    `json:"seq"`
	Mode   string   `json:"mode"`
	RTTNs  int64    `json:"rtt_ns"`
}

type mutationEv struct {
	Kind string `json:"kind"`
	Peer string `json:"peer"`
}

// maxProbesInFlight bounds the direct probes the collector remembers
// waiting for their outcome: a bundle whose probes never end cannot grow
// it without bound.
const maxProbesInFlight = 1 << 16

// Observe takes one record. It is the engine.Monitor method, and what the
// bundle reader calls.
func (c *collector) Observe(line, at int64, hostID, kindTag, typ string, payload []byte) {
	c.line = line
	if c.err != nil || at > c.end {
		return
	}
	if hostID == "" {
		// Engine records bound to no host are about no peer; a PeerKill
		// starts the clock of the kill family.
		if kindTag == "engine" && typ == "mutation" {
			var ev mutationEv
			if c.decode(payload, &ev) && ev.Kind == "PeerKill" && c.declared[ev.Peer] {
				if _, ok := c.killed[ev.Peer]; !ok {
					c.killed[ev.Peer] = at
				}
			}
		}
		return
	}
	if _, ok := c.hosts[hostID]; !ok {
		if !c.declared[hostID] {
			if c.extra++; c.extra > MaxExtraHosts {
				c.err = inputErr("events.ndjson line %d: more than %d host ids the scenario does not declare: not a bundle of this scenario", line, MaxExtraHosts)
				return
			}
		}
		c.hosts[hostID] = line
	}
	kind := kindTag + "/" + typ
	if !c.admit(nameKind, kind) {
		return
	}
	hk := hostKind{hostID, kind}
	if last, ok := c.lastAt[hk]; ok {
		c.gaps[hk] = append(c.gaps[hk], float64(at-last)/1e6)
	}
	c.lastAt[hk] = at

	switch kind {
	case "swim/state_transition":
		var ev transitionEv
		if !c.decode(payload, &ev) {
			return
		}
		if !c.admit(nameReason, ev.Reason) || !c.declared[ev.Observer] || !c.declared[ev.Subject] {
			return // a view about an undeclared member is no metric of the scenario's
		}
		c.trans++
		c.reasons[ev.Reason]++
		if ev.Observer == ev.Subject {
			c.selfInc[ev.Subject] = append(c.selfInc[ev.Subject], incPoint{at, ev.Incarnation})
			return
		}
		vk := view{ev.Observer, ev.Subject}
		v := c.views[vk]
		if v == nil {
			v = &viewState{}
			c.views[vk] = v
		}
		if v.alive {
			v.aliveNs += at - v.since
		}
		v.alive, v.since = ev.To == "alive", at
		if since, ok := c.suspects[vk]; ok && ev.To != "suspect" {
			delete(c.suspects, vk)
			end := ""
			switch {
			case ev.To == "dead":
				end = "dead"
			case ev.To == "alive" && ev.Reason == "refuted":
				end = "refuted"
			}
			if end != "" {
				ms := float64(at-since) / 1e6
				c.suspicions["all/"+end] = append(c.suspicions["all/"+end], ms)
				c.suspicions[ev.Subject+"/"+end] = append(c.suspicions[ev.Subject+"/"+end], ms)
			}
		}
		if ev.To == "suspect" {
			c.nSuspect++
			if _, ok := c.suspects[vk]; !ok {
				c.suspects[vk] = at
			}
		}
		if killedAt, ok := c.killed[ev.Subject]; ok && (ev.To == "suspect" || ev.To == "dead") {
			k := famKill + "/" + ev.Subject + "/" + ev.Observer + "/" + ev.To
			if _, seen := c.killSeen[k]; !seen {
				c.killSeen[k] = float64(at-killedAt) / 1e6
			}
		}
	case "swim/probe_sent", "swim/probe_acked", "swim/probe_timed_out":
		var ev probeEv
		if !c.decode(payload, &ev) || !c.declared[ev.Target] {
			return
		}
		if typ == "probe_sent" && ev.Mode == "indirect" {
			c.fanout = append(c.fanout, float64(len(ev.Via)))
		}
		if ev.Mode != "direct" {
			return
		}
		edge := hostID + "->" + ev.Target
		key := probeKey{hostID, ev.Target, ev.Seq}
		switch typ {
		case "probe_sent":
			c.directSent[edge]++
			if len(c.probes) < maxProbesInFlight {
				c.probes[key] = at
			}
		case "probe_acked":
			delete(c.probes, key)
			if ev.RTTNs > 0 {
				c.rtts[edge] = append(c.rtts[edge], float64(ev.RTTNs)/1e6)
			}
		case "probe_timed_out":
			c.directLost[edge]++
			if sent, ok := c.probes[key]; ok {
				delete(c.probes, key)
				c.waits[hostID] = append(c.waits[hostID], float64(at-sent)/1e6)
			}
		}
	case "swim/message_sent":
		var ev messageEv
		if !c.decode(payload, &ev) {
			return
		}
		if !c.admit(nameMessage, ev.Message) || !c.declared[ev.Peer] {
			return
		}
		c.sizes[ev.Message] = append(c.sizes[ev.Message], float64(ev.Bytes))
		wire, _ := network.DatagramWire(ev.Bytes, c.mtu(hostID, ev.Peer))
		c.wires[ev.Message] = append(c.wires[ev.Message], float64(wire))
		c.counts[hostID+"->"+ev.Peer+"/"+ev.Message]++
		c.sends[hostID]++
	case "swim/self_incarnation_bump":
		c.bumps[hostID]++
	case "engine/drop_on_send":
		c.dropped[hostID]++
	case "engine/dial_start":
		c.dials[hostID]++
	}
}

// admit counts name among the distinct names seen, and refuses the
// bundle past MaxNames.
func (c *collector) admit(what int, name string) bool {
	if c.names[what][name] {
		return true
	}
	if c.nNames >= MaxNames {
		c.err = inputErr("events.ndjson line %d: more than %d distinct event kinds, reasons and message names", c.line, MaxNames)
		return false
	}
	c.names[what][name] = true
	c.nNames++
	return true
}

func (c *collector) decode(payload []byte, v any) bool {
	if err := json.Unmarshal(payload, v); err != nil {
		c.err = fmt.Errorf("events.ndjson line %d: %v", c.line, err)
		return false
	}
	return true
}

// Resolved and Clone complete engine.Monitor: calibration never ends a
// run early, and runs are never checkpointed.
func (c *collector) Resolved() bool { return false }

// side is one run's metrics: scalar values by metric name, and the
// samples behind the distribution families (for the W1 rows).
type side struct {
	transitions int
	// suspects is how many times a view of another peer turned suspect.
	suspects int
	values   map[string]float64
	// n is how many samples a quantile metric was computed from.
	n       map[string]int
	samples map[string][]float64 // by W1 metric name, sorted
}

// metrics computes the metrics of everything observed, over a run of
// durationNs (the scenario's duration: where the trajectory is sampled)
// that the records cover up to c.end.
func (c *collector) metrics(durationNs int64) side {
	s := side{transitions: c.trans, suspects: c.nSuspect, values: map[string]float64{}, n: map[string]int{}, samples: map[string][]float64{}}
	gaps := make(map[string][]float64, len(c.gaps))
	for hk, g := range c.gaps {
		gaps[hk.host+"/"+hk.kind] = g
	}
	quantileRows(s, famTimespan, gaps)
	if c.trans > 0 {
		for r, n := range c.reasons {
			s.values[famReason+"/"+r] = float64(n) / float64(c.trans)
		}
	}
	quantileRows(s, famMsgSize, c.sizes)
	quantileRows(s, famWire, c.wires)
	quantileRows(s, famRTT, c.rtts)
	for edge, x := range c.rtts { // sorted by quantileRows
		s.values[famRTTIQR+"/"+edge] = quantile(x, 0.75) - quantile(x, 0.25)
		s.n[famRTTIQR+"/"+edge] = len(x)
	}
	quantileRows(s, famProbeWait, c.waits)
	quantileRows(s, famSuspicion, c.suspicions)
	if len(c.fanout) > 0 {
		quantileRows(s, famFanout, map[string][]float64{"all": c.fanout})
	}
	lost := 0
	for edge := range c.directSent {
		s.values[famTimeouts+"/"+edge] = float64(c.directLost[edge])
		lost += c.directLost[edge]
	}
	if len(c.directSent) > 0 {
		s.values[famTimeouts+"/total"] = float64(lost)
	}
	for k, v := range c.killSeen {
		s.values[k] = v
	}
	for k, n := range c.counts {
		s.values[famMsgCount+"/"+k] = float64(n)
	}
	end := c.end
	hits, dials := 0, 0
	for _, p := range c.peers {
		pts := c.selfInc[p]
		for _, tp := range trajectoryPoints {
			at := durationNs * tp.num / tp.den
			if at > end {
				continue // beyond the record: no data
			}
			inc := int64(0)
			for _, pt := range pts {
				if pt.at > at {
					break
				}
				inc = pt.inc
			}
			s.values[famSelfInc+"/"+p+"/"+tp.name] = float64(inc)
		}
		s.values[famSelfInc+"/"+p+"/bumps"] = float64(c.bumps[p])
		h := c.sends[p] - c.dropped[p] - c.dials[p]
		s.values[famCacheHits+"/"+p] = float64(h)
		s.values[famDials+"/"+p] = float64(c.dials[p])
		hits += h
		dials += c.dials[p]

		if len(c.peers) > 1 && end > 0 {
			var alive int64
			for _, o := range c.peers {
				if v := c.views[view{o, p}]; o != p && v != nil {
					alive += v.aliveNs
					if v.alive {
						alive += end - v.since
					}
				}
			}
			s.values[famAlive+"/"+p] = float64(alive) / float64(end) / float64(len(c.peers)-1)
		}
	}
	s.values[famCacheHits+"/total"] = float64(hits)
	s.values[famDials+"/total"] = float64(dials)
	return s
}

// quantileRows adds family fam's quantile metrics ("<fam>/<key>/p50" ...)
// and their samples, for each key's samples.
func quantileRows(s side, fam string, byKey map[string][]float64) {
	for key, x := range byKey {
		slices.Sort(x)
		for _, q := range quantiles {
			s.values[fam+"/"+key+"/"+q.name] = quantile(x, q.q)
			s.n[fam+"/"+key+"/"+q.name] = len(x)
		}
		s.samples[samplesFamily[fam]+"/"+key] = x
	}
}

// quantile is the nearest-rank q-quantile of sorted, non-empty x: the
// smallest value with at least q of the samples at or below it.
func quantile(x []float64, q float64) float64 {
	i := int(math.Ceil(q*float64(len(x)))) - 1
	return x[max(0, min(i, len(x)-1))]
}

// cdf is the empirical CDF of sorted, non-empty x at v, ties counted half
// (the mid-rank), so a value shared by many samples sits in their middle.
func cdf(x []float64, v float64) float64 {
	below := sort.SearchFloat64s(x, v)
	through := sort.Search(len(x), func(i int) bool { return x[i] > v })
	return (float64(below) + float64(through)) / 2 / float64(len(x))
}

// cdfExcept is cdf over the union of the sorted samples xs but xs[skip],
// counted in each rather than merged and sorted again (the same integer
// counts, so the same value; a leave-one-out per seed and quantile row
// was a quarter of calibrate's time). ok is false when the union is
// empty.
func cdfExcept(xs [][]float64, skip int, v float64) (float64, bool) {
	var below, through, n int
	for j, x := range xs {
		if j == skip {
			continue
		}
		below += sort.SearchFloat64s(x, v)
		through += sort.Search(len(x), func(i int) bool { return x[i] > v })
		n += len(x)
	}
	if n == 0 {
		return 0, false
	}
	return (float64(below) + float64(through)) / 2 / float64(n), true
}

// wasserstein1 is the Wasserstein-1 (earth mover's) distance between the
// empirical distributions of two sorted, non-empty samples: the integral
// of |F_a(x) - F_b(x)| over x.
func wasserstein1(a, b []float64) float64 {
	var d float64
	i, j := 0, 0
	prev := math.Min(a[0], b[0])
	for i < len(a) || j < len(b) {
		var x float64
		switch {
		case j >= len(b) || i < len(a) && a[i] <= b[j]:
			x = a[i]
		default:
			x = b[j]
		}
		fa := float64(i) / float64(len(a))
		fb := float64(j) / float64(len(b))
		d += math.Abs(fa-fb) * (x - prev)
		prev = x
		for i < len(a) && a[i] == x {
			i++
		}
		for j < len(b) && b[j] == x {
			j++
		}
	}
	return d
}

// merged returns the sorted union of sorted samples.
func merged(xs ...[]float64) []float64 {
	var out []float64
	for _, x := range xs {
		out = append(out, x...)
	}
	sort.Float64s(out)
	return out
}
