package scenarios

import (
	"fmt"
	"reflect"

	"github.com/detsim/detsim/hosts"
)

// AssertionParams is one assertion's parameters, typed: a value of the
// parameter struct of its kind (hosts.AssertionParams). The core's own
// kind-agnostic kinds are declared here (EventCount, EventRate); every
// other kind is declared by the host kind it judges (hosts.Oracle), and
// the loader finds it through the registry.
type AssertionParams = hosts.AssertionParams

// EventCount is event_count { event_type, max } (§10.1's `kind`, renamed).
type EventCount struct {
	EventType string
	Max       int64
}

// EventRate is event_rate { event_type, window_ns, max_per_window }.
type EventRate struct {
	EventType    string
	WindowNs     int64
	MaxPerWindow int64
}

func (p *EventCount) Bind() []hosts.Slot {
	return []hosts.Slot{hosts.StringParam("event_type", &p.EventType), hosts.CountParam("max", &p.Max)}
}

func (p *EventRate) Bind() []hosts.Slot {
	return []hosts.Slot{hosts.StringParam("event_type", &p.EventType), hosts.SpanParam("window_ns", &p.WindowNs), hosts.CountParam("max_per_window", &p.MaxPerWindow)}
}

func (EventCount) Kind() string { return "event_count" }
func (EventRate) Kind() string  { return "event_rate" }

func (p EventCount) Slots() []hosts.Slot { return p.Bind() }
func (p EventRate) Slots() []hosts.Slot  { return p.Bind() }

// Family is nil: the core judges its own kinds (bundle/verdict).
func (EventCount) Family() *hosts.Assertions { return nil }
func (EventRate) Family() *hosts.Assertions  { return nil }

// coreKinds are the assertion kinds the core judges itself, the
// kind-agnostic ones (§10.1's `kind` parameter of event_count and
// event_rate is `event_type`: `kind` already names the assertion kind in
// the [[assertions]] table, DESIGN §4). Every other kind is its host
// kind's (the agent family's oracles: kinds/agent/agentcheck).
var coreKinds = []hosts.AssertionKind{
	hosts.Def[EventCount](hosts.NoPair, hosts.NoPair),
	hosts.Def[EventRate](hosts.NoPair, hosts.NoPair),
}

// ParamMap returns the assertion's parameters as verdicts.json's
// "parameters" object (spec §10.2): every key of its kind, each an int64,
// a string or a []string. It is nil when a has no parameters.
func (a Assertion) ParamMap() map[string]any {
	if a.Params == nil {
		return nil
	}
	ss := a.Params.Slots()
	m := make(map[string]any, len(ss))
	for _, s := range ss {
		if s.Default == hosts.DefaultOff && s.Num() == 0 {
			continue // an optional bound left off: as before it existed
		}
		m[s.Key] = s.Value()
	}
	return m
}

// ParamError is a code-built assertion parameter that no scenario could
// hold (see Assertion.Check).
type ParamError = hosts.ParamError

// Check reports the first parameter of a that cannot be interpreted
// whatever the scenario: a negative time or count, window_ns 0, an empty
// peer, event type, message kind or peer list, a window ending before it
// starts, an after_ns + within_ns that overflows an int64. It returns a
// *ParamError, or an error naming a missing or mismatched Params (a
// pointer to one of the structs is a mismatch: they are held by value).
//
// Every assertion the loader returns passes Check: the loader's own
// checks (bounds by duration_ns, declared peers) are stricter. Check is
// for assertions built in code, which the loader never saw. Peers may be
// repeated: the evaluator treats peers as a set.
func (a Assertion) Check() error {
	if a.Params == nil {
		return fmt.Errorf("no parameters")
	}
	if reflect.ValueOf(a.Params).Kind() == reflect.Pointer {
		// Its methods would run on a pointer that may be nil.
		return fmt.Errorf("parameters of type %T, want a value of one of the kinds' structs", a.Params)
	}
	k, ok := declaration(a.Params)
	if !ok {
		return fmt.Errorf("parameters of type %T, want a value of one of the kinds' structs", a.Params)
	}
	if k.Name != a.Kind {
		return fmt.Errorf("parameters are %s's", k.Name)
	}
	return k.Check(a.Params)
}

// declaration is the kind declaring p's struct: the core's, or p's
// family's.
func declaration(p AssertionParams) (hosts.AssertionKind, bool) {
	kinds := coreKinds
	if f := p.Family(); f != nil {
		kinds = f.Kinds
	}
	for _, k := range kinds {
		if k.Holds(p) {
			return k, true
		}
	}
	return hosts.AssertionKind{}, false
}
