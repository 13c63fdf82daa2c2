package hosts

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"

	"github.com/detsim/detsim/rng"
)

// Codec turns a host kind's application messages into wire bytes and back
// (spec §3.3). The encoded length is what the network's bandwidth model
// charges, so it must be the length the production transport would send.
// Append encodes msg onto the end of dst (the engine hands it a slab, so a
// message costs no allocation of its own) and returns the extended slice.
// Decode must reject malformed bytes with an error and never panic, and
// must not retain b.
type Codec interface {
	Append(dst []byte, msg any) ([]byte, error)
	Decode(b []byte) (any, error)
}

// ReusingCodec is a Codec whose kind's hosts never keep a delivered
// Payload past the Recv call that brought it. The engine then decodes
// each delivery to a host into the value the previous one to that host
// was decoded into, so a delivery allocates nothing; the allocation per
// delivery was what kept the garbage collector running, and its write
// barriers taxed every copy the hosts made (docs/BENCHMARKS.md,
// "The engine near its floor").
type ReusingCodec interface {
	Codec
	// DecodeInto is Decode into into, a value DecodeInto returned before
	// or nil: it returns into, filled, when into has the right type, and
	// a new value otherwise. The same bytes decode to the same message
	// as Decode, and are rejected as Decode rejects them.
	DecodeInto(b []byte, into any) (any, error)
}

// SizingCodec is a Codec that can say a message's encoded length without
// encoding it. The engine encodes each message into a slab it recycles,
// leaving room for a typical message; one longer than that room made
// Append allocate an array of its own, which a legacy SWIM queue's
// datagrams of tens of kilobytes did on every send (docs/BENCHMARKS.md,
// "A sweep does only what a seed needs"). With the length known the
// engine leaves room for all of it.
type SizingCodec interface {
	Codec
	// EncodedLen is len of what Append would append for msg, or any
	// smaller guess (0 when unknown); it must not fail or allocate.
	EncodedLen(msg any) int
}

// HandingCodec is a Codec whose messages the engine may hand from sender
// to receiver as values rather than bytes when nothing reads the bytes: a
// headless run (engine.Options.Headless), which writes no bundle and
// judges typed records. The network charges a message by its length
// alone, so the engine needs the length, and the receiver a message equal
// to what it would have decoded; a legacy SWIM seed spent a quarter of its
// time writing bytes only to read them back (docs/BENCHMARKS.md, "A
// sweep hands messages over as values"). A viewer that wants the bytes
// (the stepper's queue pane) gets them from Append, on demand.
type HandingCodec interface {
	Codec
	// Handoff returns what Decode(Append(nil, msg)) would return, and
	// the length of those bytes; it fails exactly when Append fails, with
	// Append's error. The value shares nothing with msg that the sender
	// may change after the call: the receiver gets it later in virtual
	// time, after the sender's next calls. into is a value Handoff
	// returned before that nobody holds any more, or nil; the value may
	// be built in its memory. Append accepts the value and encodes it to
	// the bytes msg encodes to.
	Handoff(msg any, into any) (v any, size int, err error)
}

// FieldError is one problem with a peer's kind_config or initial_state,
// named by its field path relative to the peer ("kind_config.seeds").
type FieldError struct {
	Field string
	Msg   string
}

func (e FieldError) Error() string { return e.Field + ": " + e.Msg }

// PeerConfig is one peer's id and kind_config, as ValidatePeers sees it.
type PeerConfig struct {
	ID     string
	Config map[string]any
}

// CloneTree deep-copies a decoded TOML value (maps and arrays; scalars
// are shared, being immutable): a scenario's tree or any part of it, a
// peer's kind_config. An array of tables comes back as the []any the
// loader normalizes it to.
func CloneTree(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for _, k := range slices.Sorted(maps.Keys(x)) {
			out[k] = CloneTree(x[k])
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = CloneTree(e)
		}
		return out
	case []map[string]any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = CloneTree(e)
		}
		return out
	}
	return v
}

