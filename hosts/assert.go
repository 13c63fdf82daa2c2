package hosts

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/detsim/detsim/internal/vtime"
)

// What a kind declares about the assertions its records are judged by
// (spec §10; DESIGN §8, "A host kind owns its names"). The scenario
// loader reads each assertion's parameters through the kind's
// declaration, and the verdict evaluator hands the run's records, routed
// by kind_tag, to the kind's Judge. The core names no assertion kind but
// its own kind-agnostic ones (event_count, event_rate).

// Outcome is a verdict's result.
type Outcome string

// The three outcomes of spec §10.2. Inconclusive is reserved for an
// assertion whose precondition never fired during the run.
const (
	Pass         Outcome = "Pass"
	Fail         Outcome = "Fail"
	Inconclusive Outcome = "Inconclusive"
)

// Evidence points at one record (or snapshot) that supports a verdict.
type Evidence struct {
	VirtualTimeNs int64  `json:"virtual_time_ns"`
	Ref           string `json:"event_or_snapshot_ref"` // "events.ndjson#L<line>" or "snapshots/<host>/<seq>.json"
}

// MaxEvidence bounds a verdict's evidence list; Resolve counts the rest
// in the reason.
const MaxEvidence = 16

// Cite is one record cited as evidence: its events.ndjson line and time.
type Cite struct {
	Line   int
	TimeNs int64
}

// Evidence is the record as verdicts.json cites it.
func (c Cite) Evidence() Evidence {
	return Evidence{VirtualTimeNs: c.TimeNs, Ref: "events.ndjson#L" + strconv.Itoa(c.Line)}
}

// Result is one assertion's standing. A judge resolves it once, with
// Resolve, and then never calls the assertion's checker again; the
// evaluator stamps Line.
type Result struct {
	Resolved bool
	Outcome  Outcome
	Reason   string
	Evidence []Evidence
	// Line is the record that resolved it while records streamed in; the
	// evaluator sets it, 0 for a verdict Finish decided.
	Line int
}

// Resolve fixes the verdict. Evidence is cited in line order, each
// record once, at most MaxEvidence of them; the reason counts the rest.
func (r *Result) Resolve(o Outcome, reason string, cites ...Cite) {
	cites = slices.Clone(cites)
	slices.SortFunc(cites, func(a, b Cite) int { return a.Line - b.Line })
	cites = slices.CompactFunc(cites, func(a, b Cite) bool { return a.Line == b.Line })
	if extra := len(cites) - MaxEvidence; extra > 0 {
		cites = cites[:MaxEvidence]
		reason += fmt.Sprintf(" (+%d more records not cited)", extra)
	}
	r.Evidence = make([]Evidence, len(cites))
	for i, c := range cites {
		r.Evidence[i] = c.Evidence()
	}
	r.Resolved, r.Outcome, r.Reason = true, o, reason
}

// Clone is a copy sharing no slice with r.
func (r Result) Clone() Result {
	r.Evidence = slices.Clone(r.Evidence)
	return r
}

// Seconds writes a virtual time the way every reason does, as exact
// seconds: 63.412518204s, 5s.
func Seconds(ns int64) string { return vtime.Seconds(ns) }

// Read is how much of a record a judge needs (the bundle reader's
// modes: bundle.Read is this type).
type Read uint8

const (
	// ReadSkip: the judge is not handed the record (nor is its payload
	// looked at).
	ReadSkip Read = iota
	// ReadEnvelope: the judge is handed the record without its payload
	// (Event nil): its time, host, kind_tag and type.
	ReadEnvelope
	// ReadWhole: the payload, checked as valid JSON.
	ReadWhole
	// ReadUnchecked: the payload as the envelope delimits it, not
	// checked. The judge must check what it reads, and return
	// ErrRecheck, having changed nothing, for a payload it cannot read
	// on its fast path: it is then handed the same record checked.
	ReadUnchecked
)

// ErrRecheck is what a judge's Observe returns for an unchecked payload
// it could not read on its fast path (ReadUnchecked).
var ErrRecheck = errors.New("bundle: check the line whole")

// EventRec is one events.ndjson record as a judge is handed it.
type EventRec struct {
	// Line is its 1-based line in events.ndjson: evidence cites it.
	Line    int
	TimeNs  int64
	HostID  string // "" for none
	KindTag string // the kind's tag, or "engine" for the engine's records
	Type    string
	// Event is the payload, one JSON object; Unchecked says it has not
	// been checked (ReadUnchecked). The judge must not keep it.
	Event     []byte
	Unchecked bool
	// Value, when set, is the payload as the host built it (the record
	// judged while the run makes it, with no JSON: a sweep's seed); Event
	// is then nil. A judge is handed one only for a record its
	// ValueReader says it reads so; the judge must not keep it.
	Value Event
	// Read is what the judge's Reads said of the record when it was
	// handed over, so Observe need not ask again.
	Read Read
}

