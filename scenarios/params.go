package scenarios

import (
	"fmt"
	"reflect"

	"github.com/detsim/detsim/hosts"
)

// AssertionParams is one assertion's parameters, typed: a value of the
// parameter struct of its kind (hosts.AssertionParams). The core's own
// kind-agnostic kinds are declared here (EventCount, EventRate); every
// other kind is declared by the host kind it judges (hosts.Kind's
// Assertions), and the loader finds it through the registry.
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

// The agent family's oracles (issue 15; an amendment to §10.1 written
// in docs/assertions.md). Each names the agent peer it judges.

// EffectOutcomeOnce is effect_outcome_once { peer }: every effect the
// agent starts ends in exactly one outcome of ok, failed, timed_out,
// cancelled.
type EffectOutcomeOnce struct{ Peer string }

// CancelSettlesWithin is cancel_settles_within { peer, within_ns }.
type CancelSettlesWithin struct {
	Peer     string
	WithinNs int64
}

// NoTornSuccess is no_torn_success { peer }: an ok outcome only for a
// stream the provider completed and a tool run the tool committed.
type NoTornSuccess struct{ Peer string }

// NoLostAck is no_lost_ack { peer }: every acknowledged store record is
// in the store every later life recovers.
type NoLostAck struct{ Peer string }

// ToolResultMatched is tool_result_matched { peer }: every tool use gets
// exactly one result.
type ToolResultMatched struct{ Peer string }

// OutputBounded is output_bounded { peer, max_bytes }: no tool result
// enters a request larger than max_bytes.
type OutputBounded struct {
	Peer     string
	MaxBytes int64
}

// RetryBudget is retry_budget { peer, max_attempts }: at most
// max_attempts model calls per turn, no retry after content was
// delivered, none before retry-after elapsed.
type RetryBudget struct {
	Peer        string
	MaxAttempts int64
}

// ResponseBounded is response_bounded { peer, max_bytes }: no model
// response the agent accepts (outcome ok) is larger than max_bytes, as
// the provider measured what it sent.
type ResponseBounded struct {
	Peer     string
	MaxBytes int64
}

// NoCommitAfterSettle is no_commit_after_settle { peer }: no tool goes
// on with a run (a partial write, a commit, a failure of its own) after
// the agent recorded that run as ended otherwise than ok.
type NoCommitAfterSettle struct{ Peer string }

// TurnOutcomeOnce is turn_outcome_once { peer }: every turn the agent
// made a request for (as a provider that reads the conversation records
// it: the HTTP edge) ends in exactly one turn_end.
type TurnOutcomeOnce struct{ Peer string }

func (p *ResponseBounded) Bind() []hosts.Slot {
	return []hosts.Slot{hosts.PeerParam("peer", &p.Peer), hosts.CountParam("max_bytes", &p.MaxBytes)}
}
func (p *NoCommitAfterSettle) Bind() []hosts.Slot {
	return []hosts.Slot{hosts.PeerParam("peer", &p.Peer)}
}
func (p *TurnOutcomeOnce) Bind() []hosts.Slot { return []hosts.Slot{hosts.PeerParam("peer", &p.Peer)} }

func (ResponseBounded) Kind() string     { return "response_bounded" }
func (NoCommitAfterSettle) Kind() string { return "no_commit_after_settle" }
func (TurnOutcomeOnce) Kind() string     { return "turn_outcome_once" }

func (p ResponseBounded) Slots() []hosts.Slot     { return p.Bind() }
func (p NoCommitAfterSettle) Slots() []hosts.Slot { return p.Bind() }
func (p TurnOutcomeOnce) Slots() []hosts.Slot     { return p.Bind() }

func (ResponseBounded) Family() *hosts.Assertions     { return nil }
func (NoCommitAfterSettle) Family() *hosts.Assertions { return nil }
func (TurnOutcomeOnce) Family() *hosts.Assertions     { return nil }

