package render

import (
	"github.com/detsim/detsim/bundle/verdict"
	"github.com/detsim/detsim/hosts"
)

// What a kind declares beyond marks and views (hosts.Band, hosts.History,
// issue 30 item 7): a state shading each host's lane (raft's role), and
// a client history, each client's operations as intervals, with the
// window a failing verdict cites marked. render names no kind: it reads
// the declarations of the kinds whose records the bundle holds.

// histCap bounds the operations a page draws: a history longer is cut
// to its first histCap operations and those a verdict cites, and the
// page says how many it left out.
const histCap = 50_000

// bandChange is one record setting a host's band state.
type bandChange struct {
	t     int64
	host  int32
	state int32 // string table
	line  int
}

// histOp is one client operation, from its invoke to its answer.
type histOp struct {
	client       int32 // index in extras.clients
	host         int32
	t0, t1       int64 // t1 -1: never answered
	label        int32 // string table: "put k3 = n3#5", "read k3"
	result       int32 // string table; -1 without an answer
	answer       int32 // string table: the answer's value
	iLine, rLine int   // rLine 0 without an answer
}

// violation is a failing verdict's window over the history.
type violation struct {
	name   string
	t0, t1 int64
	ops    []int // indexes in extras.ops
}

// extras is what a run draws from its kinds' Band and History.
type extras struct {
	views bool // a record of a kind with Views was read: SWIM's controls apply

	band     *hosts.Band
	bands    []bandChange
	bandSeen map[int32]bool // hosts whose first record was read

	hist      *hosts.History
	clients   []string
	clientIdx map[string]int32
	ops       []histOp
	pending   map[string]int // Req → index in ops, awaiting its answer
	cited     map[int]bool   // lines a Fail verdict cites: kept past histCap
	opsElided int
	viols     []violation
}

// feed reads one record of kind k in the first pass; it says whether the
// page draws the record (so the second pass inlines its text).
func (x *extras) feed(r *run, k *kindLanes, t int64, h int32, line int, typ string, ev hosts.Payload, first bool) bool {
	if k.views != nil {
		x.views = true
	}
	if b := k.band; b != nil && h >= 0 {
		if x.band == nil {
			x.band, x.bandSeen = b, map[int32]bool{}
		}
		set, state := false, ""
		switch {
		case typ == b.Type:
			set, state = true, ev.Str(b.Value)
		case typ == b.Reset || !x.bandSeen[h]:
			set, state = b.Initial != "", b.Initial
		}
		x.bandSeen[h] = true
		if set && first {
			x.bands = append(x.bands, bandChange{t: t, host: h, state: r.str(state), line: line})
		}
		if typ == b.Type || typ == b.Reset {
			return true
		}
	}
	hs := k.history
	if hs == nil || (typ != hs.Invoke && typ != hs.Return) {
		return false
	}
	if x.hist == nil {
		x.hist, x.clientIdx, x.pending, x.cited = hs, map[string]int32{}, map[string]int{}, map[int]bool{}
		for _, v := range r.verdicts {
			if v.Outcome == verdict.Fail {
				for _, e := range v.Evidence {
					if l, ok := evidenceLine(e.Ref); ok {
						x.cited[l] = true
					}
				}
			}
		}
	}
	if !first {
		return true
	}
	req := ev.Str(hs.Req)
	if typ == hs.Invoke {
		if len(x.ops) >= histCap && !x.cited[line] {
			x.opsElided++
			return false
		}
		c := ev.Str(hs.Client)
		ci, ok := x.clientIdx[c]
		if !ok {
			ci = int32(len(x.clients))
			x.clients = append(x.clients, c)
			x.clientIdx[c] = ci
		}
		label := ev.Str(hs.Op) + " " + ev.Str(hs.Key)
		if v := ev.Str(hs.Value); v != "" {
			label += " = " + v
		}
		x.pending[req] = len(x.ops)
		x.ops = append(x.ops, histOp{client: ci, host: h, t0: t, t1: -1, label: r.str(label), result: -1, answer: -1, iLine: line})
		return true
	}
	i, ok := x.pending[req]
	if !ok {
		return false
	}
	delete(x.pending, req)
	op := &x.ops[i]
	op.t1, op.rLine = t, line
	op.result, op.answer = r.str(ev.Str(hs.Result)), r.str(ev.Str(hs.Answer))
	return true
}

