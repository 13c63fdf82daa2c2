// Package causal answers "why does this host believe that?" from the
// records of a run: the whole chain from a state transition back to its
// origin, across hosts (issue 22). It reads only records, never the
// engine, so the same code explains a stepper session (fed record by
// record as the session runs) and a bundle on disk, simulated, live or
// from the testbed.
//
// The package knows no kind's events. A host kind declares an Explainer
// (hosts.Kind.Explain): which records and members the index keeps, and
// how its transitions chain. causal holds the index, the chain and the
// links, and checks that a chain is made of real records.
package causal

import (
	"bytes"

	"github.com/detsim/detsim/internal/jsonmember"
)

// Keep is one record type an explainer needs, and which of its members:
// Str members are kept as strings, Num members as integers, ID members
// as message ids ("orch#17").
type Keep struct {
	Type          string
	Str, Num, IDs []string
}

// Index holds the records an explainer asks for, in line order, each
// with the members it asked for, in a bounded amount of memory: when it
// would pass its budget it forgets its oldest half (Forgotten says up to
// which line). A chain that reaches past what is held says so.
type Index struct {
	specs  map[string]*spec
	byTyp  []*spec // by the type's string id: a field read costs no map lookup
	strs   []string
	strIdx map[string]int32
	ents   []entry
	vals   []int64
	budget int64
	forgot int64 // records up to this line are no longer held

	// Lookups built on first use (lookup.go).
	lists  map[listKey][]int32
	ids    map[int64][]int32
	listed int
	last   int64 // the last line offered
}

type spec struct {
	typ    int32 // in strs
	fields []field
}

// field position of name in the spec, -1 if it keeps no such member.
func (sp *spec) pos(name string) (int, uint8) {
	for i, f := range sp.fields {
		if f.name == name {
			return i, f.kind
		}
	}
	return -1, 0
}

type field struct {
	name string
	key  []byte // `"name":`
	kind uint8
}

const (
	kStr = iota
	kNum
	kID
)

type entry struct {
	line, step, at int64
	host, typ      int32
	off            int32 // first value in vals
	n              int32
}

// entryBytes is what one held record costs besides its values.
const entryBytes = 48

// DefaultBudget is the memory an index holds records in unless told
// otherwise: at a thousand peers, about a minute of virtual time.
const DefaultBudget = 96 << 20

// NewIndex returns an index keeping what keeps asks for, within budget
// bytes (0: DefaultBudget).
func NewIndex(budget int64, keeps ...Keep) *Index {
	if budget <= 0 {
		budget = DefaultBudget
	}
	ix := &Index{specs: map[string]*spec{}, strIdx: map[string]int32{}, budget: budget}
	ix.intern("") // id 0 is "no value"
	for _, k := range keeps {
		sp := ix.specs[k.Type]
		if sp == nil {
			sp = &spec{typ: ix.intern(k.Type)}
			ix.specs[k.Type] = sp
			for int(sp.typ) >= len(ix.byTyp) {
				ix.byTyp = append(ix.byTyp, nil)
			}
			ix.byTyp[sp.typ] = sp
		}
		add := func(names []string, kind uint8) {
			for _, n := range names {
				sp.fields = append(sp.fields, field{name: n, key: []byte(`"` + n + `":`), kind: kind})
			}
		}
		add(k.Str, kStr)
		add(k.Num, kNum)
		add(k.IDs, kID)
	}
	return ix
}

// internBytes is intern for bytes, allocating only for a new string.
func (ix *Index) internBytes(b []byte) int32 {
	if i, ok := ix.strIdx[string(b)]; ok {
		return i
	}
	return ix.intern(string(b))
}

func (ix *Index) intern(s string) int32 {
	if i, ok := ix.strIdx[s]; ok {
		return i
	}
	i := int32(len(ix.strs))
	ix.strs = append(ix.strs, s)
	ix.strIdx[s] = i
	return i
}

// Wants reports whether the index keeps records of type typ.
func (ix *Index) Wants(typ string) bool { _, ok := ix.specs[typ]; return ok }

// Last is the last line offered to the index: it holds what it keeps of
// every record up to it (and after Forgotten).
func (ix *Index) Last() int64 { return ix.last }

// Forgotten is the last line the index has let go of to stay within its
// budget (0: none).
func (ix *Index) Forgotten() int64 { return ix.forgot }

