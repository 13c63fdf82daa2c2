package scenarios

import (
	"fmt"
	"math"
	"slices"
)

// AssertionParams is one assertion's parameters, typed: exactly one of the
// ten §10.1 structs below (AllAliveAt … EventRate), held by value. The set
// is closed: the unexported method keeps other packages from adding a
// kind, so a type switch over the ten is exhaustive.
//
// Each struct's bind method is the single definition of its kind's
// parameters (TOML key, shape, default, Go field): the loader decodes
// through it, AssertionKinds describes it, ParamMap encodes it for
// verdicts.json and Check validates code-built values by it.
type AssertionParams interface {
	// Kind is the §10.1 kind these parameters belong to.
	Kind() string
	// slots lists the parameters over a copy of the receiver.
	slots() []slot
}

// AllAliveAt is all_alive_at { at_ns, peers }.
type AllAliveAt struct {
	AtNs  int64
	Peers []string
}

// AllAliveThroughout is all_alive_throughout { window_start_ns,
// window_end_ns, peers }.
type AllAliveThroughout struct {
	WindowStartNs, WindowEndNs int64
	Peers                      []string
}

// ConvergenceAfter is convergence_after { after_ns, within_ns, peers }.
type ConvergenceAfter struct {
	AfterNs, WithinNs int64
	Peers             []string
}

// NoFlapWhileProbesOK is no_flap_while_probes_ok { peer, window_start_ns,
// window_end_ns, max_cycle_ns }.
type NoFlapWhileProbesOK struct {
	Peer                       string
	WindowStartNs, WindowEndNs int64
	// MaxCycleNs, when not 0, is the longest suspect → alive → suspect
	// cycle that counts as a flap: two unrelated false suspicions minutes
	// apart are not one flap. 0 (omitted): any length, as before.
	MaxCycleNs int64
}

// NoDeadWhenProbesOK is no_dead_when_probes_ok { peer, window_start_ns,
// window_end_ns }.
type NoDeadWhenProbesOK struct {
	Peer                       string
	WindowStartNs, WindowEndNs int64
}

// SelfIncarnationBounded is self_incarnation_bounded { peer, max_value }.
type SelfIncarnationBounded struct {
	Peer     string
	MaxValue int64
}

// MessageSizeBounded is message_size_bounded { message_kind, max_bytes }
// (§10.1's `kind`, renamed: DESIGN §4).
type MessageSizeBounded struct {
	MessageKind string
	MaxBytes    int64
}

// DeadPeerResurrectsWithin is dead_peer_resurrects_within { peer,
// after_ns, within_ns }.
type DeadPeerResurrectsWithin struct {
	Peer              string
	AfterNs, WithinNs int64
}

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

func (p *TurnOutcomeOnce) bind() []slot { return []slot{peerP("peer", &p.Peer)} }
func (TurnOutcomeOnce) Kind() string    { return "turn_outcome_once" }
func (p TurnOutcomeOnce) slots() []slot { return p.bind() }

func (p *ResponseBounded) bind() []slot {
	return []slot{peerP("peer", &p.Peer), countP("max_bytes", &p.MaxBytes)}
}
func (p *NoCommitAfterSettle) bind() []slot { return []slot{peerP("peer", &p.Peer)} }
func (ResponseBounded) Kind() string        { return "response_bounded" }
func (NoCommitAfterSettle) Kind() string    { return "no_commit_after_settle" }
func (p ResponseBounded) slots() []slot     { return p.bind() }
func (p NoCommitAfterSettle) slots() []slot { return p.bind() }

func (p *EffectOutcomeOnce) bind() []slot { return []slot{peerP("peer", &p.Peer)} }
func (p *CancelSettlesWithin) bind() []slot {
	return []slot{peerP("peer", &p.Peer), timeP("within_ns", Required, &p.WithinNs)}
}
func (p *NoTornSuccess) bind() []slot     { return []slot{peerP("peer", &p.Peer)} }
func (p *NoLostAck) bind() []slot         { return []slot{peerP("peer", &p.Peer)} }
func (p *ToolResultMatched) bind() []slot { return []slot{peerP("peer", &p.Peer)} }
func (p *OutputBounded) bind() []slot {
	return []slot{peerP("peer", &p.Peer), countP("max_bytes", &p.MaxBytes)}
}
func (p *RetryBudget) bind() []slot {
	return []slot{peerP("peer", &p.Peer), countP("max_attempts", &p.MaxAttempts)}
}

