package causal

import "sort"

// Lookups an explainer makes again and again — the records of one type
// on one host, the records naming one message id — answered from lists
// the index builds on first use and extends as records come, instead of
// a scan of everything it holds: a thousand-peer chain of fifty links
// stays well under a second.

type listKey struct{ typ, host int32 }

// index brings the lists up to date with the records held.
func (ix *Index) index() {
	if ix.lists == nil {
		ix.lists, ix.ids = map[listKey][]int32{}, map[int64][]int32{}
	}
	for ; ix.listed < len(ix.ents); ix.listed++ {
		i := ix.listed
		e := &ix.ents[i]
		k := listKey{e.typ, e.host}
		ix.lists[k] = append(ix.lists[k], int32(i))
		sp := ix.byTyp[e.typ]
		for p, f := range sp.fields {
			if f.kind == kID {
				if code := ix.vals[int(e.off)+p]; code != 0 {
					ix.ids[code] = append(ix.ids[code], int32(i))
				}
			}
		}
	}
}

// dropLookups forgets the lists: the records they point at moved.
func (ix *Index) dropLookups() { ix.lists, ix.ids, ix.listed = nil, nil, 0 }

func (ix *Index) list(typ, host string) []int32 {
	t, ok := ix.strIdx[typ]
	h, ok2 := ix.strIdx[host]
	if !ok || !ok2 {
		return nil
	}
	ix.index()
	return ix.lists[listKey{t, h}]
}

// Latest is the newest record of type typ on host at or before line
// meeting ok (nil: any).
func (ix *Index) Latest(typ, host string, line int64, ok func(Rec) bool) (Rec, bool) {
	l := ix.list(typ, host)
	j := sort.Search(len(l), func(j int) bool { return ix.ents[l[j]].line > line })
	for j--; j >= 0; j-- {
		r := Rec{ix, int(l[j])}
		if ok == nil || ok(r) {
			return r, true
		}
	}
	return Rec{}, false
}

// Earliest is the oldest record of type typ on host after line meeting
// ok (nil: any).
func (ix *Index) Earliest(typ, host string, line int64, ok func(Rec) bool) (Rec, bool) {
	l := ix.list(typ, host)
	for j := sort.Search(len(l), func(j int) bool { return ix.ents[l[j]].line > line }); j < len(l); j++ {
		r := Rec{ix, int(l[j])}
		if ok == nil || ok(r) {
			return r, true
		}
	}
	return Rec{}, false
}

// Backward calls fn on the records of type typ on host at or before
// line, newest first, until fn returns false.
func (ix *Index) Backward(typ, host string, line int64, fn func(Rec) bool) {
	l := ix.list(typ, host)
	j := sort.Search(len(l), func(j int) bool { return ix.ents[l[j]].line > line })
	for j--; j >= 0; j-- {
		if !fn(Rec{ix, int(l[j])}) {
			return
		}
	}
}

// WithID lists, oldest first, the records that name the message id
// code (Rec.IDCode) in any id member: its send, its receive, its drop.
func (ix *Index) WithID(code int64) []Rec {
	if code == 0 {
		return nil
	}
	ix.index()
	var out []Rec
	for _, i := range ix.ids[code] {
		out = append(out, Rec{ix, int(i)})
	}
	return out
}

// Onward calls fn on the records of type typ on host after line, oldest
// first, until fn returns false.
func (ix *Index) Onward(typ, host string, line int64, fn func(Rec) bool) {
	l := ix.list(typ, host)
	for j := sort.Search(len(l), func(j int) bool { return ix.ents[l[j]].line > line }); j < len(l); j++ {
		if !fn(Rec{ix, int(l[j])}) {
			return
		}
	}
}

// Forget drops the lookups and the memos, so the next query builds them
// again: what the first question after a long run costs (benchmarks).
func (ix *Index) Forget() { ix.dropLookups(); ix.memos = nil }

// Memo is build's value for key, built once while the index holds the
// same records: an explainer's own tables over them (a host's sends in
// order, with counts), built once for every chain of a bundle instead of
// once a chain. A record added or the oldest half forgotten drops every
// memo. key must be comparable; an explainer uses a type of its own.
func (ix *Index) Memo(key any, build func() any) any {
	if ix.memos == nil || ix.memoN != int64(len(ix.ents)) || ix.memoForgot != ix.forgot {
		ix.memos, ix.memoN, ix.memoForgot = map[any]any{}, int64(len(ix.ents)), ix.forgot
	}
	v, ok := ix.memos[key]
	if !ok {
		v = build()
		ix.memos[key] = v
	}
	return v
}
