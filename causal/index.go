// Package causal answers "why does this host believe that?" from the
// records of a run: the whole chain from a state transition back to its
// origin, across hosts (issue 22). It reads only records, never the
// engine, so the same code explains a stepper session (fed record by
// record as the session runs) and a bundle on disk, simulated, live or
// from the testbed.
//
// The package knows no kind's events. A host kind gives an Explainer
// (Explains): which records and members the index keeps, and
// how its transitions chain. causal holds the index, the chain and the
// links, and checks that a chain is made of real records.
package causal

import (
	"bytes"
	"maps"
	"slices"

	"github.com/detsim/detsim/internal/jsonmember"
)

// Keep is one record type an explainer needs, and which of its members:
// Str members are kept as strings, Num members as integers, ID members
// as message ids ("orch#17"). Skip, when set, leaves out the records
// whose Str member Skip[0] is Skip[1]: a thousand peers' million start-up
// views would otherwise be most of what the index holds and costs.
type Keep struct {
	Type          string
	Str, Num, IDs []string
	Skip          [2]string
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

	// An explainer's own tables over the records held (Memo), and the
	// records they were built over.
	memos             map[any]any
	memoN, memoForgot int64
}

type spec struct {
	typ    int32 // in strs
	fields []field
	skip   int    // the field Skip names, -1 none
	skipK  []byte // its key, `"name":`
	skipV  string // the value that skips
	skipS  []byte // `"name":"value"`: as the last member, decided without a search
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
			sp = &spec{typ: ix.intern(k.Type), skip: -1}
			ix.specs[k.Type] = sp
			for int(sp.typ) >= len(ix.byTyp) {
				ix.byTyp = append(ix.byTyp, nil)
			}
			ix.byTyp[sp.typ] = sp
		}
		// Two kinds' explainers may keep one type (message_received):
		// a member both keep is held once, as the first asked for it.
		add := func(names []string, kind uint8) {
			for _, n := range names {
				if p, _ := sp.pos(n); p < 0 {
					sp.fields = append(sp.fields, field{name: n, kind: kind})
				}
			}
		}
		add(k.Str, kStr)
		add(k.Num, kNum)
		add(k.IDs, kID)
		if k.Skip[0] != "" {
			if p, kind := sp.pos(k.Skip[0]); p >= 0 && kind == kStr {
				sp.skip, sp.skipK, sp.skipV = p, []byte(`"`+k.Skip[0]+`":`), k.Skip[1]
				sp.skipS = []byte(`"` + k.Skip[0] + `":"` + k.Skip[1] + `"`)
			}
		}
	}
	return ix
}

// unskipped is an empty index keeping what ix keeps, skipping nothing:
// for one record ix would skip.
func (ix *Index) unskipped() *Index {
	one := &Index{specs: map[string]*spec{}, strIdx: map[string]int32{}, budget: ix.budget}
	one.intern("")
	for _, name := range slices.Sorted(maps.Keys(ix.specs)) {
		sp := ix.specs[name]
		c := &spec{typ: one.intern(name), fields: sp.fields, skip: -1}
		one.specs[name] = c
		for int(c.typ) >= len(one.byTyp) {
			one.byTyp = append(one.byTyp, nil)
		}
		one.byTyp[c.typ] = c
	}
	return one
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
	// A skipped record is most of a big run's: one search decides it,
	// before the scan of every member.
	if sp.skip >= 0 {
		if bytes.HasSuffix(bytes.TrimSuffix(payload, []byte("}")), sp.skipS) {
			return
		}
		if v, ok := jsonmember.FindKey(payload, sp.skipK); ok && string(unquote(v)) == sp.skipV {
			return
		}
	}
	var raw [8][]byte
	if !scanMembers(payload, sp.fields, raw[:]) {
		return
	}
	e := entry{line: line, step: step, at: at, host: host, typ: sp.typ, off: int32(len(ix.vals)), n: int32(len(sp.fields))}
	for i, f := range sp.fields {
		ix.vals = append(ix.vals, ix.value(raw[i], f.kind))
	}
	ix.ents = append(ix.ents, e)
	if ix.bytes() > ix.budget {
		ix.forgetHalf()
	}
}

// scanMembers reads payload's top-level members once, left to right, and
// puts the raw value of each wanted field in raw (by the field's place);
// false for a payload it cannot read. One pass over the record, not a
// search per field: the session feeds every record of a run through it.
func scanMembers(payload []byte, fields []field, raw [][]byte) bool {
	if len(fields) > len(raw) {
		return false
	}
	b := payload
	if len(b) > 0 && b[0] == '{' {
		b = b[1:]
	}
	for len(b) > 0 {
		if b[0] == ',' {
			b = b[1:]
			continue
		}
		if b[0] != '"' {
			return len(b) == 0 || b[0] == '}'
		}
		k := bytes.IndexByte(b[1:], '"')
		if k < 0 || len(b) < k+3 || b[k+2] != ':' {
			return false
		}
		name := b[1 : k+1]
		v := b[k+3:]
		n := valueLen(v)
		if n < 0 {
			return false
		}
		for i := range fields {
			if fields[i].name == string(name) {
				raw[i] = v[:n]
				break
			}
		}
		b = v[n:]
	}
	return true
}