func (EffectOutcomeOnce) Kind() string   { return "effect_outcome_once" }
func (CancelSettlesWithin) Kind() string { return "cancel_settles_within" }
func (NoTornSuccess) Kind() string       { return "no_torn_success" }
func (NoLostAck) Kind() string           { return "no_lost_ack" }
func (ToolResultMatched) Kind() string   { return "tool_result_matched" }
func (OutputBounded) Kind() string       { return "output_bounded" }
func (RetryBudget) Kind() string         { return "retry_budget" }

func (p EffectOutcomeOnce) slots() []slot   { return p.bind() }
func (p CancelSettlesWithin) slots() []slot { return p.bind() }
func (p NoTornSuccess) slots() []slot       { return p.bind() }
func (p NoLostAck) slots() []slot           { return p.bind() }
func (p ToolResultMatched) slots() []slot   { return p.bind() }
func (p OutputBounded) slots() []slot       { return p.bind() }
func (p RetryBudget) slots() []slot         { return p.bind() }

func (p *AllAliveAt) bind() []slot {
	return []slot{timeP("at_ns", Required, &p.AtNs), peersP("peers", &p.Peers)}
}

func (p *AllAliveThroughout) bind() []slot {
	return []slot{
		timeP("window_start_ns", DefaultRunStart, &p.WindowStartNs),
		timeP("window_end_ns", DefaultRunEnd, &p.WindowEndNs),
		peersP("peers", &p.Peers),
	}
}

func (p *ConvergenceAfter) bind() []slot {
	return []slot{timeP("after_ns", Required, &p.AfterNs), timeP("within_ns", Required, &p.WithinNs), peersP("peers", &p.Peers)}
}

func (p *NoFlapWhileProbesOK) bind() []slot {
	return []slot{
		peerP("peer", &p.Peer),
		timeP("window_start_ns", DefaultRunStart, &p.WindowStartNs),
		timeP("window_end_ns", DefaultRunEnd, &p.WindowEndNs),
		{Param: Param{"max_cycle_ns", ParamSpan, DefaultOff}, num: &p.MaxCycleNs},
	}
}

func (p *NoDeadWhenProbesOK) bind() []slot {
	return []slot{
		peerP("peer", &p.Peer),
		timeP("window_start_ns", DefaultRunStart, &p.WindowStartNs),
		timeP("window_end_ns", DefaultRunEnd, &p.WindowEndNs),
	}
}

func (p *SelfIncarnationBounded) bind() []slot {
	return []slot{peerP("peer", &p.Peer), countP("max_value", &p.MaxValue)}
}

func (p *MessageSizeBounded) bind() []slot {
	return []slot{stringP("message_kind", &p.MessageKind), countP("max_bytes", &p.MaxBytes)}
}

func (p *DeadPeerResurrectsWithin) bind() []slot {
	return []slot{peerP("peer", &p.Peer), timeP("after_ns", Required, &p.AfterNs), timeP("within_ns", Required, &p.WithinNs)}
}

func (p *EventCount) bind() []slot {
	return []slot{stringP("event_type", &p.EventType), countP("max", &p.Max)}
}

func (p *EventRate) bind() []slot {
	return []slot{stringP("event_type", &p.EventType), spanP("window_ns", &p.WindowNs), countP("max_per_window", &p.MaxPerWindow)}
}

func (AllAliveAt) Kind() string               { return "all_alive_at" }
func (AllAliveThroughout) Kind() string       { return "all_alive_throughout" }
func (ConvergenceAfter) Kind() string         { return "convergence_after" }
func (NoFlapWhileProbesOK) Kind() string      { return "no_flap_while_probes_ok" }
func (NoDeadWhenProbesOK) Kind() string       { return "no_dead_when_probes_ok" }
func (SelfIncarnationBounded) Kind() string   { return "self_incarnation_bounded" }
func (MessageSizeBounded) Kind() string       { return "message_size_bounded" }
func (DeadPeerResurrectsWithin) Kind() string { return "dead_peer_resurrects_within" }
func (EventCount) Kind() string               { return "event_count" }
func (EventRate) Kind() string                { return "event_rate" }

