package scenarios

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// ParamType is the shape of one assertion parameter, and so the Go type
// of its field in the kind's AssertionParams struct.
type ParamType uint8

const (
	// ParamTime is an instant or a duration in virtual ns, an int64 in
	// [0, duration_ns].
	ParamTime ParamType = iota + 1
	// ParamSpan is a window length in virtual ns, an int64 in
	// [1, duration_ns].
	ParamSpan
	// ParamCount is a bound on a count, a size or an incarnation, an
	// int64 ≥ 0.
	ParamCount
	// ParamPeer is one declared peer id, a string.
	ParamPeer
	// ParamPeers is a non-empty []string of distinct declared peer ids.
	ParamPeers
	// ParamString is a non-empty string (an event type, a message kind).
	ParamString
)

// ParamDefault says what the loader writes into the parameter's field
// when an optional parameter is omitted, so the evaluator always finds
// every parameter.
type ParamDefault uint8

const (
	// Required parameters have no default: omitting one is an error.
	Required ParamDefault = iota
	// DefaultRunStart is int64(0).
	DefaultRunStart
	// DefaultRunEnd is the scenario's duration_ns.
	DefaultRunEnd
	// DefaultAllPeers is every declared peer id, sorted.
	DefaultAllPeers
	// DefaultOff is int64(0), which the kind reads as "no such bound"
	// (a ParamSpan that, when given, is at least 1). Omitted, it is left
	// out of verdicts.json's parameters, so adding one to a kind changes
	// no existing verdict file.
	DefaultOff
)

// Param is one parameter of an assertion kind.
type Param struct {
	Key     string
	Type    ParamType
	Default ParamDefault
}

// AssertionKind is one §10.1 assertion kind and its parameter shape, as
// its AssertionParams struct defines it (the loader decodes by the same
// definition, so the two cannot differ).
type AssertionKind struct {
	Kind   string
	Params []Param
	// Window names a pair of ParamTime keys that must satisfy
	// start ≤ end, or is empty.
	Window [2]string
}

func (d kindDef) describe() AssertionKind {
	ss, _ := d.fresh()
	k := AssertionKind{Kind: d.kind, Window: d.window, Params: make([]Param, len(ss))}
	for i, s := range ss {
		k.Params[i] = s.Param
	}
	return k
}

// AssertionKinds returns the §10.1 catalog in spec order.
func AssertionKinds() []AssertionKind {
	out := make([]AssertionKind, len(kindDefs))
	for i, d := range kindDefs {
		out[i] = d.describe()
	}
	return out
}

// LookupAssertionKind returns the catalog entry for kind.
func LookupAssertionKind(kind string) (AssertionKind, bool) {
	d, ok := lookupDef(kind)
	if !ok {
		return AssertionKind{}, false
	}
	return d.describe(), true
}

func assertionKindNames() string {
	names := make([]string, len(kindDefs))
	for i, d := range kindDefs {
		names[i] = d.kind
	}
	return strings.Join(names, ", ")
}

// assertions validates [[assertions]] against the catalog, keeping them in
// declared order and filling in defaulted parameters.
func (c *checker) assertions(top fields) {
	entries, _, _ := top.tableArray("assertions")
	firstAt := map[string]int{}
	var out []Assertion
	for i, e := range entries {
		label := entryLabel("assertions", "", i)
		name, nameOK := e["name"].(string)
		if nameOK && name != "" {
			if j, dup := firstAt[name]; dup {
				c.r.add(label+".name", "duplicate assertion name %q (first declared as assertions[#%d])", name, j)
			} else {
				firstAt[name] = i
				label = entryLabel("assertions", name, i)
			}
		}
		f := fields{r: c.r, prefix: label + ".", tbl: e}
		before := len(*c.r.errs)
		if nameOK && name != "" {
			c.checkName(f, "name", name)
		} else if f.has("name") {
			f.str("name", true) // reports the wrong type or the empty name
		}
		a := c.assertion(f)
		a.Name = name
		if len(*c.r.errs) == before {
			out = append(out, a)
		}
	}
	c.s.Assertions = out
}

func (c *checker) assertion(f fields) Assertion {
	var a Assertion
	tag, ok := f.str("kind", true)
	if !ok {
		return a
	}
	a.Kind = tag
	d, known := lookupDef(tag)
	if !known {
		f.add("kind", "unknown assertion kind %q (one of: %s)", tag, assertionKindNames())
		return a
	}
	slots, value := d.fresh()
	allowed := []string{"kind", "name"}
	for _, s := range slots {
		allowed = append(allowed, s.Key)
	}
	f.checkKeys(allowed...)

	read := make([]bool, len(slots))
	for i, s := range slots {
		read[i] = c.param(f, s)
	}
	if w := d.window; w[0] != "" {
		start, okS := numSlot(slots, read, w[0])
		end, okE := numSlot(slots, read, w[1])
		if okS && okE && end < start {
			f.add(w[1], "window ends (%d) before it starts (%s = %d)", end, w[0], start)
		}
	}
	a.Params = value()
	return a
}

// numSlot returns the integer parameter key if it was read.
func numSlot(slots []slot, read []bool, key string) (int64, bool) {
	for i, s := range slots {
		if s.Key == key {
			return *s.num, read[i]
		}
	}
	return 0, false
}

// param reads one parameter into its slot, or its default when omitted,
// and says whether it did (an error was reported otherwise).
func (c *checker) param(f fields, s slot) bool {
	if !f.has(s.Key) {
		switch s.Default {
		case DefaultRunStart, DefaultOff:
			*s.num = 0
			return true
		case DefaultRunEnd:
			*s.num = c.duration
			return c.duration > 0
		case DefaultAllPeers:
			*s.ids = slices.Clone(c.ids)
			return true
		}
		f.add(s.Key, "missing (required by %s)", f.tbl["kind"])
		return false
	}
	var ok bool
	switch s.Type {
	case ParamTime:
		*s.num, ok = c.atTime(f, s.Key, true)
	case ParamSpan:
		*s.num, ok = f.integer(s.Key, 1, MaxTimeNs, true)
		if ok && c.duration > 0 && *s.num > c.duration {
			f.add(s.Key, "%d is longer than the run (duration_ns = %d)", *s.num, c.duration)
			ok = false
		}
	case ParamCount:
		*s.num, ok = f.integer(s.Key, 0, math.MaxInt64, true)
	case ParamPeer:
		*s.text, ok = c.peerRef(f, s.Key)
	case ParamPeers:
		*s.ids, ok = c.peerList(f, s.Key, true)
	case ParamString:
		*s.text, ok = f.str(s.Key, true)
	default:
		panic(fmt.Sprintf("scenarios: assertion parameter %q has no type", s.Key))
	}
	return ok
}
