package render

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"slices"
	"strconv"

	"github.com/detsim/detsim/internal/jsonw"
)

// enc writes the page's data blob to w, made HTML-safe (htmlSafe), as
// it goes: b is only the part not yet written. Numbers are written as
// integers (times are ns below 2^53, exact in a JavaScript number);
// monotone columns are delta-encoded to keep a big run's page small.
type enc struct {
	b   []byte
	w   io.Writer
	err error
}

// encChunk is how much enc holds before it writes.
const encChunk = 64 << 10

// flush writes all of b but its last byte once b holds encChunk: end
// may take back a trailing comma.
func (e *enc) flush() {
	if n := len(e.b); n >= encChunk {
		e.write(e.b[:n-1])
		e.b[0] = e.b[n-1]
		e.b = e.b[:1]
	}
}

func (e *enc) write(b []byte) {
	if e.err == nil {
		e.err = htmlSafe(e.w, b)
	}
}

func (e *enc) raw(s string) { e.b = append(e.b, s...) }
func (e *enc) str(s string) { e.b = jsonw.AppendString(e.b, s) }
func (e *enc) int(n int64)  { e.b = strconv.AppendInt(e.b, n, 10) }
func (e *enc) key(k string) {
	e.flush()
	e.b = append(e.b, '"')
	e.b = append(e.b, k...)
	e.b = append(e.b, '"', ':')
}
func (e *enc) comma(i int) {
	e.flush()
	if i > 0 {
		e.b = append(e.b, ',')
	}
}
func (e *enc) field(k string, n int64) { e.key(k); e.int(n); e.b = append(e.b, ',') }

// strField is field for a string member.
func (e *enc) strField(k, v string) { e.key(k); e.str(v); e.b = append(e.b, ',') }

// ints writes n values of f as an array; delta writes each minus the one before.
func (e *enc) ints(k string, n int, delta bool, f func(i int) int64) {
	e.key(k)
	e.b = append(e.b, '[')
	var prev int64
	for i := range n {
		e.comma(i)
		v := f(i)
		if delta {
			v, prev = v-prev, v
		}
		e.int(v)
	}
	e.b = append(e.b, ']', ',')
}

func (e *enc) strs(k string, ss []string) {
	e.strsOf(k, len(ss), func(i int) string { return ss[i] })
}

// strsOf writes n values of f as an array of strings.
func (e *enc) strsOf(k string, n int, f func(i int) string) {
	e.key(k)
	e.b = append(e.b, '[')
	for i := range n {
		e.comma(i)
		e.str(f(i))
	}
	e.b = append(e.b, ']', ',')
}

// end closes an object opened with '{', dropping a trailing comma.
func (e *enc) end() {
	if n := len(e.b); n > 0 && e.b[n-1] == ',' {
		e.b = e.b[:n-1]
	}
	e.b = append(e.b, '}')
}

// data writes the page's JSON to w: the lanes, the mark, and every run.
func data(w io.Writer, p *pagePlan, runs []*run, opts Options) error {
	e := &enc{b: make([]byte, 0, 2*encChunk), w: w}
	e.raw("{")
	e.field("version", 1)
	e.key("caps")
	e.raw("{")
	e.field("tiles", tiles)
	e.field("tileArrows", tileArrows)
	e.field("tileHighMarks", tileHighMarks)
	e.field("tileLowMarks", tileLowMarks)
	e.field("densityBuckets", densityBuckets)
	e.field("smallMesh", smallMesh)
	e.end()
	e.raw(",")
	e.strs("hosts", p.hosts)
	e.key("mark")
	if opts.Mark {
		e.raw("{")
		e.field("ns", opts.MarkNs)
		e.field("step", opts.MarkStep)
		e.end()
	} else {
		e.raw("null")
	}
	e.raw(",")
	e.key("runs")
	e.raw("[")
	for i, r := range runs {
		e.comma(i)
		r.encode(e, p.lane[i])
	}
	e.raw("]")
	e.end()
	e.write(e.b)
	return e.err
}

