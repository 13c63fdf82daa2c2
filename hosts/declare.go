package hosts

import (
	"bytes"
	"encoding/json"

	"github.com/detsim/detsim/internal/jsonmember"
)

// What a kind declares about its records for viewers: which values of a
// host's state can be watched, and which numbers chart over time. The
// debugger, the stepper and the page read these instead of naming a
// kind's events themselves, so a new kind gets watches and charts by
// declaring them (DESIGN §8, "A host kind owns its names").

// Watch is one value of a host's state a viewer may watch for changes
// (`detsim --batch --watch 'host=H member=M field=F'`, the stepper's
// watch key). The value is read from the records that set it: every
// record of Type whose Host member names the host (the record's own
// host when Host is "") and whose Member member names the member (no
// member when Member is "") sets the value to its Value member.
type Watch struct {
	// Field is the name a watch gives: "state".
	Field string
	// Type is the record type that sets the value.
	Type string
	// Host names the member holding the host whose value it is; "" is
	// the record's own host_id.
	Host string
	// Member names the member holding the member the value is about;
	// "" means a value of the host itself, watched without member=.
	Member string
	// Value names the member holding the new value.
	Value string
	// Doc says in a few words what the value is, for help and errors.
	Doc string
}

// Agg is how a chart bucket combines the values of its records.
type Agg uint8

// The aggregations.
const (
	// AggMaxMedian charts each bucket's largest and median value; each
	// point links to the record that holds the largest.
	AggMaxMedian Agg = iota + 1
	// AggCount charts how many records fell in each bucket.
	AggCount
	// AggLast charts the value of the bucket's last record, carried
	// forward to the next bucket that has one (a level, not an event).
	AggLast
	// AggRate charts the sum of the bucket's values per second (bytes/s
	// on a link).
	AggRate
)

// Series is one number a kind's records carry that is worth charting
// over virtual time: the page draws each under the space-time diagram,
// on the same time axis, every point a link to a record.
type Series struct {
	// ID names the series in the page's data and its tests; Title is
	// the chart's heading, Unit the value's ("B", "B/s", "ns", "").
	ID, Title, Unit string
	// Types are the record types it reads (one, or several counted as
	// one: a send's drops and a delivery's).
	Types []string
	// Field is the numeric member charted; "" counts records (AggCount).
	Field string
	// Where, when set, keeps only records whose member Where[0] has the
	// value Where[1] (["to", "suspect"]).
	Where [2]string
	// Host names the member holding the host a point belongs to; "" is
	// the record's own host_id.
	Host string
	// Peer, when set, makes the series one per directed link: Host (or
	// the record's host) to the host the Peer member names.
	Peer string
	// Agg is how a bucket's records combine.
	Agg Agg
	// Limit, when set, draws a threshold line at an assertion's
	// parameter: the largest value of Limit.Param over the scenario's
	// assertions of kind Limit.Assertion. Bandwidth draws the link's
	// bandwidth (bytes per second) instead, for a per-link series.
	Limit     *Limit
	Bandwidth bool
	// Span, when set, charts a duration instead of a member: from the
	// last record of type Span.Start with the same Span.Key member (on
	// the same host) to this one.
	Span *Span
	// Snapshot, when set, charts a number read from the bundle's
	// snapshots instead of its records: the dotted path of a member of
	// each snapshot ("broadcast_queue.depth"), as dense as the
	// scenario's [[snapshots]] (a value no record carries).
	Snapshot string
	// Doc is one line for the legend: what the series shows.
	Doc string
}

// Limit names an assertion parameter a series is judged against.
type Limit struct {
	Assertion, Param string
}

// Span pairs a record with the one that started it.
type Span struct {
	Start, Key string
}

// Payload is one record's event object as a kind's declarations read
// it: members found by name in the compact JSON detsim writes, without
// decoding the object (internal/jsonmember). A member absent or of
// another type reads as zero.
type Payload []byte

// Str is a string member's contents ("" when absent or not a string;
// a number or literal as written).
func (p Payload) Str(name string) string {
	raw, ok := jsonmember.Find(p, name)
	if !ok {
		return ""
	}
	if len(raw) >= 2 && raw[0] == '"' {
		if bytes.IndexByte(raw, '\\') < 0 {
			return string(raw[1 : len(raw)-1])
		}
		return p.decoded(name)
	}
	if raw[0] == '[' || raw[0] == '{' || string(raw) == "null" {
		return ""
	}
	return string(raw)
}

// Num is an integer member (0 when absent or not an integer).
func (p Payload) Num(name string) int64 {
	raw, _ := jsonmember.Find(p, name)
	n, _ := jsonmember.Int(raw)
	return n
}

// Has says the member is present and not null.
func (p Payload) Has(name string) bool {
	raw, ok := jsonmember.Find(p, name)
	return ok && string(raw) != "null"
}

