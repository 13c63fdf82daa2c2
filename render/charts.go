package render

import (
	"bytes"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/engine"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/jsonmember"
)

// Charts (issue 22): the numbers that grow in a failure, drawn under the
// space-time diagram on its time axis. What is charted is what the host
// kinds declare (hosts.Charts) and the engine's own series
// (engine.Series): render names no kind's events. A kind's series reads
// only the records of its kind_tag (two kinds may both name a type
// message_sent), and the page holds only the charts of the kinds whose
// records the bundle holds: a swim run's page charts nothing of raft's
// (issue 33). Each series is a line
// per host (or per directed link) over chartBuckets intervals of the
// window; a run with more hosts or links than chartKeys charts the
// chartKeys with the largest values and an "all" line over every one, so
// a thousand-peer page stays small. Every point is a record: the one
// holding the bucket's largest (or last) value.

const (
	chartBuckets = 512
	chartKeys    = 8
	// chartSample bounds the values a bucket keeps for its median: past
	// it, every other value is dropped, then every other again, so the
	// median is of an evenly spread sample.
	chartSample = 256
)

// chartKey is one line of a chart: a host, or a directed link.
type chartKey struct{ host, peer int32 }

// keyStat is what the first pass learns of a key, to pick the keys drawn.
type keyStat struct {
	n        int64
	max, sum int64
}

// bucketAgg is one key's value in each bucket.
type bucketAgg struct {
	cnt      [chartBuckets]int32
	max      [chartBuckets]int64
	maxLine  [chartBuckets]int32
	sum      [chartBuckets]int64
	last     [chartBuckets]int64
	lastLine [chartBuckets]int32
	sample   [chartBuckets][]int64
	stride   [chartBuckets]int32
}

func (a *bucketAgg) add(b int, v int64, line int) {
	if a.cnt[b] == 0 || v > a.max[b] {
		a.max[b], a.maxLine[b] = v, int32(line)
	}
	a.cnt[b]++
	a.sum[b] += v
	a.last[b], a.lastLine[b] = v, int32(line)
	if a.stride[b] == 0 {
		a.stride[b] = 1
	}
	if (a.cnt[b]-1)%a.stride[b] == 0 {
		a.sample[b] = append(a.sample[b], v)
		if len(a.sample[b]) >= chartSample {
			s := a.sample[b][:0]
			for i := 0; i < len(a.sample[b]); i += 2 {
				s = append(s, a.sample[b][i])
			}
			a.sample[b], a.stride[b] = s, a.stride[b]*2
		}
	}
}