// Add offers one events.ndjson line, emitted by step (0 when unknown) at
// virtual time at. Lines must come in order; a line at or before the
// last one offered is ignored, so a session that re-executes after a
// step back may offer its lines again.
func (ix *Index) Add(line, step, at int64, b []byte) {
	if line <= ix.last {
		return
	}
	ix.last = line
	typ, payload, host, ok := splitLine(b)
	if !ok {
		return
	}
	if sp := ix.specs[string(typ)]; sp != nil {
		ix.add(sp, line, step, at, ix.internBytes(host), payload)
	}
}

// AddRecord is Add for a record already split into its envelope and its
// event payload (a bundle reader's).
func (ix *Index) AddRecord(line, step, at int64, host, typ string, payload []byte) {
	if line <= ix.last {
		return
	}
	ix.last = line
	if sp := ix.specs[typ]; sp != nil {
		ix.add(sp, line, step, at, ix.intern(host), payload)
	}
}

func (ix *Index) add(sp *spec, line, step, at int64, host int32, payload []byte) {
	e := entry{line: line, step: step, at: at, host: host, typ: sp.typ, off: int32(len(ix.vals)), n: int32(len(sp.fields))}
	for _, f := range sp.fields {
		ix.vals = append(ix.vals, ix.value(payload, f))
	}
	ix.ents = append(ix.ents, e)
	if ix.bytes() > ix.budget {
		ix.forgetHalf()
	}
}

func (ix *Index) bytes() int64 {
	// The lookups hold an index a record, and ids a map entry each.
	return int64(cap(ix.ents))*(entryBytes+4) + int64(cap(ix.vals))*8
}

// forgetHalf drops the oldest half of the records held.
func (ix *Index) forgetHalf() {
	h := len(ix.ents) / 2
	if h == 0 {
		return
	}
	ix.forgot = ix.ents[h-1].line
	ix.dropLookups()
	base := ix.ents[h].off
	ents := make([]entry, len(ix.ents)-h, max(len(ix.ents), 1024))
	copy(ents, ix.ents[h:])
	for i := range ents {
		ents[i].off -= base
	}
	vals := make([]int64, len(ix.vals)-int(base), max(len(ix.vals), 1024))
	copy(vals, ix.vals[base:])
	ix.ents, ix.vals = ents, vals
}

// value reads member f of payload; absent or unreadable is 0 (and 0,
// the empty string, for a string).
func (ix *Index) value(payload []byte, f field) int64 {
	v, ok := jsonmember.FindKey(payload, f.key)
	if !ok {
		return 0
	}
	if f.kind == kNum {
		n, _ := atoi(v)
		return n
	}
	if len(v) < 2 || v[0] != '"' {
		return 0
	}
	s := v[1 : len(v)-1]
	if f.kind == kID {
		// "host#n": the host interned, the counter beside it, so a run's
		// hundred thousand message ids do not each become a string.
		if k := bytes.LastIndexByte(s, '#'); k > 0 {
			if n, ok := atoi(s[k+1:]); ok && n >= 0 && n < 1<<31 {
				return int64(ix.internBytes(s[:k]))<<32 | n
			}
		}
		return -int64(ix.internBytes(s)) - 1 // an id that is not host#n: negative, kept whole
	}
	return int64(ix.internBytes(s))
}

// atoi reads a decimal integer without allocating; false for anything
// else or one past the int64 range.
func atoi(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// splitLine finds a line's event type, payload and host_id (nil for
// null) as detsim writes lines (docs/events.md), without decoding it.
func splitLine(b []byte) (typ, payload, host []byte, ok bool) {
	i := bytes.Index(b, eventKey)
	if i < 0 {
		return nil, nil, nil, false
	}
	payload = bytes.TrimRight(b[i+len(eventKey):], "\n")
	if len(payload) == 0 || payload[len(payload)-1] != '}' {
		return nil, nil, nil, false
	}
	payload = payload[:len(payload)-1]
	if !bytes.HasPrefix(payload, typeKey) {
		return nil, nil, nil, false
	}
	rest := payload[len(typeKey):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 {
		return nil, nil, nil, false
	}
	typ = rest[:j]
	if h := bytes.Index(b[:i], hostKey); h >= 0 {
		v := b[h+len(hostKey) : i]
		if len(v) >= 2 && v[0] == '"' {
			if k := bytes.IndexByte(v[1:], '"'); k >= 0 {
				host = v[1 : k+1]
			}
		}
	}
	return typ, payload, host, true
}

var (
	eventKey = []byte(`,"event":`)
	typeKey  = []byte(`{"type":"`)
	hostKey  = []byte(`,"host_id":`)
)