// Strs is an array-of-strings member (nil when absent or not one).
func (p Payload) Strs(name string) []string {
	raw, ok := jsonmember.Find(p, name)
	if !ok || raw[0] != '[' {
		return nil
	}
	var out []string
	if json.Unmarshal(raw, &out) != nil {
		return nil
	}
	return out
}

// decoded is a string member with escapes, read the slow way (another
// producer's record: detsim writes none).
func (p Payload) decoded(name string) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(p, &m) != nil {
		return ""
	}
	var s string
	_ = json.Unmarshal(m[name], &s)
	return s
}

// Mark says how viewers draw a record of one of the kind's types: a tick
// on the recording host's lane of the page's space-time diagram, and
// the record's gist in the stepper's event log. A type without a Mark is
// drawn as its type name (page) and its members as k=v (stepper).
type Mark struct {
	Type string
	// Label is the tick's text on the page ("probe b #12 direct").
	Label func(p Payload) string
	// High says the tick is drawn at every level of detail, as a fault
	// or a change is; false drawn only where there is room, as routine
	// traffic is. nil is always high.
	High func(p Payload) bool
	// Gist, when set, is the record's one line in the stepper's event
	// log after its type; host is the record's host_id.
	Gist func(host string, p Payload) string
}

// Tone is how a viewer colours a piece of text a kind hands it; each
// viewer maps tones to its own styles.
type Tone uint8

// The tones.
const (
	TonePlain   Tone = iota
	ToneDim          // secondary: accusers, headings
	ToneChanged      // changed by the last step
	ToneGood         // a healthy state (SWIM's alive)
	ToneWarn         // a doubtful one (suspect)
	ToneBad          // a failed one (dead)
)

// ViewState is one state a view can be in.
type ViewState struct {
	// Name is the state as records and snapshots write it ("alive").
	Name string
	// Letter is its one-letter form in the stepper's matrix ('A').
	Letter byte
	Tone   Tone
}

// Views says the kind's hosts each hold a view of other hosts that
// records change (SWIM's membership: every observer's state and
// incarnation of every member). The page draws each observer × subject
// pair's timeline and the stepper a matrix of them; a kind without
// views gets a host list instead.
type Views struct {
	// Title names the views for the stepper's matrix ("membership").
	Title string
	// Type is the record type that changes a view. Observer, Subject,
	// State, Version and Reason name its members; Observer "" is the
	// record's own host.
	Type, Observer, Subject, State, Version, Reason string
	// VersionShort names the version in a short label ("inc").
	VersionShort string
	// States lists the states, the healthy one first.
	States []ViewState
	// Initial is the Reason of a host's first view of a member: not a
	// change worth a mark on the page.
	Initial string
	// Noted, when set, says a view change after the initial one is
	// marked on the observer's lane although it is healthy (SWIM: a
	// refutation); a change to an unhealthy state always is.
	Noted func(reason string) bool
	// Of reads a host's views from its snapshot, for the matrix: the id
	// the host holds as its own and its view of each member it knows;
	// ok false for a snapshot it cannot read (not started, another
	// shape).
	Of func(snapshot []byte) (self string, views []View, ok bool)
}

// View is one host's view of one member.
type View struct {
	Member  string
	State   string
	Version uint64
}

// StateNamed returns the declared state named name.
func (v *Views) StateNamed(name string) (ViewState, bool) {
	for _, s := range v.States {
		if s.Name == name {
			return s, true
		}
	}
	return ViewState{}, false
}

// Band says each host holds one of a few states that its records set,
// worth seeing along its whole lane (raft's role): the page shades a
// host's lane from each record of Type to the next in the colour of the
// state its Value member names.
type Band struct {
	// Title names the states in the legend ("raft role").
	Title string
	// Type is the record type that sets the state, Value the member
	// holding it.
	Type, Value string
	// States lists the states with their tones; a state not listed is
	// drawn plain.
	States []ViewState
	// Initial is a host's state from its first record, and again from
	// each record of type Reset (a restart), until a record of Type says
	// otherwise.
	Initial, Reset string
}

// History says the kind's records hold a history of client operations,
// each invoked and answered: the page draws each client's operations as
// intervals in a row of its own, and the window of each failing verdict
// of Assertion over them.
type History struct {
	// Invoke and Return are the record types; Client and Req name the
	// members that say whose operation it is and pair its answer with it.
	Invoke, Return, Client, Req string
	// Op, Key and Value name the invoke's members that describe the
	// operation; Result and Answer the return's outcome and value.
	Op, Key, Value, Result, Answer string
	// OK is the Result of a successful answer; Unknown that of an answer
	// that says nothing of whether the operation took effect.
	OK, Unknown string
	// Assertion is the assertion kind whose Fail verdict cites the
	// invokes and answers of the operations that violate it: the page
	// marks them and the window they span.
	Assertion string
}