func (p AllAliveAt) slots() []slot               { return p.bind() }
func (p AllAliveThroughout) slots() []slot       { return p.bind() }
func (p ConvergenceAfter) slots() []slot         { return p.bind() }
func (p NoFlapWhileProbesOK) slots() []slot      { return p.bind() }
func (p NoDeadWhenProbesOK) slots() []slot       { return p.bind() }
func (p SelfIncarnationBounded) slots() []slot   { return p.bind() }
func (p MessageSizeBounded) slots() []slot       { return p.bind() }
func (p DeadPeerResurrectsWithin) slots() []slot { return p.bind() }
func (p EventCount) slots() []slot               { return p.bind() }
func (p EventRate) slots() []slot                { return p.bind() }

// slot is one parameter bound to the Go field holding it: num for
// ParamTime, ParamSpan and ParamCount, text for ParamPeer and
// ParamString, ids for ParamPeers.
type slot struct {
	Param
	num  *int64
	text *string
	ids  *[]string
}

func timeP(key string, d ParamDefault, v *int64) slot {
	return slot{Param: Param{key, ParamTime, d}, num: v}
}
func spanP(key string, v *int64) slot  { return slot{Param: Param{key, ParamSpan, Required}, num: v} }
func countP(key string, v *int64) slot { return slot{Param: Param{key, ParamCount, Required}, num: v} }
func peerP(key string, v *string) slot { return slot{Param: Param{key, ParamPeer, Required}, text: v} }
func stringP(key string, v *string) slot {
	return slot{Param: Param{key, ParamString, Required}, text: v}
}
func peersP(key string, v *[]string) slot {
	return slot{Param: Param{key, ParamPeers, DefaultAllPeers}, ids: v}
}

// value is the slot's value as verdicts.json writes it: int64, string or
// []string (a copy).
func (s slot) value() any {
	switch {
	case s.num != nil:
		return *s.num
	case s.text != nil:
		return *s.text
	default:
		return slices.Clone(*s.ids)
	}
}

// kindDef is one §10.1 kind: its parameters (through a fresh value),
// and the pairs of them checked together.
type kindDef struct {
	kind string
	// window names a start ≤ end pair of ParamTime keys, or is empty.
	window [2]string
	// deadline names an after + within pair whose sum must fit in an
	// int64, or is empty.
	deadline [2]string
	// fresh returns a zero value's slots and a function giving the value
	// once the slots are filled.
	fresh func() ([]slot, func() AssertionParams)
	// holds says p is a value of this kind's struct.
	holds func(p AssertionParams) bool
}

// def makes the kindDef of T, whose *T binds its fields.
func def[T AssertionParams, P interface {
	*T
	bind() []slot
}](window, deadline [2]string) kindDef {
	var zero T
	return kindDef{kind: zero.Kind(), window: window, deadline: deadline,
		fresh: func() ([]slot, func() AssertionParams) {
			p := P(new(T))
			return p.bind(), func() AssertionParams { return *p }
		},
		holds: func(p AssertionParams) bool { _, ok := p.(T); return ok },
	}
}

var (
	noPair       [2]string
	windowPair   = [2]string{"window_start_ns", "window_end_ns"}
	deadlinePair = [2]string{"after_ns", "within_ns"}
)

