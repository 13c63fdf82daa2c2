package causal

import (
	"sort"
	"strconv"
)

// Rec is one record the index holds. The zero Rec is none.
type Rec struct {
	ix *Index
	i  int
}

// Valid reports whether r is a record.
func (r Rec) Valid() bool { return r.ix != nil }

func (r Rec) e() *entry { return &r.ix.ents[r.i] }

// Line is the record's line in events.ndjson.
func (r Rec) Line() int64 { return r.e().line }

// Step is the step that emitted it (0 when read from a bundle).
func (r Rec) Step() int64 { return r.e().step }

// At is its virtual time.
func (r Rec) At() int64 { return r.e().at }

// Host is its host_id ("" for none).
func (r Rec) Host() string { return r.ix.strs[r.e().host] }

// Type is its event type.
func (r Rec) Type() string { return r.ix.strs[r.e().typ] }

func (r Rec) raw(name string) (int64, uint8, bool) {
	e := r.e()
	sp := r.ix.byTyp[e.typ]
	p, kind := sp.pos(name)
	if p < 0 {
		return 0, 0, false
	}
	return r.ix.vals[int(e.off)+p], kind, true
}

// Str is a string member kept for the record's type ("" when absent).
func (r Rec) Str(name string) string {
	v, kind, ok := r.raw(name)
	if !ok || kind != kStr {
		return ""
	}
	return r.ix.strs[v]
}

// Num is a numeric member kept for the record's type (0 when absent).
func (r Rec) Num(name string) int64 {
	v, kind, ok := r.raw(name)
	if !ok || kind != kNum {
		return 0
	}
	return v
}

// ID is a message id member kept for the record's type, as written
// ("orch#17"; "" when absent).
func (r Rec) ID(name string) string {
	v, kind, ok := r.raw(name)
	if !ok || kind != kID || v == 0 {
		return ""
	}
	if v < 0 {
		return r.ix.strs[-v-1]
	}
	return r.ix.strs[v>>32] + "#" + strconv.FormatInt(v&(1<<32-1), 10)
}

// IDCode is ID as the index holds it: equal ids, equal codes, 0 none.
// Comparing codes is how an explainer pairs a message's records without
// building their text.
func (r Rec) IDCode(name string) int64 {
	v, kind, ok := r.raw(name)
	if !ok || kind != kID {
		return 0
	}
	return v
}

// At returns the record on line, if the index holds it.
func (ix *Index) At(line int64) (Rec, bool) {
	i := sort.Search(len(ix.ents), func(i int) bool { return ix.ents[i].line >= line })
	if i < len(ix.ents) && ix.ents[i].line == line {
		return Rec{ix, i}, true
	}
	return Rec{}, false
}

// Back calls fn on the records held at or before line, newest first,
// until fn returns false.
func (ix *Index) Back(line int64, fn func(Rec) bool) {
	i := sort.Search(len(ix.ents), func(i int) bool { return ix.ents[i].line > line })
	for i--; i >= 0; i-- {
		if !fn(Rec{ix, i}) {
			return
		}
	}
}

// Forward calls fn on the records held after line, oldest first, until
// fn returns false.
func (ix *Index) Forward(line int64, fn func(Rec) bool) {
	i := sort.Search(len(ix.ents), func(i int) bool { return ix.ents[i].line > line })
	for ; i < len(ix.ents); i++ {
		if !fn(Rec{ix, i}) {
			return
		}
	}
}

// Len is how many records the index holds.
func (ix *Index) Len() int { return len(ix.ents) }