// valueLen is the length of the JSON value v starts with, as detsim
// writes values (strings without escaped quotes, flat arrays), -1 if it
// cannot tell.
func valueLen(v []byte) int {
	if len(v) == 0 {
		return -1
	}
	switch v[0] {
	case '"':
		for i := 1; i < len(v); i++ {
			switch v[i] {
			case '\\':
				i++
			case '"':
				return i + 1
			}
		}
		return -1
	case '[', '{':
		depth := 0
		for i := 0; i < len(v); i++ {
			switch v[i] {
			case '[', '{':
				depth++
			case ']', '}':
				if depth--; depth == 0 {
					return i + 1
				}
			case '"':
				n := valueLen(v[i:])
				if n < 0 {
					return -1
				}
				i += n - 1
			}
		}
		return -1
	}
	for i := 0; i < len(v); i++ {
		if v[i] == ',' || v[i] == '}' || v[i] == ']' {
			return i
		}
	}
	return len(v)
}

func unquote(v []byte) []byte {
	if len(v) >= 2 && v[0] == '"' {
		return v[1 : len(v)-1]
	}
	return v
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
	ents := make([]entry, len(ix.ents)-h, len(ix.ents)-h+len(ix.ents)/4+16)
	copy(ents, ix.ents[h:])
	for i := range ents {
		ents[i].off -= base
	}
	vals := make([]int64, len(ix.vals)-int(base), len(ix.vals)-int(base)+len(ix.vals)/4+16)
	copy(vals, ix.vals[base:])
	ix.ents, ix.vals = ents, vals
}

// value reads member f of payload; absent or unreadable is 0 (and 0,
// the empty string, for a string).
// value is one member's raw value as the index holds it: absent or
// unreadable is 0 (and 0 is the empty string).
func (ix *Index) value(v []byte, kind uint8) int64 {
	if len(v) == 0 {
		return 0
	}
	if kind == kNum {
		n, _ := jsonmember.Int(v)
		return n
	}
	if len(v) < 2 || v[0] != '"' {
		return 0
	}
	s := v[1 : len(v)-1]
	if kind == kID {
		// "host#n": the host interned, the counter beside it, so a run's
		// hundred thousand message ids do not each become a string.
		if k := bytes.LastIndexByte(s, '#'); k > 0 {
			if n, ok := jsonmember.Int(s[k+1:]); ok && n >= 0 && n < 1<<31 {
				return int64(ix.internBytes(s[:k]))<<32 | n
			}
		}
		return -int64(ix.internBytes(s)) - 1 // an id that is not host#n: negative, kept whole
	}
	return int64(ix.internBytes(s))
}

// splitLine finds a line's event type, payload and host_id (nil for
// null) as detsim writes lines (docs/events.md): the envelope's members
// in their fixed order are read left to right, once; anything else falls
// back to searching for the keys.
func splitLine(b []byte) (typ, payload, host []byte, ok bool) {
	if rest, found := bytes.CutPrefix(b, timeKey); found {
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if rest, found = bytes.CutPrefix(rest[i:], hostKey); found {
			n := valueLen(rest)
			if n > 0 {
				if rest[0] == '"' {
					host = rest[1 : n-1]
				}
				if rest, found = bytes.CutPrefix(rest[n:], kindKey); found {
					if n = valueLen(rest); n > 0 {
						if rest, found = bytes.CutPrefix(rest[n:], eventKey); found {
							return typeOf(rest, host)
						}
					}
				}
			}
		}
	}
	i := bytes.Index(b, eventKey)
	if i < 0 {
		return nil, nil, nil, false
	}
	host = nil
	if h := bytes.Index(b[:i], hostKey); h >= 0 {
		v := b[h+len(hostKey) : i]
		if len(v) >= 2 && v[0] == '"' {
			if k := bytes.IndexByte(v[1:], '"'); k >= 0 {
				host = v[1 : k+1]
			}
		}
	}
	return typeOf(b[i+len(eventKey):], host)
}

// typeOf reads the event object at the start of rest (the envelope's
// closing brace and newline after it).
func typeOf(rest, host []byte) (typ, payload, h []byte, ok bool) {
	payload = bytes.TrimRight(rest, "\n")
	if len(payload) == 0 || payload[len(payload)-1] != '}' {
		return nil, nil, nil, false
	}
	payload = payload[:len(payload)-1]
	if !bytes.HasPrefix(payload, typeKey) {
		return nil, nil, nil, false
	}
	t := payload[len(typeKey):]
	j := bytes.IndexByte(t, '"')
	if j < 0 {
		return nil, nil, nil, false
	}
	return t[:j], payload, host, true
}

var (
	timeKey  = []byte(`{"virtual_time_ns":`)
	hostKey  = []byte(`,"host_id":`)
	kindKey  = []byte(`,"kind_tag":`)
	eventKey = []byte(`,"event":`)
	typeKey  = []byte(`{"type":"`)
)