func (a *bucketAgg) median(b int) int64 {
	s := slices.Clone(a.sample[b])
	if len(s) == 0 {
		return 0
	}
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

// chart is one declared series over one run.
type chart struct {
	d     hosts.Series
	tag   string // the kind_tag of the records it reads
	types []string
	limit int64              // a threshold from an assertion parameter; -1 none
	stats map[chartKey]int32 // index in stat and order
	stat  []keyStat
	order []chartKey // keys in first-seen order (deterministic)
	keys  []chartKey // the keys drawn (after the first pass)
	agg   map[chartKey]*bucketAgg
	all   *bucketAgg
	start map[string]int64 // Span: the start time by host and key
	bw    map[chartKey]int64
}

// charts is every chart of one run and the records they read.
type charts struct {
	list   []*chart
	byType map[tagType][]*chart
	// seen holds the kind_tags of the records read; lastTag is the one
	// last added, so a run of one kind's records costs a comparison.
	seen    map[string]bool
	lastTag string
}

// tagType is what a chart reads: records of one kind_tag and type.
type tagType struct{ tag, typ string }

// newCharts builds the charts of every registered kind (kinds: tag →
// kind) and of the engine; after the first pass, choose keeps those of
// the kinds the bundle holds records of.
func (r *run) newCharts(opts Options) *charts {
	cs := &charts{byType: map[tagType][]*chart{}, seen: map[string]bool{}}
	if opts.NoCharts {
		return cs
	}
	reg := opts.kinds()
	type decl struct {
		tag string
		d   hosts.Series
	}
	var decls []decl
	for _, tag := range reg.Tags() {
		if k, _ := reg.Lookup(tag); k != nil {
			for _, d := range hosts.SeriesOf(k) {
				decls = append(decls, decl{tag, d})
			}
		}
	}
	for _, d := range engine.Series() {
		decls = append(decls, decl{engine.EngineTag, d})
	}
	for _, dd := range decls {
		d := dd.d
		c := &chart{d: d, tag: dd.tag, types: d.Types, limit: -1, stats: map[chartKey]int32{}, agg: map[chartKey]*bucketAgg{}, start: map[string]int64{}}
		if d.Limit != nil {
			for _, v := range r.verdicts {
				if v.Kind != d.Limit.Assertion {
					continue
				}
				if n, ok := v.Parameters[d.Limit.Param].(float64); ok && int64(n) > c.limit {
					c.limit = int64(n)
				}
			}
		}
		cs.list = append(cs.list, c)
		for _, t := range d.Types {
			k := tagType{dd.tag, t}
			cs.byType[k] = append(cs.byType[k], c)
		}
		if d.Span != nil {
			k := tagType{dd.tag, d.Span.Start}
			cs.byType[k] = append(cs.byType[k], c)
		}
	}
	return cs
}

// bucket is the chart bucket of time t in the window, -1 outside it.
func (r *run) bucket(t int64) int {
	if t < r.from || t > r.to {
		return -1
	}
	return int((t - r.from) * chartBuckets / (r.to - r.from + 1))
}

// feed offers one record to the charts that read its type: the first
// pass counts per key, the second aggregates the keys drawn per bucket.
func (cs *charts) feed(rd *reader, line int, rec *bundle.EventRecord) {
	if !rd.keep && rec.KindTag != cs.lastTag {
		cs.lastTag = rec.KindTag
		cs.seen[rec.KindTag] = true
	}
	list := cs.byType[tagType{rec.KindTag, rec.Type}]
	if len(list) == 0 {
		return
	}
	r := rd.r
	t := rec.VirtualTimeNs
	for _, c := range list {
		d := &c.d
		if d.Span != nil && rec.Type == d.Span.Start {
			if t <= r.to {
				c.start[rec.HostID+"\x00"+string(memberBytes(rec.Event, d.Span.Key))] = t
			}
			continue
		}
		if d.Where[0] != "" && string(memberBytes(rec.Event, d.Where[0])) != d.Where[1] {
			continue
		}
		b := r.bucket(t)
		if b < 0 {
			continue
		}
		var k chartKey
		if d.Host == "" {
			if rec.HostID == "" {
				continue
			}
			k.host = r.host(rec.HostID)
		} else if k.host = r.hostOf(memberBytes(rec.Event, d.Host)); k.host < 0 {
			continue
		}
		k.peer = -1
		if d.Peer != "" {
			if k.peer = r.hostOf(memberBytes(rec.Event, d.Peer)); k.peer < 0 {
				continue
			}
		}
		// The second pass aggregates only the keys drawn (a span still
		// pairs its ends, so its start is forgotten).
		var a *bucketAgg
		skip := false
		if rd.keep {
			a = c.agg[k]
			skip = a == nil && c.all == nil
		}
		if skip && d.Span == nil {
			continue
		}
		var v int64 = 1
		switch {
		case d.Span != nil:
			key := rec.HostID + "\x00" + string(memberBytes(rec.Event, d.Span.Key))
			st, ok := c.start[key]
			if !ok {
				continue
			}
			delete(c.start, key)
			v = t - st
			if skip {
				continue
			}
		case d.Field != "":
			n, ok := memberInt(rec.Event, d.Field)
			if !ok {
				continue
			}
			v = n
		}
		if !rd.keep {
			c.count(k, v)
			continue
		}
		if c.all != nil {
			c.all.add(b, v, line)
		}
		if a != nil {
			a.add(b, v, line)
		}
	}
}

// count is the first pass's tally of one value of key k. The tallies
// hold no pointers: a thousand-peer run's hundred thousand links are
// one slice for the collector, not a hundred thousand objects.
func (c *chart) count(k chartKey, v int64) {
	i, ok := c.stats[k]
	if !ok {
		i = int32(len(c.stat))
		c.stats[k] = i
		c.stat = append(c.stat, keyStat{})
		c.order = append(c.order, k)
	}
	s := &c.stat[i]
	s.n++
	s.sum += v
	s.max = max(s.max, v)
}

// hostOf is the host table index of the id b names, -1 for none; it
// allocates only for a host not seen before.
func (r *run) hostOf(b []byte) int32 {
	if len(b) == 0 {
		return -1
	}
	if i, ok := r.hostIdx[string(b)]; ok {
		return i
	}
	return r.host(string(b))
}

// choose drops, after the first pass, the charts of kinds the bundle
// holds no record of, and picks the keys each other chart draws: every
// key when there are at most chartKeys, else the chartKeys with the
// largest values (the largest total for a count or a rate), and then an
// "all" line as well.
func (cs *charts) choose(r *run) {
	cs.list = slices.DeleteFunc(cs.list, func(c *chart) bool { return !cs.seen[c.tag] })
	cs.pick(r)
}

func (cs *charts) pick(r *run) {
	for _, c := range cs.list {
		keys := slices.Clone(c.order)
		if len(keys) > chartKeys {
			rank := func(k chartKey) int64 {
				s := &c.stat[c.stats[k]]
				if c.d.Agg == hosts.AggCount || c.d.Agg == hosts.AggRate {
					return s.sum
				}
				return s.max
			}
			slices.SortStableFunc(keys, func(a, b chartKey) int {
				ra, rb := rank(a), rank(b)
				switch {
				case ra > rb:
					return -1
				case ra < rb:
					return 1
				}
				return 0
			})
			keys = keys[:chartKeys]
			c.all = &bucketAgg{}
		}
		// Lines in host order, so colours follow the lanes.
		slices.SortFunc(keys, func(a, b chartKey) int {
			if a.host != b.host {
				return int(a.host - b.host)
			}
			return int(a.peer - b.peer)
		})
		c.keys = keys
		for _, k := range keys {
			c.agg[k] = &bucketAgg{}
		}
		if c.d.Bandwidth {
			c.bw = r.bandwidths(keys)
		}
		c.start = map[string]int64{}
	}
}

// bandwidths is each link's bandwidth in bytes per second, from the
// bundle's scenario.toml: [default_link] and the [[links]] that name the
// edge (an exact id, "*", or a prefix "eu-*"), later entries winning.
// 0: unlimited or unknown.
func (r *run) bandwidths(keys []chartKey) map[chartKey]int64 {
	var sc struct {
		Default struct {
			Bps *int64 `toml:"bandwidth_bps"`
		} `toml:"default_link"`
		Links []struct {
			From, To string
			Bps      *int64 `toml:"bandwidth_bps"`
		} `toml:"links"`
	}
	out := map[chartKey]int64{}
	if _, err := toml.Decode(r.scenario, &sc); err != nil {
		return out
	}
	match := func(pat, id string) bool {
		if p, ok := strings.CutSuffix(pat, "*"); ok {
			return strings.HasPrefix(id, p)
		}
		return pat == id
	}
	for _, k := range keys {
		var bps int64
		if sc.Default.Bps != nil {
			bps = *sc.Default.Bps
		}
		from, to := r.hosts[k.host], r.hosts[k.peer]
		for _, l := range sc.Links {
			if l.Bps != nil && match(l.From, from) && match(l.To, to) {
				bps = *l.Bps
			}
		}
		// bandwidth_bps is bytes per second (docs/network.md: a message
		// of wire_len bytes takes wire_len × 10⁹ / bandwidth_bps ns),
		// the chart's unit already.
		if bps > 0 && bps < 1<<62 {
			out[k] = bps
		}
	}
	return out
}

// snapshots charts the series read from snapshot files: each listed
// snapshot of a host, at the time of its [[snapshots]] request.
func (cs *charts) snapshots(r *run) {
	var sc struct {
		Snapshots []struct {
			At int64 `toml:"at_ns"`
		} `toml:"snapshots"`
	}
	var snaps []*chart
	for _, c := range cs.list {
		if c.d.Snapshot != "" {
			snaps = append(snaps, c)
		}
	}
	if len(snaps) == 0 {
		return
	}
	if _, err := toml.Decode(r.scenario, &sc); err != nil {
		return
	}
	type point struct {
		k   chartKey
		b   int
		v   int64
		seq int
	}
	type taken struct {
		path string
		pt   point
	}
	// One read of the snapshots (one file in a detsim-bundle/2 bundle,
	// compressed or not) for every chart; each chart then takes its
	// points in path order, as it took the detsim-bundle/1 files.
	per := make([][]taken, len(snaps))
	_ = bundle.EachSnapshot(r.dir, r.manifest, func(s bundle.SnapshotRecord) error {
		if s.Seq >= len(sc.Snapshots) {
			return nil
		}
		b := r.bucket(sc.Snapshots[s.Seq].At)
		if b < 0 {
			return nil
		}
		for i, c := range snaps {
			if v, ok := snapshotNumber(s.Data, c.d.Snapshot); ok {
				per[i] = append(per[i], taken{s.Path, point{chartKey{host: r.host(s.Host), peer: -1}, b, v, s.Seq}})
			}
		}
		return nil
	})
	for i, c := range snaps {
		slices.SortStableFunc(per[i], func(a, b taken) int { return strings.Compare(a.path, b.path) })
		var pts []point
		for _, t := range per[i] {
			c.count(t.pt.k, t.pt.v)
			pts = append(pts, t.pt)
		}
		cs.chooseOne(r, c)
		for _, p := range pts {
			if c.all != nil {
				c.all.add(p.b, p.v, 0)
			}
			if a := c.agg[p.k]; a != nil {
				a.add(p.b, p.v, 0)
			}
		}
	}
}

func (cs *charts) chooseOne(r *run, c *chart) {
	saved := cs.list
	cs.list = []*chart{c}
	cs.pick(r)
	cs.list = saved
}

// snapshotNumber reads the number at a dotted path of a snapshot
// ("broadcast_queue.depth"): each part's key is looked for after the one
// before, without decoding the snapshot (a thousand-member snapshot is
// 100 KB; a thousand of them decoded whole were most of the charts'
// cost). detsim writes each object's members once, so the first key
// after its parent's is the child.
func snapshotNumber(data []byte, p string) (int64, bool) {
	rest := data
	for _, part := range strings.Split(p, ".") {
		key := []byte(`"` + part + `":`)
		i := bytes.Index(rest, key)
		if i < 0 {
			return 0, false
		}
		rest = bytes.TrimLeft(rest[i+len(key):], " \t\r\n")
	}
	j := 0
	for j < len(rest) && (rest[j] == '-' || rest[j] >= '0' && rest[j] <= '9') {
		j++
	}
	n, err := strconv.ParseInt(string(rest[:j]), 10, 64)
	return n, err == nil
}

// memberBytes is a member of an event payload: a string's contents, or
// a number as written; nil when absent. It aliases ev.
func memberBytes(ev []byte, name string) []byte {
	raw, _ := jsonmember.Find(ev, name)
	if len(raw) >= 2 && raw[0] == '"' {
		return raw[1 : len(raw)-1]
	}
	return raw
}

// memberInt is a numeric member of an event payload.
func memberInt(ev []byte, name string) (int64, bool) {
	raw, _ := jsonmember.Find(ev, name)
	return jsonmember.Int(raw)
}

var aggNames = map[hosts.Agg]string{hosts.AggMaxMedian: "maxmed", hosts.AggCount: "count", hosts.AggLast: "last", hosts.AggRate: "rate"}

// encode writes the run's charts: per chart its declaration, the keys
// drawn (lanes; a link's two), and per key (and the "all" line) the
// non-empty buckets: index (delta), value (max, count, last, or sum for
// a rate), median (max/median charts) and the record line of the point.
func (cs *charts) encode(e *enc, L func(int32) int64) {
	e.key("charts")
	e.raw("[")
	for i, c := range cs.list {
		e.comma(i)
		e.raw("{")
		e.strField("id", c.d.ID)
		e.strField("title", c.d.Title)
		e.strField("unit", c.d.Unit)
		e.strField("doc", c.d.Doc)
		e.strField("agg", aggNames[c.d.Agg])
		e.field("perLink", b2i(c.d.Peer != ""))
		e.field("limit", c.limit)
		e.field("buckets", chartBuckets)
		e.field("keysTotal", int64(len(c.order)))
		e.ints("h", len(c.keys), false, func(i int) int64 { return L(c.keys[i].host) })
		e.ints("p", len(c.keys), false, func(i int) int64 {
			if c.keys[i].peer < 0 {
				return -1
			}
			return L(c.keys[i].peer)
		})
		e.ints("bw", len(c.keys), false, func(i int) int64 { return c.bw[c.keys[i]] })
		e.key("lines")
		e.raw("[")
		for j, k := range c.keys {
			e.comma(j)
			c.encodeLine(e, c.agg[k])
		}
		e.raw("],")
		e.key("all")
		if c.all != nil {
			c.encodeLine(e, c.all)
		} else {
			e.raw("null")
		}
		e.end()
	}
	e.raw("],")
}

func (c *chart) encodeLine(e *enc, a *bucketAgg) {
	var idx []int
	for b := range chartBuckets {
		if a.cnt[b] > 0 {
			idx = append(idx, b)
		}
	}
	e.raw("{")
	e.ints("b", len(idx), true, func(i int) int64 { return int64(idx[i]) })
	e.ints("v", len(idx), false, func(i int) int64 {
		b := idx[i]
		switch c.d.Agg {
		case hosts.AggCount:
			return int64(a.cnt[b])
		case hosts.AggLast:
			return a.last[b]
		case hosts.AggRate:
			return a.sum[b]
		}
		return a.max[b]
	})
	if c.d.Agg == hosts.AggMaxMedian {
		e.ints("m", len(idx), false, func(i int) int64 { return a.median(idx[i]) })
	}
	e.ints("l", len(idx), false, func(i int) int64 {
		if c.d.Agg == hosts.AggMaxMedian {
			return int64(a.maxLine[idx[i]])
		}
		return int64(a.lastLine[idx[i]])
	})
	e.end()
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
