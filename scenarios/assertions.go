package scenarios

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// ParamType is the shape of one assertion parameter, and so the Go type
// its value has in Assertion.Params.
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
	// ParamPeers is a non-empty []any of distinct declared peer ids
	// (strings).
	ParamPeers
	// ParamString is a non-empty string (an event type, a message kind).
	ParamString
)

// ParamDefault says what the loader writes into Params when an optional
// parameter is omitted, so the evaluator always finds every parameter.
type ParamDefault uint8

const (
	// Required parameters have no default: omitting one is an error.
	Required ParamDefault = iota
	// DefaultRunStart is int64(0).
	DefaultRunStart
	// DefaultRunEnd is the scenario's duration_ns.
	DefaultRunEnd
	// DefaultAllPeers is every declared peer id, sorted, as []any.
	DefaultAllPeers
)

// Param is one parameter of an assertion kind.
type Param struct {
	Key     string
	Type    ParamType
	Default ParamDefault
}

// AssertionKind is one §10.1 assertion kind and its parameter shape. This
// table is the single definition of what an assertion's parameters are:
// the loader validates against it, the evaluator reads Params by it.
type AssertionKind struct {
	Kind   string
	Params []Param
	// Window names a pair of ParamTime keys that must satisfy
	// start ≤ end, or is empty.
	Window [2]string
}

// The §10.1 parameter `kind` is `event_type` (event_count, event_rate) or
// `message_kind` (message_size_bounded): `kind` already names the
// assertion kind in the [[assertions]] table (DESIGN §4).
var assertionKinds = []AssertionKind{
	{Kind: "all_alive_at", Params: []Param{
		{"at_ns", ParamTime, Required},
		{"peers", ParamPeers, DefaultAllPeers},
	}},
	{Kind: "all_alive_throughout", Window: [2]string{"window_start_ns", "window_end_ns"}, Params: []Param{
		{"window_start_ns", ParamTime, DefaultRunStart},
		{"window_end_ns", ParamTime, DefaultRunEnd},
		{"peers", ParamPeers, DefaultAllPeers},
	}},
	{Kind: "convergence_after", Params: []Param{
		{"after_ns", ParamTime, Required},
		{"within_ns", ParamTime, Required},
		{"peers", ParamPeers, DefaultAllPeers},
	}},
	{Kind: "no_flap_while_probes_ok", Window: [2]string{"window_start_ns", "window_end_ns"}, Params: []Param{
		{"peer", ParamPeer, Required},
		{"window_start_ns", ParamTime, DefaultRunStart},
		{"window_end_ns", ParamTime, DefaultRunEnd},
	}},
	{Kind: "no_dead_when_probes_ok", Window: [2]string{"window_start_ns", "window_end_ns"}, Params: []Param{
		{"peer", ParamPeer, Required},
		{"window_start_ns", ParamTime, DefaultRunStart},
		{"window_end_ns", ParamTime, DefaultRunEnd},
	}},
	{Kind: "self_incarnation_bounded", Params: []Param{
		{"peer", ParamPeer, Required},
		{"max_value", ParamCount, Required},
	}},
	{Kind: "message_size_bounded", Params: []Param{
		{"message_kind", ParamString, Required},
		{"max_bytes", ParamCount, Required},
	}},
	{Kind: "dead_peer_resurrects_within", Params: []Param{
		{"peer", ParamPeer, Required},
		{"after_ns", ParamTime, Required},
		{"within_ns", ParamTime, Required},
	}},
	{Kind: "event_count", Params: []Param{
		{"event_type", ParamString, Required},
		{"max", ParamCount, Required},
	}},
	{Kind: "event_rate", Params: []Param{
		{"event_type", ParamString, Required},
		{"window_ns", ParamSpan, Required},
		{"max_per_window", ParamCount, Required},
	}},
}

// AssertionKinds returns the §10.1 catalog in spec order.
func AssertionKinds() []AssertionKind {
	out := slices.Clone(assertionKinds)
	for i := range out {
		out[i].Params = slices.Clone(out[i].Params)
	}
	return out
}

// LookupAssertionKind returns the catalog entry for kind.
func LookupAssertionKind(kind string) (AssertionKind, bool) {
	for _, k := range assertionKinds {
		if k.Kind == kind {
			k.Params = slices.Clone(k.Params)
			return k, true
		}
	}
	return AssertionKind{}, false
}

func assertionKindNames() string {
	names := make([]string, len(assertionKinds))
	for i, k := range assertionKinds {
		names[i] = k.Kind
	}
	return strings.Join(names, ", ")
}

// IntParam returns the ParamTime, ParamSpan or ParamCount parameter key
// (0 if absent: the loader guarantees every catalog parameter is present).
func (a Assertion) IntParam(key string) int64 {
	v, _ := a.Params[key].(int64)
	return v
}

// StringParam returns the ParamPeer or ParamString parameter key.
func (a Assertion) StringParam(key string) string {
	v, _ := a.Params[key].(string)
	return v
}

// PeersParam returns the ParamPeers parameter key as strings.
func (a Assertion) PeersParam(key string) []string {
	arr, _ := a.Params[key].([]any)
	out := make([]string, 0, len(arr))
	for _, e := range arr {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
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
	kind, known := LookupAssertionKind(tag)
	if !known {
		f.add("kind", "unknown assertion kind %q (one of: %s)", tag, assertionKindNames())
		return a
	}
	allowed := []string{"kind", "name"}
	for _, p := range kind.Params {
		allowed = append(allowed, p.Key)
	}
	f.checkKeys(allowed...)

	a.Params = make(map[string]any, len(kind.Params))
	for _, p := range kind.Params {
		if v, ok := c.param(f, p); ok {
			a.Params[p.Key] = v
		}
	}
	if w := kind.Window; w[0] != "" {
		start, okS := a.Params[w[0]].(int64)
		end, okE := a.Params[w[1]].(int64)
		if okS && okE && end < start {
			f.add(w[1], "window ends (%d) before it starts (%s = %d)", end, w[0], start)
		}
	}
	return a
}

// param reads one catalog parameter, or its default when omitted.
func (c *checker) param(f fields, p Param) (any, bool) {
	if !f.has(p.Key) {
		switch p.Default {
		case DefaultRunStart:
			return int64(0), true
		case DefaultRunEnd:
			return c.duration, c.duration > 0
		case DefaultAllPeers:
			all := make([]any, len(c.ids))
			for i, id := range c.ids {
				all[i] = id
			}
			return all, true
		}
		f.add(p.Key, "missing (required by %s)", f.tbl["kind"])
		return nil, false
	}
	switch p.Type {
	case ParamTime:
		return c.atTime(f, p.Key, true)
	case ParamSpan:
		v, ok := f.integer(p.Key, 1, MaxTimeNs, true)
		if ok && c.duration > 0 && v > c.duration {
			f.add(p.Key, "%d is longer than the run (duration_ns = %d)", v, c.duration)
			return nil, false
		}
		return v, ok
	case ParamCount:
		return f.integer(p.Key, 0, math.MaxInt64, true)
	case ParamPeer:
		return c.peerRef(f, p.Key)
	case ParamPeers:
		ids, ok := c.peerList(f, p.Key, true)
		all := make([]any, len(ids))
		for i, id := range ids {
			all[i] = id
		}
		return all, ok
	case ParamString:
		return f.str(p.Key, true)
	}
	panic(fmt.Sprintf("scenarios: assertion parameter %q has no type", p.Key))
}