func (r *run) encode(e *enc, lane map[int32]int32) {
	L := func(h int32) int64 { return int64(lane[h]) }
	e.raw("{")
	e.strField("name", r.name)
	e.strField("dir", r.dir)
	e.strField("digest", r.manifest.Digest)
	e.strField("truncated", r.manifest.Truncated)
	e.strField("seed", strconv.FormatUint(r.manifest.Seed, 10))
	e.field("duration_ns", r.manifest.DurationNs)
	e.field("records", r.records)
	e.field("from", r.from)
	e.field("to", r.to)
	e.field("outside", r.outside)
	r.strs.seal()
	e.strsOf("strs", r.strs.len(), func(i int) string { return r.strs.at(int32(i)) })
	e.ints("kinds", len(r.kinds), false, func(i int) int64 { return int64(r.kinds[i]) })

	// Messages: every one is counted; the kept ones are drawn.
	e.key("msgCounts")
	e.raw("{")
	e.field("delivered", r.msgCount[delivered])
	e.field("droppedOnSend", r.msgCount[droppedOnSend])
	e.field("droppedOnDelivery", r.msgCount[droppedDelivery])
	e.field("inFlight", r.msgCount[inFlight])
	e.field("receiveOnly", r.msgCount[recvOnly])
	e.field("kept", int64(len(r.msgs)))
	e.end()
	e.raw(",")
	e.key("msg")
	e.raw("{")
	m := func(i int) *msg { return &r.msgs[i] }
	n := len(r.msgs)
	e.ints("st", n, true, func(i int) int64 { return m(i).sendT })
	e.ints("dt", n, false, func(i int) int64 {
		if m(i).status == delivered || m(i).status == droppedDelivery {
			return m(i).recvT - m(i).sendT
		}
		return 0
	})
	e.ints("f", n, false, func(i int) int64 { return L(m(i).from) })
	e.ints("t", n, false, func(i int) int64 { return L(m(i).to) })
	e.ints("k", n, false, func(i int) int64 { return int64(m(i).kind) })
	e.ints("b", n, false, func(i int) int64 { return m(i).bytes })
	e.ints("u", n, false, func(i int) int64 { return m(i).updates })
	e.ints("sl", n, false, func(i int) int64 { return int64(m(i).sendLine) })
	e.ints("el", n, false, func(i int) int64 { return int64(m(i).endLine) })
	e.ints("x", n, false, func(i int) int64 { return int64(m(i).status) })
	e.ints("r", n, false, func(i int) int64 { return int64(m(i).reason) })
	e.end()
	e.raw(",")

	// Arrows and marks each tile left out.
	e.ints("tileArrowsElided", tiles, false, func(i int) int64 { return r.arrowsOut[i] })
	e.ints("tileMarksElided", tiles, false, func(i int) int64 { return r.marksOut[i] })
	e.key("marksElidedByType")
	e.raw("[")
	j := 0
	for typ := range int32(r.strs.len()) {
		if c := r.markOutByType[typ]; c > 0 {
			e.comma(j)
			j++
			e.raw("[")
			e.int(int64(typ))
			e.raw(",")
			e.int(c)
			e.raw("]")
		}
	}
	e.raw("],")
	e.key("marks")
	e.raw("{")
	// A table of columns as the messages' above, alike in shape: its
	// columns are a mark's.
	mk := func(i int) *mark { return &r.marks[i] }
	nm := len(r.marks)
	e.ints("t", nm, true, func(i int) int64 { return mk(i).t })
	e.ints("h", nm, false, func(i int) int64 { return L(mk(i).host) })
	e.ints("y", nm, false, func(i int) int64 { return int64(mk(i).typ) })
	e.ints("lab", nm, false, func(i int) int64 { return int64(mk(i).label) })
	e.ints("l", nm, false, func(i int) int64 { return int64(mk(i).line) })
	e.end()
	e.raw(",")

	e.key("muts")
	e.raw("[")
	for i, mu := range r.muts {
		e.comma(i)
		e.raw("{")
		e.field("t", mu.t)
		e.field("end", mu.end)
		e.field("line", int64(mu.line))
		e.key("kind")
		e.str(mu.kind)
		e.raw(",")
		e.ints("lanes", len(mu.lanes), false, func(i int) int64 { return L(mu.lanes[i]) })
		e.end()
	}
	e.raw("],")

	tk := r.transKept
	e.key("memb")
	e.raw("{")
	e.ints("t", len(tk), true, func(i int) int64 { return tk[i].t })
	e.ints("o", len(tk), false, func(i int) int64 { return L(tk[i].o) })
	e.ints("s", len(tk), false, func(i int) int64 { return L(tk[i].s) })
	e.ints("st", len(tk), false, func(i int) int64 { return int64(tk[i].state) })
	e.ints("inc", len(tk), false, func(i int) int64 { return tk[i].inc })
	e.ints("r", len(tk), false, func(i int) int64 { return int64(tk[i].reason) })
	e.ints("l", len(tk), false, func(i int) int64 { return int64(tk[i].line) })
	e.end()
	e.raw(",")
	e.field("membElidedRecords", int64(r.transElided))
	e.field("membElidedPairs", int64(r.pairsElided))

	// Density: message sends and receives per lane per bucket, over every
	// message, kept or not.
	dens := map[int64][]int64{}
	for h, d := range r.dens {
		if d != nil {
			dens[L(int32(h))] = d
		}
	}
	e.field("densityBuckets", densityBuckets)
	e.key("density")
	e.raw("[")
	j = 0
	// In lane order. A compare page's lanes are the union of both runs'
	// hosts, so a run's lanes can lie beyond its own host count.
	for _, l := range slices.Sorted(maps.Keys(dens)) {
		d := dens[l]
		e.comma(j)
		j++
		e.raw("[")
		e.int(l)
		e.raw(",[")
		// Runs of zeros are common: write them as negative counts.
		zeros := int64(0)
		first := true
		flush := func() {
			if zeros > 0 {
				if !first {
					e.raw(",")
				}
				first = false
				e.int(-zeros)
				zeros = 0
			}
		}
		for _, c := range d {
			if c == 0 {
				zeros++
				continue
			}
			flush()
			if !first {
				e.raw(",")
			}
			first = false
			e.int(c)
		}
		flush()
		e.raw("]]")
	}
	e.raw("],")

	r.x.encode(e, L)
	r.charts.encode(e, L)

	e.key("rec")
	e.raw("{")
	e.ints("l", len(r.want), true, func(i int) int64 { return int64(r.want[i]) })
	e.strs("s", r.texts)
	e.end()
	e.raw(",")
	e.field("recElided", r.textsElided)
	e.field("unpaired", int64(r.unpaired))

	e.key("other")
	e.raw("[")
	for i, k := range slices.Sorted(maps.Keys(r.otherRecs)) {
		e.comma(i)
		e.raw("[")
		e.str(k)
		e.raw(",")
		e.int(int64(r.otherRecs[k]))
		e.raw("]")
	}
	e.raw("],")

	e.key("verdicts")
	vb, err := json.Marshal(r.verdicts)
	if err != nil || r.verdicts == nil {
		vb = []byte("[]")
	}
	e.b = append(e.b, vb...)
	e.end()
}

// htmlSafe writes b to w with <, > and & escaped as \u003c, \u003e,
// \u0026. In JSON they can only occur inside strings, where the escape
// means the same character, so the blob is the same JSON and no
// "</script>" or "<!--" in any string can end or change the <script>
// element holding it. (U+2028 and U+2029 are already escaped by jsonw
// and encoding/json.)
func htmlSafe(w io.Writer, b []byte) error {
	for len(b) > 0 {
		i := bytes.IndexAny(b, "<>&")
		if i < 0 {
			_, err := w.Write(b)
			return err
		}
		if _, err := w.Write(b[:i]); err != nil {
			return err
		}
		esc := `\u003c`
		switch b[i] {
		case '>':
			esc = `\u003e`
		case '&':
			esc = `\u0026`
		}
		if _, err := io.WriteString(w, esc); err != nil {
			return err
		}
		b = b[i+1:]
	}
	return nil
}
