package debugger

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/detsim/detsim/engine"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/natsort"
	"github.com/detsim/detsim/internal/suggest"
	"github.com/detsim/detsim/scenarios"
)

// Schema is what a breakpoint or a search may name in one scenario: its
// event types and each type's fields, its hosts and its assertions. The
// types and fields come from the prototypes each host kind registers
// (hosts.Records) and the engine's (engine.EventPrototypes): the one
// place they are named, so a check here cannot drift from the records.
type Schema struct {
	fields     map[string][]string      // event type → its members after "type"
	numeric    map[string]bool          // "type.field" → the member is a number in the prototype
	types      []string                 // sorted
	allFields  []string                 // every member of every type, sorted
	hosts      []string                 // natural order
	assertions []string                 // declaration order
	kinds      map[string]string        // host → its kind's tag
	watches    map[string][]hosts.Watch // host → the values its kind declares watchable
}

// envelopeKeys are the condition keys every record has.
var envelopeKeys = []string{"type", "host", "time", "step"}

// NewSchema builds the schema of sc's run: the engine's records and those
// of every host kind sc declares.
func NewSchema(sc *scenarios.Scenario, reg *hosts.Registry) *Schema {
	s := &Schema{fields: map[string][]string{}, numeric: map[string]bool{}, kinds: map[string]string{}, watches: map[string][]hosts.Watch{}}
	protos := engine.EventPrototypes()
	seen := map[string]bool{}
	for _, p := range sc.Peers {
		s.hosts = append(s.hosts, p.ID)
		s.kinds[p.ID] = p.Kind
		k, ok := reg.Lookup(p.Kind)
		if ok {
			s.watches[p.ID] = hosts.WatchesOf(k)
		}
		if seen[p.Kind] || !ok {
			continue
		}
		seen[p.Kind] = true
		protos = append(protos, hosts.EventsOf(k)...)
	}
	s.hosts = natsort.Sorted(s.hosts)
	all := map[string]bool{}
	for _, p := range protos {
		t := p.Type()
		for _, m := range members(p.AppendJSON(nil)) {
			f := m.name
			if m.number {
				s.numeric[t+"."+f] = true
			}
			if f == "type" || slices.Contains(s.fields[t], f) {
				continue
			}
			s.fields[t] = append(s.fields[t], f)
			all[f] = true
		}
		if _, ok := s.fields[t]; !ok {
			s.fields[t] = nil
		}
	}
	s.types = slices.Sorted(maps.Keys(s.fields))
	s.allFields = slices.Sorted(maps.Keys(all))
	for _, a := range sc.Assertions {
		s.assertions = append(s.assertions, a.Name)
	}
	return s
}

// memberInfo is one top-level member of a prototype: its name, and
// whether its value is a number (what an ordering compares).
type memberInfo struct {
	name   string
	number bool
}

// members lists an object's top-level members in order.
func members(b []byte) []memberInfo {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var out []memberInfo
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return out
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return out
		}
		c := byte(0)
		if len(v) > 0 {
			c = v[0]
		}
		out = append(out, memberInfo{name: k, number: c == '-' || c >= '0' && c <= '9'})
	}
	return out
}

// Types lists the event types of the run, sorted.
func (s *Schema) Types() []string { return s.types }

// Fields lists type t's members after "type", in record order.
func (s *Schema) Fields(t string) []string { return s.fields[t] }

// Hosts lists the run's hosts in natural order.
func (s *Schema) Hosts() []string { return s.hosts }

// Assertions lists the scenario's assertions in declaration order.
func (s *Schema) Assertions() []string { return s.assertions }