// ValueReader is a Judge that can read some records from the values its
// kind built (EventRec.Value) rather than from their JSON. What it
// concludes must be what it would from the JSON of the same record: the
// post-run evaluation over the bundle is the authority, and a test over
// the library holds the two byte-equal (sweep TestTypedJudging_MatchesBundle).
type ValueReader interface {
	// ReadsValue says the judge reads records of this kind_tag and type
	// from their values. For any other it is handed the JSON, serialised
	// once for every judge that needs it.
	ReadsValue(kindTag, typ string) bool
}

// ParamType is the shape of one assertion parameter, and so the Go type
// of its field in the kind's parameter struct.
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
// when an optional parameter is omitted, so a judge always finds every
// parameter.
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

// Slot is one parameter bound to the Go field holding it. A parameter
// struct's Slots method lists its parameters with the constructors
// below (TimeParam, PeersParam, …), which is the single definition of
// its kind's parameters: the loader decodes through it, verdicts.json
// encodes from it, and code-built values are checked by it.
type Slot struct {
	Param
	num  *int64
	text *string
	ids  *[]string
}

// TimeParam is a ParamTime parameter with default d.
func TimeParam(key string, d ParamDefault, v *int64) Slot {
	return Slot{Param: Param{key, ParamTime, d}, num: v}
}

// SpanParam is a required ParamSpan parameter.
func SpanParam(key string, v *int64) Slot {
	return Slot{Param: Param{key, ParamSpan, Required}, num: v}
}

// OptionalSpanParam is a ParamSpan parameter that is off (0) when
// omitted (DefaultOff).
func OptionalSpanParam(key string, v *int64) Slot {
	return Slot{Param: Param{key, ParamSpan, DefaultOff}, num: v}
}

// CountParam is a required ParamCount parameter.
func CountParam(key string, v *int64) Slot {
	return Slot{Param: Param{key, ParamCount, Required}, num: v}
}

// PeerParam is a required ParamPeer parameter.
func PeerParam(key string, v *string) Slot {
	return Slot{Param: Param{key, ParamPeer, Required}, text: v}
}

// StringParam is a required ParamString parameter.
func StringParam(key string, v *string) Slot {
	return Slot{Param: Param{key, ParamString, Required}, text: v}
}

// PeersParam is a ParamPeers parameter that is every declared peer when
// omitted (DefaultAllPeers).
func PeersParam(key string, v *[]string) Slot {
	return Slot{Param: Param{key, ParamPeers, DefaultAllPeers}, ids: v}
}

// Num is a ParamTime, ParamSpan or ParamCount slot's value.
func (s Slot) Num() int64 { return *s.num }

// Text is a ParamPeer or ParamString slot's value.
func (s Slot) Text() string { return *s.text }

// IDs is a ParamPeers slot's value.
func (s Slot) IDs() []string { return *s.ids }

// SetNum, SetText and SetIDs fill the slot (the loader's side).
func (s Slot) SetNum(v int64)    { *s.num = v }
func (s Slot) SetText(v string)  { *s.text = v }
func (s Slot) SetIDs(v []string) { *s.ids = v }

// Value is the slot's value as verdicts.json writes it: int64, string or
// []string (a copy).
func (s Slot) Value() any {
	switch {
	case s.num != nil:
		return *s.num
	case s.text != nil:
		return *s.text
	default:
		return slices.Clone(*s.ids)
	}
}

