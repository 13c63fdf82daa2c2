package scenarios

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/detsim/detsim/hosts"
)

// These alias lists have the shape of raftseam's (a name = pkg.Name a
// line), on purpose: they re-export hosts' vocabulary, no logic.

// The parameter vocabulary is hosts' (hosts/assert.go): a kind declares
// its assertions' parameters with it, and the loader decodes by it.
type (
	ParamType    = hosts.ParamType
	ParamDefault = hosts.ParamDefault
	Param        = hosts.Param
)

// The parameter shapes and defaults (hosts.ParamType, hosts.ParamDefault).
const (
	ParamTime   = hosts.ParamTime
	ParamSpan   = hosts.ParamSpan
	ParamCount  = hosts.ParamCount
	ParamPeer   = hosts.ParamPeer
	ParamPeers  = hosts.ParamPeers
	ParamString = hosts.ParamString

	Required        = hosts.Required
	DefaultRunStart = hosts.DefaultRunStart
	DefaultRunEnd   = hosts.DefaultRunEnd
	DefaultAllPeers = hosts.DefaultAllPeers
	DefaultOff      = hosts.DefaultOff
)

// AssertionKind is one assertion kind and its parameter shape, as its
// parameter struct defines it (the loader decodes by the same
// definition, so the two cannot differ).
type AssertionKind struct {
	Kind   string
	Params []Param
	// Window names a pair of ParamTime keys that must satisfy
	// start ≤ end, or is empty.
	Window [2]string
	// Host is the tag of the host kind declaring it; "" for the core's.
	Host string
}

func describeKind(k hosts.AssertionKind, host string) AssertionKind {
	return AssertionKind{Kind: k.Name, Params: k.Params(), Window: k.Window, Host: host}
}

// AssertionKinds returns the catalog: each registered host kind's
// assertion kinds, in tag order, then the core's.
func AssertionKinds(reg *hosts.Registry) []AssertionKind {
	var out []AssertionKind
	for _, hk := range reg.Kinds() {
		if a := hosts.AssertionsOf(hk); a != nil {
			for _, k := range a.Kinds {
				out = append(out, describeKind(k, hk.Tag()))
			}
		}
	}
	for _, k := range coreKinds {
		out = append(out, describeKind(k, ""))
	}
	return out
}

// LookupAssertionKind returns the catalog entry for kind.
func LookupAssertionKind(reg *hosts.Registry, kind string) (AssertionKind, bool) {
	k, host, ok := lookupDef(reg, kind)
	if !ok {
		return AssertionKind{}, false
	}
	return describeKind(k, host), true
}

// lookupDef finds the declaration of the assertion kind named kind and
// the tag of the host kind declaring it ("" for the core's).
func lookupDef(reg *hosts.Registry, kind string) (hosts.AssertionKind, string, bool) {
	for _, k := range coreKinds {
		if k.Name == kind {
			return k, "", true
		}
	}
	if k, hk, ok := reg.Assertion(kind); ok {
		return k, hk.Tag(), true
	}
	return hosts.AssertionKind{}, "", false
}

func assertionKindNames(reg *hosts.Registry) string {
	var names []string
	for _, k := range AssertionKinds(reg) {
		names = append(names, k.Kind)
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
	d, _, known := lookupDef(c.reg, tag)
	if !known {
		f.add("kind", "unknown assertion kind %q (one of: %s)", tag, assertionKindNames(c.reg))
		return a
	}
	slots, value := d.Fresh()
	allowed := []string{"kind", "name"}
	for _, s := range slots {
		allowed = append(allowed, s.Key)
	}
	f.checkKeys(allowed...)

	read := make([]bool, len(slots))
	for i, s := range slots {
		read[i] = c.param(f, s)
	}
	if w := d.Window; w[0] != "" {
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
func numSlot(slots []hosts.Slot, read []bool, key string) (int64, bool) {
	for i, s := range slots {
		if s.Key == key {
			return s.Num(), read[i]
		}
	}
	return 0, false
}

// param reads one parameter into its slot, or its default when omitted,
// and says whether it did (an error was reported otherwise).
func (c *checker) param(f fields, s hosts.Slot) bool {
	if !f.has(s.Key) {
		switch s.Default {
		case DefaultRunStart, DefaultOff:
			s.SetNum(0)
			return true
		case DefaultRunEnd:
			s.SetNum(c.duration)
			return c.duration > 0
		case DefaultAllPeers:
			s.SetIDs(slices.Clone(c.ids))
			return true
		}
		f.add(s.Key, "missing (required by %s)", f.tbl["kind"])
		return false
	}
	var ok bool
	var num int64
	var text string
	var ids []string
	switch s.Type {
	case ParamTime:
		num, ok = c.atTime(f, s.Key, true)
	case ParamSpan:
		num, ok = f.integer(s.Key, 1, MaxTimeNs, true)
		if ok && c.duration > 0 && num > c.duration {
			f.add(s.Key, "%d is longer than the run (duration_ns = %d)", num, c.duration)
			ok = false
		}
	case ParamCount:
		num, ok = f.integer(s.Key, 0, math.MaxInt64, true)
	case ParamPeer:
		text, ok = c.peerRef(f, s.Key)
	case ParamPeers:
		ids, ok = c.peerList(f, s.Key, true)
	case ParamString:
		text, ok = f.str(s.Key, true)
	default:
		panic(fmt.Sprintf("scenarios: assertion parameter %q has no type", s.Key))
	}
	switch s.Type {
	case ParamTime, ParamSpan, ParamCount:
		s.SetNum(num)
	case ParamPeer, ParamString:
		s.SetText(text)
	default:
		s.SetIDs(ids)
	}
	return ok
}