// Kind is a host kind: what every kind provides, the runtime the loader
// and the engine need to run its peers. Everything else a kind may tell
// detsim is an optional interface of its own, which the core discovers
// by a type assertion on the Kind (as memberlist's Config discovers its
// delegates), so a kind implements only what it has, and each consumer
// asks only for the part it reads:
//
//   - runtime: Restartable (a "down" initial state), PeersValidator,
//     Canceller, Describer (messages named for viewers);
//   - records and views: Records (the event prototypes), Charts, Lanes,
//     Watcher, and the stepper's pane (hosts/pane: Drawer, Summarizer);
//   - oracles: Oracle (assertion kinds and their judge), and the causal
//     explanation of a host's state (causal.Explains);
//   - Librarian (scenarios and properties) and Faulter (a fault catalog).
//
// docs/kinds.md lists each with what the core does with it.
type Kind interface {
	// Tag is the `kind` string scenarios use and the kind_tag of events
	// the kind's hosts record.
	Tag() string
	// States lists the accepted initial_state values; the first is the
	// default when a peer omits it.
	States() []string
	// Validate checks a peer's kind_config against the declared peer ids
	// (sorted) and returns every problem it finds.
	Validate(config map[string]any, peers []string) []FieldError
	// New builds a host. It is called only with a config Validate accepted
	// and a state from States other than a Restartable's DownState, so it
	// does not fail. r is the host's own substream; peers are all
	// declared ids, sorted.
	New(id string, config map[string]any, state string, peers []string, r *rng.Stream) Host
	// Codec encodes and decodes the kind's application messages; the
	// engine asks for it once per peer.
	Codec() Codec
}

// Restartable is a Kind one of whose States means "not running until a
// PeerResurrect".
type Restartable interface {
	// DownState is that initial_state; RestartState is what a fresh
	// life of such a peer starts as.
	DownState() string
	RestartState() string
}

// PeersValidator is a Kind that checks its peers together, once each has
// passed Validate: a bound no one peer's kind_config shows, such as the
// raft kind's on its members' memory summed (docs/raft.md).
type PeersValidator interface {
	// ValidatePeers is given the kind's peers in id order (members) and
	// all declared ids, sorted. Each error's Field is a path within a
	// [[peers]] entry ("kind_config.snapshot_entries"), which the loader
	// reports under "peers".
	ValidatePeers(members []PeerConfig, peers []string) []FieldError
}

// Canceller is a Kind whose hosts accept a *Cancel through Recv when
// Cancellable says so; the loader rejects a Cancel mutation aimed at any
// other kind.
type Canceller interface {
	Cancellable() bool
}

// Describer is a Kind that names a message from its wire bytes for
// viewers (the stepper's queue pane): its kind and what identifies it,
// "ping #12". Describe reads only what it needs, never fails ("" for
// bytes it cannot read) and must not retain b.
type Describer interface {
	Describe(b []byte) string
}

// Records is a Kind that declares the events its hosts record.
type Records interface {
	// Events lists one prototype of every event the kind's hosts record,
	// with every optional member set (one per shape when members differ
	// by variant). It is the one place the event types and fields are
	// named: the debugger derives from the prototypes' JSON which
	// breakpoint and search fields exist, so the list cannot drift from
	// what is written, and registration checks every declaration below
	// against it.
	Events() []Event
}

// Charts is a Kind whose records carry numbers the page charts over
// time (hosts/declare.go).
type Charts interface {
	Series() []Series
}

// Lanes is a Kind that says how its records are drawn along each host's
// lane of the page and in the stepper. Each method returns nil for what
// the kind does not have.
type Lanes interface {
	// Marks say how viewers draw the kind's records (the page's ticks,
	// the stepper's event log), one per type that wants more than its
	// name.
	Marks() []Mark
	// Views, when not nil, says its hosts hold views of one another (the
	// page's membership timeline, the stepper's matrix).
	Views() *Views
	// Band, when not nil, shades each host's lane on the page by a state
	// its records set.
	Band() *Band
	// History, when not nil, says its records hold a client history the
	// page draws.
	History() *History
}