func (p *EffectOutcomeOnce) Bind() []hosts.Slot {
	return []hosts.Slot{hosts.PeerParam("peer", &p.Peer)}
}
func (p *CancelSettlesWithin) Bind() []hosts.Slot {
	return []hosts.Slot{hosts.PeerParam("peer", &p.Peer), hosts.TimeParam("within_ns", hosts.Required, &p.WithinNs)}
}
func (p *NoTornSuccess) Bind() []hosts.Slot { return []hosts.Slot{hosts.PeerParam("peer", &p.Peer)} }
func (p *NoLostAck) Bind() []hosts.Slot     { return []hosts.Slot{hosts.PeerParam("peer", &p.Peer)} }
func (p *ToolResultMatched) Bind() []hosts.Slot {
	return []hosts.Slot{hosts.PeerParam("peer", &p.Peer)}
}
func (p *OutputBounded) Bind() []hosts.Slot {
	return []hosts.Slot{hosts.PeerParam("peer", &p.Peer), hosts.CountParam("max_bytes", &p.MaxBytes)}
}
func (p *RetryBudget) Bind() []hosts.Slot {
	return []hosts.Slot{hosts.PeerParam("peer", &p.Peer), hosts.CountParam("max_attempts", &p.MaxAttempts)}
}

func (EffectOutcomeOnce) Kind() string   { return "effect_outcome_once" }
func (CancelSettlesWithin) Kind() string { return "cancel_settles_within" }
func (NoTornSuccess) Kind() string       { return "no_torn_success" }
func (NoLostAck) Kind() string           { return "no_lost_ack" }
func (ToolResultMatched) Kind() string   { return "tool_result_matched" }
func (OutputBounded) Kind() string       { return "output_bounded" }
func (RetryBudget) Kind() string         { return "retry_budget" }

func (p EffectOutcomeOnce) Slots() []hosts.Slot   { return p.Bind() }
func (p CancelSettlesWithin) Slots() []hosts.Slot { return p.Bind() }
func (p NoTornSuccess) Slots() []hosts.Slot       { return p.Bind() }
func (p NoLostAck) Slots() []hosts.Slot           { return p.Bind() }
func (p ToolResultMatched) Slots() []hosts.Slot   { return p.Bind() }
func (p OutputBounded) Slots() []hosts.Slot       { return p.Bind() }
func (p RetryBudget) Slots() []hosts.Slot         { return p.Bind() }

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
func (EventCount) Family() *hosts.Assertions          { return nil }
func (EventRate) Family() *hosts.Assertions           { return nil }
func (EffectOutcomeOnce) Family() *hosts.Assertions   { return nil }
func (CancelSettlesWithin) Family() *hosts.Assertions { return nil }
func (NoTornSuccess) Family() *hosts.Assertions       { return nil }
func (NoLostAck) Family() *hosts.Assertions           { return nil }
func (ToolResultMatched) Family() *hosts.Assertions   { return nil }
func (OutputBounded) Family() *hosts.Assertions       { return nil }
func (RetryBudget) Family() *hosts.Assertions         { return nil }

var noPair [2]string

// coreKinds are the assertion kinds the core judges itself, in catalog
// order: the kind-agnostic ones (§10.1's `kind` parameter of event_count
// and event_rate is `event_type`: `kind` already names the assertion
// kind in the [[assertions]] table, DESIGN §4), and the agent family's
// oracles (docs/assertions.md, amendment), which move to their kind.
var coreKinds = []hosts.AssertionKind{
	hosts.Def[EventCount](noPair, noPair),
	hosts.Def[EventRate](noPair, noPair),
	hosts.Def[EffectOutcomeOnce](noPair, noPair),
	hosts.Def[CancelSettlesWithin](noPair, noPair),
	hosts.Def[NoTornSuccess](noPair, noPair),
	hosts.Def[NoLostAck](noPair, noPair),
	hosts.Def[ToolResultMatched](noPair, noPair),
	hosts.Def[OutputBounded](noPair, noPair),
	hosts.Def[RetryBudget](noPair, noPair),
	hosts.Def[ResponseBounded](noPair, noPair),
	hosts.Def[NoCommitAfterSettle](noPair, noPair),
	hosts.Def[TurnOutcomeOnce](noPair, noPair),
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
