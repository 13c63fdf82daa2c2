package calibrate

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
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
)

// Families lists every metric family, in the order the table prints them.
var Families = []string{famTimespan, famTimespanW1, famReason, famMsgSize, famMsgSizeW1,
	famMsgCount, famSelfInc, famCacheHits, famDials, famAlive}

// zeroDefault says a family's metric is 0, not missing, on a side that
// has no event for it: a count or a fraction, where no events is a value.
// Quantiles of no samples are missing ("no data").
var zeroDefault = map[string]bool{
	famReason: true, famMsgCount: true, famSelfInc: true,
	famCacheHits: true, famDials: true, famAlive: true,
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
	if (fam != famTimespan && fam != famMsgSize) || i < 0 {
		return "", 0, false
	}
	for _, qq := range quantiles {
		if rest[i+1:] == qq.name {
			return fam + "_w1/" + rest[:i], qq.q, true
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
	line    int64
	err     error

	// What a hostile bundle could otherwise grow without bound: host ids
	// the scenario does not declare (two million of them took 800 MB and
	// a 19 MB error line), and distinct kinds, reasons and message names.
	declared map[string]bool
	extra    int
	names    [3]map[string]bool // kinds, reasons, message names seen
	nNames   int
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

func newCollector(peers []string, end int64) *collector {
	declared := make(map[string]bool, len(peers))
	for _, p := range peers {
		declared[p] = true
	}
	return &collector{
		end: end, peers: peers, declared: declared,
		names: [3]map[string]bool{{}, {}, {}},
		hosts: map[string]int64{}, lastAt: map[hostKind]int64{}, gaps: map[hostKind][]float64{},
		reasons: map[string]int{}, sizes: map[string][]float64{}, counts: map[string]int{},
		sends: map[string]int{}, dropped: map[string]int{}, dials: map[string]int{},
		bumps: map[string]int{}, selfInc: map[string][]incPoint{}, views: map[view]*viewState{},
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

// Observe takes one record. It is the engine.Monitor method, and what the
// bundle reader calls.
func (c *collector) Observe(line, at int64, hostID, kindTag, typ string, payload []byte) {
	c.line = line
	if c.err != nil || at > c.end {
		return
	}
	if hostID == "" {
		return // engine records bound to no host (mutations) are about no peer
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
		v := c.views[view{ev.Observer, ev.Subject}]
		if v == nil {
			v = &viewState{}
			c.views[view{ev.Observer, ev.Subject}] = v
		}
		if v.alive {
			v.aliveNs += at - v.since
		}
		v.alive, v.since = ev.To == "alive", at
	case "swim/message_sent":
		var ev messageEv
		if !c.decode(payload, &ev) {
			return
		}
		if !c.admit(nameMessage, ev.Message) || !c.declared[ev.Peer] {
			return
		}
		c.sizes[ev.Message] = append(c.sizes[ev.Message], float64(ev.Bytes))
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
	values      map[string]float64
	// n is how many samples a quantile metric was computed from.
	n       map[string]int
	samples map[string][]float64 // by W1 metric name, sorted
}

// metrics computes the metrics of everything observed, over a run of
// durationNs (the scenario's duration: where the trajectory is sampled)
// that the records cover up to c.end.
func (c *collector) metrics(durationNs int64) side {
	s := side{transitions: c.trans, values: map[string]float64{}, n: map[string]int{}, samples: map[string][]float64{}}
	for hk, g := range c.gaps {
		slices.Sort(g)
		base := hk.host + "/" + hk.kind
		for _, q := range quantiles {
			s.values[famTimespan+"/"+base+"/"+q.name] = quantile(g, q.q)
			s.n[famTimespan+"/"+base+"/"+q.name] = len(g)
		}
		s.samples[famTimespanW1+"/"+base] = g
	}
	if c.trans > 0 {
		for r, n := range c.reasons {
			s.values[famReason+"/"+r] = float64(n) / float64(c.trans)
		}
	}
	for m, sz := range c.sizes {
		slices.Sort(sz)
		for _, q := range quantiles {
			s.values[famMsgSize+"/"+m+"/"+q.name] = quantile(sz, q.q)
			s.n[famMsgSize+"/"+m+"/"+q.name] = len(sz)
		}
		s.samples[famMsgSizeW1+"/"+m] = sz
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