// The §10.1 catalog, in spec order. The §10.1 parameter `kind` is
// `event_type` (event_count, event_rate) or `message_kind`
// (message_size_bounded): `kind` already names the assertion kind in the
// [[assertions]] table (DESIGN §4).
var kindDefs = []kindDef{
	def[AllAliveAt](noPair, noPair),
	def[AllAliveThroughout](windowPair, noPair),
	def[ConvergenceAfter](noPair, deadlinePair),
	def[NoFlapWhileProbesOK](windowPair, noPair),
	def[NoDeadWhenProbesOK](windowPair, noPair),
	def[SelfIncarnationBounded](noPair, noPair),
	def[MessageSizeBounded](noPair, noPair),
	def[DeadPeerResurrectsWithin](noPair, deadlinePair),
	def[EventCount](noPair, noPair),
	def[EventRate](noPair, noPair),
	// The agent family's oracles (docs/assertions.md, amendment).
	def[EffectOutcomeOnce](noPair, noPair),
	def[CancelSettlesWithin](noPair, noPair),
	def[NoTornSuccess](noPair, noPair),
	def[NoLostAck](noPair, noPair),
	def[ToolResultMatched](noPair, noPair),
	def[OutputBounded](noPair, noPair),
	def[RetryBudget](noPair, noPair),
	def[ResponseBounded](noPair, noPair),
	def[NoCommitAfterSettle](noPair, noPair),
	def[TurnOutcomeOnce](noPair, noPair),
}

func lookupDef(kind string) (kindDef, bool) {
	for _, d := range kindDefs {
		if d.kind == kind {
			return d, true
		}
	}
	return kindDef{}, false
}

// ParamMap returns the assertion's parameters as verdicts.json's
// "parameters" object (spec §10.2): every key of its kind, each an int64,
// a string or a []string. It is nil when a has no parameters.
func (a Assertion) ParamMap() map[string]any {
	if a.Params == nil {
		return nil
	}
	ss := a.Params.slots()
	m := make(map[string]any, len(ss))
	for _, s := range ss {
		if s.Default == DefaultOff && *s.num == 0 {
			continue // an optional bound left off: as before it existed
		}
		m[s.Key] = s.value()
	}
	return m
}

// ParamError is a code-built assertion parameter that no scenario could
// hold (see Assertion.Check).
type ParamError struct {
	Key string // the parameter's TOML key
	Msg string
}

func (e *ParamError) Error() string { return fmt.Sprintf("parameter %q: %s", e.Key, e.Msg) }

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
	i := slices.IndexFunc(kindDefs, func(d kindDef) bool { return d.holds(a.Params) })
	if i < 0 {
		return fmt.Errorf("parameters of type %T, want a value of one of the ten structs", a.Params)
	}
	d := kindDefs[i]
	if d.kind != a.Kind {
		return fmt.Errorf("parameters are %s's", d.kind)
	}
	ss := a.Params.slots()
	for _, s := range ss {
		if msg := s.check(); msg != "" {
			return &ParamError{s.Key, msg}
		}
	}
	num := func(key string) int64 {
		for _, s := range ss {
			if s.Key == key {
				return *s.num
			}
		}
		panic("scenarios: no parameter " + key)
	}
	if w := d.window; w[0] != "" {
		if start, end := num(w[0]), num(w[1]); end < start {
			return &ParamError{w[1], fmt.Sprintf("%d is before %s %d", end, w[0], start)}
		}
	}
	if dl := d.deadline; dl[0] != "" {
		if after, within := num(dl[0]), num(dl[1]); within > math.MaxInt64-after {
			return &ParamError{dl[1], fmt.Sprintf("%s + %s overflows int64", dl[0], dl[1])}
		}
	}
	return nil
}

// check is Check for one parameter on its own.
func (s slot) check() string {
	switch s.Type {
	case ParamTime, ParamCount:
		if *s.num < 0 {
			return fmt.Sprintf("must not be negative, got %d", *s.num)
		}
	case ParamSpan:
		if *s.num < 0 {
			return fmt.Sprintf("must not be negative, got %d", *s.num)
		}
		if *s.num == 0 && s.Default != DefaultOff {
			return "must be at least 1"
		}
	case ParamPeer, ParamString:
		if *s.text == "" {
			return "must not be empty"
		}
	case ParamPeers:
		if len(*s.ids) == 0 {
			return "must name at least one peer"
		}
		for i, id := range *s.ids {
			if id == "" {
				return fmt.Sprintf("element %d is not a peer id", i)
			}
		}
	}
	return ""
}