// violations finds, for each Fail verdict of the history's assertion,
// the operations its evidence cites and the window they span.
func (x *extras) violations(r *run) {
	if x.hist == nil {
		return
	}
	byLine := map[int]int{}
	for i, op := range x.ops {
		byLine[op.iLine] = i
		if op.rLine > 0 {
			byLine[op.rLine] = i
		}
	}
	for _, v := range r.verdicts {
		if v.Kind != x.hist.Assertion || v.Outcome != verdict.Fail {
			continue
		}
		w := violation{name: v.Name, t0: -1}
		seen := map[int]bool{}
		for _, e := range v.Evidence {
			l, ok := evidenceLine(e.Ref)
			if !ok {
				continue
			}
			i, ok := byLine[l]
			if !ok || seen[i] {
				continue
			}
			seen[i] = true
			w.ops = append(w.ops, i)
			op := x.ops[i]
			end := op.t1
			if end < 0 {
				end = r.to
			}
			if w.t0 < 0 || op.t0 < w.t0 {
				w.t0 = op.t0
			}
			w.t1 = max(w.t1, end)
		}
		if len(w.ops) > 0 {
			x.viols = append(x.viols, w)
		}
	}
}

// encode writes the bands and the history into the run's data.
func (x *extras) encode(e *enc, L func(int32) int64) {
	e.field("views", b2i(x.views))
	e.key("band")
	if x.band == nil {
		e.raw("null,")
	} else {
		e.raw("{")
		e.strField("title", x.band.Title)
		e.strsOf("states", len(x.band.States), func(i int) string { return x.band.States[i].Name })
		e.ints("tones", len(x.band.States), false, func(i int) int64 { return int64(x.band.States[i].Tone) })
		b := x.bands
		e.ints("t", len(b), true, func(i int) int64 { return b[i].t })
		e.ints("h", len(b), false, func(i int) int64 { return L(b[i].host) })
		e.ints("s", len(b), false, func(i int) int64 { return int64(b[i].state) })
		e.ints("l", len(b), false, func(i int) int64 { return int64(b[i].line) })
		e.end()
		e.raw(",")
	}
	e.key("hist")
	if x.hist == nil {
		e.raw("null,")
		return
	}
	e.raw("{")
	e.strField("assertion", x.hist.Assertion)
	e.strField("ok", x.hist.OK)
	e.strField("unknown", x.hist.Unknown)
	e.strs("clients", x.clients)
	o := x.ops
	e.ints("c", len(o), false, func(i int) int64 { return int64(o[i].client) })
	e.ints("h", len(o), false, func(i int) int64 { return L(o[i].host) })
	e.ints("t0", len(o), true, func(i int) int64 { return o[i].t0 })
	e.ints("t1", len(o), false, func(i int) int64 { return o[i].t1 })
	e.ints("lab", len(o), false, func(i int) int64 { return int64(o[i].label) })
	e.ints("res", len(o), false, func(i int) int64 { return int64(o[i].result) })
	e.ints("ans", len(o), false, func(i int) int64 { return int64(o[i].answer) })
	e.ints("il", len(o), false, func(i int) int64 { return int64(o[i].iLine) })
	e.ints("rl", len(o), false, func(i int) int64 { return int64(o[i].rLine) })
	e.field("elided", int64(x.opsElided))
	// An array of objects through the page's encoder, as encode.go
	// writes its own arrays: alike in shape, the members are this
	// table's.
	e.key("viols")
	e.raw("[")
	for i, v := range x.viols {
		e.comma(i)
		e.raw("{")
		e.strField("name", v.name)
		e.field("t0", v.t0)
		e.field("t1", v.t1)
		e.ints("ops", len(v.ops), false, func(j int) int64 { return int64(v.ops[j]) })
		e.end()
	}
	e.raw("]")
	e.end()
	e.raw(",")
}