// Watcher is a Kind whose hosts' state holds values a viewer may watch
// for changes (hosts/declare.go).
type Watcher interface {
	Watches() []Watch
}

// Oracle is a Kind whose records are judged by assertion kinds of its
// own (hosts/assert.go). The loader accepts them in [[assertions]]; the
// evaluator hands the judge the records it reads, routed by kind_tag.
type Oracle interface {
	Assertions() *Assertions
}

// Librarian is a Kind that ships a library.
type Librarian interface {
	// Library holds scenarios as <dir>/<name>.toml (named
	// "<dir>/<name>", as the embedded library names them: `detsim
	// <dir>/<name>`, `detsim list`, `detsim check`) and properties as
	// properties/<name>.toml (`detsim sweep <name>`). Names must not
	// clash with the core's library or another kind's.
	Library() fs.FS
}

// Faulter is a Kind with a fault catalog: where in a peer's kind_config
// a fault can be placed, and how. Properties draw seeded fault schedules
// over it ([space.faults], docs/sweeps.md).
type Faulter interface {
	Faults() *FaultCatalog
}

// What the core reads of the optional interfaces, each the zero value
// for a kind that does not implement it.

// DownStates returns k's Restartable states, "" and "" when it has none.
func DownStates(k Kind) (down, restart string) {
	if r, ok := k.(Restartable); ok {
		return r.DownState(), r.RestartState()
	}
	return "", ""
}

// IsCancellable says k's hosts accept a *Cancel (Canceller).
func IsCancellable(k Kind) bool {
	c, ok := k.(Canceller)
	return ok && c.Cancellable()
}

// EventsOf is k's event prototypes (Records).
func EventsOf(k Kind) []Event {
	if r, ok := k.(Records); ok {
		return r.Events()
	}
	return nil
}

// SeriesOf is k's charts (Charts).
func SeriesOf(k Kind) []Series {
	if c, ok := k.(Charts); ok {
		return c.Series()
	}
	return nil
}

// WatchesOf is k's watches (Watcher).
//
// As every XOf: its own interface.
func WatchesOf(k Kind) []Watch {
	if w, ok := k.(Watcher); ok {
		return w.Watches()
	}
	return nil
}

// ViewsOf is k's Views, nil when it has none (Lanes).
func ViewsOf(k Kind) *Views {
	if l, ok := k.(Lanes); ok {
		return l.Views()
	}
	return nil
}

// AssertionsOf is k's assertion family, nil when it has none (Oracle).
//
// Each XOf answers its own optional interface, alike in shape on purpose:
// the contract's interfaces are small and separate (kind.go's doc).
func AssertionsOf(k Kind) *Assertions {
	if o, ok := k.(Oracle); ok {
		return o.Assertions()
	}
	return nil
}

// FaultsOf is k's fault catalog, nil when it has none (Faulter).
func FaultsOf(k Kind) *FaultCatalog {
	if f, ok := k.(Faulter); ok {
		return f.Faults()
	}
	return nil
}

// LibraryOf is k's library, nil when it has none (Librarian).
func LibraryOf(k Kind) fs.FS {
	if l, ok := k.(Librarian); ok {
		return l.Library()
	}
	return nil
}

// EmbeddedLibrary is the directory dir of files as a kind's Library: a
// kind embeds its library folder (//go:embed library) and serves it with
// its prefix taken off. dir must be a directory files holds; embedding
// guarantees it, so a mistake panics at start-up, before any run.
func EmbeddedLibrary(files fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(files, dir)
	if err != nil {
		panic(err)
	}
	return sub
}

// AssertionOf returns the assertion kind named name that k declares.
func AssertionOf(k Kind, name string) (AssertionKind, bool) {
	a := AssertionsOf(k)
	if a == nil {
		return AssertionKind{}, false
	}
	return a.Lookup(name)
}

