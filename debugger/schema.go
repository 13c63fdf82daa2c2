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
	"github.com/detsim/detsim/scenarios"
)

// Schema is what a breakpoint or a search may name in one scenario: its
// event types and each type's fields, its hosts and its assertions. The
// types and fields come from the prototypes each host kind registers
// (hosts.Kind.Events) and the engine's (engine.EventPrototypes): the one
// place they are named, so a check here cannot drift from the records.
type Schema struct {
	fields     map[string][]string // event type → its members after "type"
	types      []string            // sorted
	allFields  []string            // every member of every type, sorted
	hosts      []string            // natural order
	assertions []string            // declaration order
}

// envelopeKeys are the condition keys every record has.
var envelopeKeys = []string{"type", "host", "time", "step"}

// NewSchema builds the schema of sc's run: the engine's records and those
// of every host kind sc declares.
func NewSchema(sc *scenarios.Scenario, reg *hosts.Registry) *Schema {
	s := &Schema{fields: map[string][]string{}}
	protos := engine.EventPrototypes()
	seen := map[string]bool{}
	for _, p := range sc.Peers {
		s.hosts = append(s.hosts, p.ID)
		if seen[p.Kind] {
			continue
		}
		seen[p.Kind] = true
		if k, ok := reg.Lookup(p.Kind); ok {
			protos = append(protos, k.Events...)
		}
	}
	s.hosts = natsort.Sorted(s.hosts)
	all := map[string]bool{}
	for _, p := range protos {
		t := p.Type()
		for _, f := range memberNames(p.AppendJSON(nil)) {
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

// memberNames lists an object's top-level member names in order.
func memberNames(b []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var out []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return out
		}
		k, _ := t.(string)
		out = append(out, k)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return out
		}
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
			return fmt.Errorf("breakpoint %s: no assertion %q (assertions: %s)", b, b.Arg, list(s.assertions))
		}
	case BreakHost:
		if !slices.Contains(s.hosts, b.Arg) {
			return fmt.Errorf("breakpoint %s: no host %q (hosts: %s)", b, b.Arg, list(s.hosts))
		}
	case BreakRecord:
		if err := s.CheckQuery(b.Query); err != nil {
			return fmt.Errorf("breakpoint %s: %w", b, err)
		}
	}
	return nil
}

// CheckQuery rejects conditions on a type, host or field the run does not
// have. A field must belong to the type named (or, with no type named, to
// some type).
func (s *Schema) CheckQuery(q Query) error {
	typ := ""
	for _, c := range q.Conds {
		switch c.Key {
		case "type":
			if _, ok := s.fields[c.Val]; !ok {
				return fmt.Errorf("no event type %q (types: %s)", c.Val, list(s.types))
			}
			typ = c.Val
		case "host":
			if c.Val != "-" && !slices.Contains(s.hosts, c.Val) {
				return fmt.Errorf("no host %q (hosts: %s)", c.Val, list(s.hosts))
			}
		}
	}
	for _, c := range q.Conds {
		if slices.Contains(envelopeKeys, c.Key) {
			continue
		}
		if typ != "" {
			if !slices.Contains(s.fields[typ], c.Key) {
				return fmt.Errorf("%s has no field %q (fields of %s: %s)", typ, c.Key, typ, list(append(slices.Clone(envelopeKeys), s.fields[typ]...)))
			}
			continue
		}
		if !slices.Contains(s.allFields, c.Key) {
			return fmt.Errorf("no event has a field %q (fields: %s)", c.Key, list(append(slices.Clone(envelopeKeys), s.allFields...)))
		}
	}
	return nil
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