// Check says what is wrong with the slot's value on its own, whatever
// the scenario ("" when nothing): a negative time or count, a span of 0
// that is not DefaultOff, an empty peer, string or peer list.
func (s Slot) Check() string {
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

// AssertionParams is one assertion's parameters, typed: a value of the
// parameter struct of its kind (a kind declares one struct per
// assertion kind, held by value).
type AssertionParams interface {
	// Kind is the assertion kind these parameters belong to
	// ("all_alive_at").
	Kind() string
	// Slots lists the parameters, bound to the fields of a copy of the
	// receiver (reading them is all a value receiver allows).
	Slots() []Slot
	// Family is the declaration that judges them; nil only for the
	// core's own kind-agnostic kinds (event_count, event_rate).
	Family() *Assertions
}

// AssertionKind is one assertion kind: its name, its parameters (through
// a fresh value) and the pairs of them checked together.
type AssertionKind struct {
	// Name is the kind's `kind` string in [[assertions]].
	Name string
	// Window names a pair of ParamTime keys that must satisfy
	// start ≤ end, or is empty.
	Window [2]string
	// Deadline names an after + within pair whose sum must fit in an
	// int64, or is empty.
	Deadline [2]string
	// Fresh returns a zero value's slots and a function giving the value
	// once the slots are filled (the loader decodes into the slots).
	Fresh func() ([]Slot, func() AssertionParams)
	// Holds says p is a value of this kind's struct.
	Holds func(p AssertionParams) bool
}

// Params describes the kind's parameters, in Slots order.
func (k AssertionKind) Params() []Param {
	ss, _ := k.Fresh()
	out := make([]Param, len(ss))
	for i, s := range ss {
		out[i] = s.Param
	}
	return out
}

// The pairs Def takes: none, the window's keys (window_start_ns,
// window_end_ns) and the deadline's (after_ns, within_ns).
var (
	NoPair       [2]string
	WindowPair   = [2]string{"window_start_ns", "window_end_ns"}
	DeadlinePair = [2]string{"after_ns", "within_ns"}
)

// Def declares the assertion kind whose parameters are a T, with the
// given Window and Deadline pairs (NoPair for none). *T's Bind
// lists T's parameters bound to its fields; T's Slots is Bind on a copy:
//
//	func (p *AllAliveAt) Bind() []hosts.Slot {
//		return []hosts.Slot{hosts.TimeParam("at_ns", hosts.Required, &p.AtNs), hosts.PeersParam("peers", &p.Peers)}
//	}
//	func (p AllAliveAt) Slots() []hosts.Slot { return p.Bind() }
func Def[T AssertionParams, P interface {
	*T
	Bind() []Slot
}](window, deadline [2]string) AssertionKind {
	var zero T
	return AssertionKind{Name: zero.Kind(), Window: window, Deadline: deadline,
		Fresh: func() ([]Slot, func() AssertionParams) {
			p := P(new(T))
			return p.Bind(), func() AssertionParams { return *p }
		},
		Holds: func(p AssertionParams) bool { _, ok := p.(T); return ok },
	}
}

// Check reports the first parameter of p that cannot be interpreted
// whatever the scenario: what Slot.Check finds, a window ending before
// it starts, an after + within that overflows an int64. It is nil for
// every value the loader returns (the loader is stricter); it is for
// values built in code.
func (k AssertionKind) Check(p AssertionParams) error {
	if !k.Holds(p) {
		return fmt.Errorf("parameters of type %T, want %s's", p, k.Name)
	}
	ss := p.Slots()
	for _, s := range ss {
		if msg := s.Check(); msg != "" {
			return &ParamError{s.Key, msg}
		}
	}
	num := func(key string) int64 {
		for _, s := range ss {
			if s.Key == key {
				return *s.num
			}
		}
		panic("hosts: assertion " + k.Name + " has no parameter " + key)
	}
	if w := k.Window; w[0] != "" {
		if start, end := num(w[0]), num(w[1]); end < start {
			return &ParamError{w[1], fmt.Sprintf("%d is before %s %d", end, w[0], start)}
		}
	}
	if dl := k.Deadline; dl[0] != "" {
		if after, within := num(dl[0]), num(dl[1]); within > maxInt64-after {
			return &ParamError{dl[1], fmt.Sprintf("%s + %s overflows int64", dl[0], dl[1])}
		}
	}
	return nil
}

const maxInt64 = 1<<63 - 1

// ParamError is a code-built assertion parameter that no scenario could
// hold (AssertionKind.Check).
type ParamError struct {
	Key string // the parameter's TOML key
	Msg string
}

func (e *ParamError) Error() string { return fmt.Sprintf("parameter %q: %s", e.Key, e.Msg) }

// Assertions is a family of assertion kinds a kind declares, and the
// judge of them. Its kinds share the judge's state (SWIM's: every
// observer's view of every member), so a run builds one judge per
// family over all of the family's assertions the scenario declares.
type Assertions struct {
	// Kinds lists the family's assertion kinds; their names are unique
	// among every registered kind's and the core's.
	Kinds []AssertionKind
	// Judge builds the judge of params (every assertion of the family a
	// scenario declares, each accepted by its kind's Check, in
	// declaration order). It is called once per evaluation and must not
	// fail.
	Judge func(params []AssertionParams) Judge
}

// Lookup returns the family's kind named name.
//
// A lookup by name, alike in shape to Views.StateNamed: each over its own
// list.
func (a *Assertions) Lookup(name string) (AssertionKind, bool) {
	for _, k := range a.Kinds {
		if k.Name == name {
			return k, true
		}
	}
	return AssertionKind{}, false
}

// Sizer is a Judge that can say roughly how many bytes a Clone of it
// holds beyond its results: the engine's checkpoint budget counts it.
type Sizer interface {
	ApproxBytes() int64
}

// Judge evaluates a family's assertions over one run's records, handed
// to it in stream order (post-run from events.ndjson, or streaming
// while the engine runs: both the same code over the same records). It
// is not safe for concurrent use, and must be deterministic: integer
// arithmetic on virtual time, in record order.
type Judge interface {
	// Reads says what the judge needs of a record with this kind_tag
	// and type, now (it may change as assertions resolve). It routes by
	// kind_tag: a judge reads only its own kind's records (and the
	// engine's, "engine", when it needs mutations), so another kind's
	// record of the same type name is never mistaken for its own.
	Reads(kindTag, typ string) Read
	// Observe is handed each record Reads did not skip. A malformed
	// payload is an error naming what is wrong (the evaluator adds the
	// line); an unchecked one it cannot read is ErrRecheck.
	Observe(rec *EventRec) error
	// Hold says the state after every record so far held over every
	// instant of [from, to]: no record falls inside.
	Hold(from, to int64)
	// Finish closes a run that ended at endNs: every unresolved
	// assertion is resolved.
	Finish(endNs int64)
	// Results are the assertions' standings, one per params entry in
	// the same order; the pointers stay the same for the judge's life.
	Results() []*Result
	// Clone is a deep copy for an engine checkpoint: feeding either
	// never changes the other.
	Clone() Judge
}