// MarkOf returns k's Mark for record type typ (Lanes).
func MarkOf(k Kind, typ string) (*Mark, bool) {
	l, ok := k.(Lanes)
	if !ok {
		return nil, false
	}
	ms := l.Marks()
	for i := range ms {
		if ms[i].Type == typ {
			return &ms[i], true
		}
	}
	return nil, false
}

// FaultCatalog is a kind's fault catalog for seeded fault schedules. A
// place is one slot of a validated kind_config that can carry a fault (a
// provider's script entry, a tool's effect); Places counts them, Fits
// says whether fault kind may go at place, and Apply returns a copy of
// config with it there, its parameters drawn from r. None of them
// modifies config; each is a pure function of its arguments, so a seed
// names the same schedule in every process.
type FaultCatalog struct {
	// Kinds lists every fault kind, in catalog order.
	Kinds  []string
	Places func(config map[string]any) int
	Fits   func(config map[string]any, place int, kind string) bool
	// Apply is called only where Fits holds, and its result must be a
	// kind_config Validate accepts.
	Apply func(config map[string]any, place int, kind string, r *rng.Stream) map[string]any
}

// Registry maps kind tags to kinds. It is built once at start-up and read
// only after that.
type Registry struct{ kinds map[string]Kind }

// NewRegistry returns a registry holding kinds. It panics on a kind Add
// refuses: the kinds a binary is built with are its author's, and a bad
// one is a build mistake, not an input error.
func NewRegistry(kinds ...Kind) *Registry {
	r := &Registry{kinds: make(map[string]Kind, len(kinds))}
	for _, k := range kinds {
		r.Register(k)
	}
	return r
}

// Register is Add that panics on a kind Add refuses.
func (r *Registry) Register(k Kind) {
	if err := r.Add(k); err != nil {
		panic("hosts: " + err.Error())
	}
}

