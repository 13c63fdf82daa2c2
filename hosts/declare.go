package hosts

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