// Check rejects a breakpoint that names an assertion, event type, host or
// field the run does not have, naming the valid ones; a typo is caught
// when the breakpoint is set, not by its never firing.
func (s *Schema) Check(b Breakpoint) error {
	switch b.Kind {
	case BreakFail:
		if b.Arg != "" && !slices.Contains(s.assertions, b.Arg) {
			return fmt.Errorf("breakpoint %s: no assertion %q%s (assertions: %s)", b, b.Arg, didYouMean(b.Arg, s.assertions), list(s.assertions))
		}
	case BreakHost:
		if !slices.Contains(s.hosts, b.Arg) {
			return fmt.Errorf("breakpoint %s: no host %q%s (hosts: %s)", b, b.Arg, didYouMean(b.Arg, s.hosts), list(s.hosts))
		}
	case BreakRecord:
		if err := s.CheckQuery(b.Query); err != nil {
			return fmt.Errorf("breakpoint %s: %w", b, err)
		}
	}
	return nil
}

// CheckQuery rejects conditions on a type, host or field the run does not
// have, naming the valid ones and the nearest ("did you mean"). A field
// must belong to the type named (or, with no type named, to some type),
// and an ordering (< <= > >=) must compare a number: a member the
// prototypes write as a number, or time and step.
func (s *Schema) CheckQuery(q Query) error {
	typ := ""
	for _, c := range q.Conds {
		switch c.Key {
		case "type":
			if _, ok := s.fields[c.Val]; !ok {
				return fmt.Errorf("no event type %q%s (types: %s)", c.Val, didYouMean(c.Val, s.types), list(s.types))
			}
			if c.Op == OpEq {
				typ = c.Val
			}
		case "host":
			if c.Val != "-" && !slices.Contains(s.hosts, c.Val) {
				return fmt.Errorf("no host %q%s (hosts: %s)", c.Val, didYouMean(c.Val, s.hosts), list(s.hosts))
			}
		}
	}
	for _, c := range q.Conds {
		if slices.Contains(envelopeKeys, c.Key) {
			continue
		}
		if c.Op.ordered() && s.numericSomewhere(c.Key) {
			if _, ok := number(c.Val); !ok {
				return fmt.Errorf("%s: %s compares numbers, and %q is not one", c, c.Op, c.Val)
			}
		}
		if typ != "" {
			if !slices.Contains(s.fields[typ], c.Key) {
				return fmt.Errorf("%s has no field %q%s (fields of %s: %s)", typ, c.Key, didYouMean(c.Key, s.fields[typ]), typ, list(append(slices.Clone(envelopeKeys), s.fields[typ]...)))
			}
			if c.Op.ordered() && !s.numeric[typ+"."+c.Key] {
				return fmt.Errorf("%s: %s of %s is not a number; %s compares numbers (use = or !=)", c, c.Key, typ, c.Op)
			}
			continue
		}
		if !slices.Contains(s.allFields, c.Key) {
			return fmt.Errorf("no event has a field %q%s (fields: %s)", c.Key, didYouMean(c.Key, s.allFields), list(append(slices.Clone(envelopeKeys), s.allFields...)))
		}
		if c.Op.ordered() && !s.numericSomewhere(c.Key) {
			return fmt.Errorf("%s: %s is not a number in any event; %s compares numbers (use = or !=)", c, c.Key, c.Op)
		}
	}
	return nil
}

// numericSomewhere reports whether some event type writes field as a
// number.
func (s *Schema) numericSomewhere(field string) bool {
	for _, t := range s.types {
		if s.numeric[t+"."+field] {
			return true
		}
	}
	return false
}

// Numeric reports whether field of event type t is a number.
func (s *Schema) Numeric(t, field string) bool { return s.numeric[t+"."+field] }

// didYouMean is ": did you mean "x"?" for the name nearest to what was
// typed, or "".
func didYouMean(typed string, names []string) string {
	if n := suggest.Near(typed, names); n != "" {
		return fmt.Sprintf(": did you mean %q?", n)
	}
	return ""
}

// list joins names for an error message, eliding a long tail.
func list(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	const most = 24
	if len(names) > most {
		return strings.Join(names[:most], ", ") + fmt.Sprintf(", … (%d in all)", len(names))
	}
	return strings.Join(names, ", ")
}