// Add registers k, or refuses it, registering nothing, with every
// problem found as a *KindError joined (errors.Join): a tag already
// taken, no Codec, an assertion kind whose name another kind declares or
// that has no judge to check it, a chart, watch, mark, view, band or
// history on a record type no prototype in its Events has (when it
// lists any). A KindError's Field names the method of k's interface at
// fault ("Series[2].Types[0]": the third chart Series returns).
// A kind from outside this repository (cli.Main) is checked here before
// any scenario is read, so its author learns which declaration is wrong
// at start-up rather than as a chart that never draws or an assertion
// that never judges (docs/kinds.md).
func (r *Registry) Add(k Kind) error {
	if k == nil {
		return &KindError{Kind: "", Field: "Kind", Msg: "nil"}
	}
	tag := k.Tag()
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, &KindError{Kind: tag, Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	switch _, dup := r.kinds[tag]; {
	case tag == "":
		bad("Tag", "empty: scenarios name a kind by its tag")
	case tag == EngineTag:
		bad("Tag", "%q is the engine's own kind_tag", tag)
	case dup:
		bad("Tag", "name already taken by another registered kind")
	}
	if k.Codec() == nil {
		bad("Codec", "nil: the engine encodes the kind's messages with it")
	}
	a := AssertionsOf(k)
	if a != nil {
		if len(a.Kinds) == 0 {
			bad("Assertions.Kinds", "empty: declare the assertion kinds the judge checks, or return nil from Assertions")
		}
		if a.Judge == nil && len(a.Kinds) > 0 {
			bad("Assertions.Judge", "nil: assertion kind %q has no checker", a.Kinds[0].Name)
		}
		for i, ak := range a.Kinds {
			field := fmt.Sprintf("Assertions.Kinds[%d]", i)
			if ak.Name == "" {
				bad(field+".Name", "empty")
				continue
			}
			if ak.Fresh == nil || ak.Holds == nil {
				bad(field, "assertion kind %q has no parameters (Fresh, Holds): declare it with hosts.Def", ak.Name)
			}
			if j := slices.IndexFunc(a.Kinds[:i], func(o AssertionKind) bool { return o.Name == ak.Name }); j >= 0 {
				bad(field+".Name", "%q is declared twice (also Assertions.Kinds[%d])", ak.Name, j)
			} else if _, other, dup := r.Assertion(ak.Name); dup {
				bad(field+".Name", "name %q already taken by kind %q", ak.Name, other.Tag())
			}
		}
	}
	events := EventsOf(k)
	declared := make(map[string]bool, len(events))
	for _, e := range events {
		declared[e.Type()] = true
	}
	// A kind that lists no prototypes (the agent family's, whose records
	// are one generic type built at run time) names its record types
	// nowhere else, so there is nothing to check its declarations by.
	typed := func(field, what, typ string) {
		if len(events) > 0 && !declared[typ] {
			bad(field, "%s on record type %q, which no prototype in Events has", what, typ)
		}
	}
	for i, s := range SeriesOf(k) {
		what := fmt.Sprintf("chart %q", s.ID)
		if s.Snapshot != "" {
			continue // read from snapshots, not records
		}
		if len(s.Types) == 0 {
			bad(fmt.Sprintf("Series[%d].Types", i), "%s reads no record type", what)
		}
		for j, t := range s.Types {
			typed(fmt.Sprintf("Series[%d].Types[%d]", i, j), what, t)
		}
		if s.Span != nil {
			typed(fmt.Sprintf("Series[%d].Span.Start", i), what, s.Span.Start)
		}
		if s.Limit != nil && a != nil {
			if _, ok := a.Lookup(s.Limit.Assertion); !ok {
				bad(fmt.Sprintf("Series[%d].Limit.Assertion", i), "%s is limited by assertion kind %q, which Assertions does not declare", what, s.Limit.Assertion)
			}
		}
	}
	for i, w := range WatchesOf(k) {
		typed(fmt.Sprintf("Watches[%d].Type", i), fmt.Sprintf("watch %q", w.Field), w.Type)
	}
	if l, ok := k.(Lanes); ok {
		for i, m := range l.Marks() {
			typed(fmt.Sprintf("Marks[%d].Type", i), "a mark", m.Type)
		}
		if v := l.Views(); v != nil {
			typed("Views.Type", "views", v.Type)
		}
		if b := l.Band(); b != nil {
			typed("Band.Type", "a band", b.Type)
		}
		if h := l.History(); h != nil {
			typed("History.Invoke", "a history", h.Invoke)
			typed("History.Return", "a history", h.Return)
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	r.kinds[tag] = k
	return nil
}

// EngineTag is the kind_tag of the engine's own records (message sends,
// drops, mutations): no kind may take it.
const EngineTag = "engine"

// KindError is one reason Registry.Add refused a kind: the kind's tag,
// the declaration at fault as a Go path from the method of Kind or of
// one of its optional interfaces that returns it ("Series[2].Types[0]"),
// and what is wrong with it.
type KindError struct {
	Kind, Field, Msg string
}

func (e *KindError) Error() string {
	return fmt.Sprintf("kind %q: %s: %s", e.Kind, e.Field, e.Msg)
}

// Lookup returns the kind registered under tag.
func (r *Registry) Lookup(tag string) (Kind, bool) {
	k, ok := r.kinds[tag]
	return k, ok
}

// Tags returns every registered tag, sorted.
func (r *Registry) Tags() []string {
	return slices.Sorted(maps.Keys(r.kinds))
}

// Kinds returns every registered kind, in tag order.
func (r *Registry) Kinds() []Kind {
	out := make([]Kind, 0, len(r.kinds))
	for _, t := range r.Tags() {
		out = append(out, r.kinds[t])
	}
	return out
}

// Assertion returns the assertion kind named name and the host kind
// declaring it, whichever registered kind does.
func (r *Registry) Assertion(name string) (AssertionKind, Kind, bool) {
	for _, k := range r.Kinds() {
		if a, ok := AssertionOf(k, name); ok {
			return a, k, true
		}
	}
	return AssertionKind{}, nil, false
}
