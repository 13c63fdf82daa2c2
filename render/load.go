package render

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/bundle/verdict"
	"github.com/detsim/detsim/hosts"
)

// Message statuses, as the page reads them.
const (
	delivered       = 0
	droppedOnSend   = 1
	droppedDelivery = 2
	inFlight        = 3 // no receive or drop recorded by the end of the run
	recvOnly        = 4 // a receive no recorded send pairs with
)

// msg is one send, paired with what became of it.
type msg struct {
	sendT, recvT      int64
	from, to          int32 // host indexes in the run's table
	kind              int32
	bytes, updates    int64
	sendLine, endLine int // endLine: the receive or drop record, 0 if none
	status            int8
	reason            int32 // drop reason, in the run's string table
}

// mark is one record drawn as a tick on a lane.
type mark struct {
	t     int64
	host  int32
	typ   int32 // string table
	label int32 // string table: a short description
	line  int
}

// mutation is a scenario mutation drawn as a band over the lanes it affects.
type mutation struct {
	t, end int64
	kind   string
	lanes  []int32 // empty: every lane
	line   int
	open   bool // Partition until Heal, PeerKill until PeerResurrect
}

// transition is one state_transition: observer o's view of subject s.
type transition struct {
	t      int64
	o, s   int32
	state  int32 // string table
	inc    int64
	reason int32
	line   int
}

// run is one bundle read for drawing: what the page draws of it, and
// the counts of everything it aggregates or leaves out. It holds only
// what the page holds (load reads events.ndjson twice rather than keep
// what it will not draw).
type run struct {
	dir      string
	manifest bundle.Manifest
	scenario string // scenario.toml, read once through the bundle's root
	name     string
	verdicts []verdict.Verdict
	from, to int64 // the window drawn
	records  int64
	outside  int64 // records outside the window
	hosts    []string
	hostIdx  map[string]int32
	strs     *strTab
	kinds    []int32 // string-table indexes of message kinds, first-seen order

	// Drawn one by one: what the level of detail keeps (plan.go).
	msgs      []msg
	marks     []mark
	muts      []mutation
	transKept []transition

	// Counted over the window, drawn or not.
	nMsgs, nMarks int
	msgCount      [5]int64 // messages by status
	arrowsOut     [tiles]int64
	marksOut      [tiles]int64
	markOutByType map[int32]int64
	dens          [][]int64      // by host: message sends and receives per density bucket
	unpaired      int            // receives with no send
	otherRecs     map[string]int // record types drawn as nothing (counted on the page)
	transElided   int
	pairsElided   int
	peakInFlight  int // most messages in flight at once, in the first pass

	// The charts of the kinds' declared series (charts.go).
	charts *charts
	// The kinds' bands and client history (clients.go).
	x extras

	// reg is where records' kinds are looked up, by kind_tag: their
	// lanes (hosts.Lanes: marks, views, band, history) are how they are
	// drawn, resolved once per tag into lanes.
	reg      *hosts.Registry
	lanes    map[string]*kindLanes
	lastTag  string
	lastKind *kindLanes
	healthy  string // the healthy view state of the kind whose view changes last

	// The record texts the page inlines, by line (plan.go).
	want        []int // lines whose text the page inlines, sorted
	textsElided int64
	texts       []string
}

func (r *run) str(s string) int32 { return r.strs.intern(s) }

// kindLanes is what the page draws a registered kind's records by (its
// hosts.Lanes), read from the kind once per run: each is nil (or empty)
// when the kind does not declare it, all of them for a kind that
// implements no Lanes.
type kindLanes struct {
	marks   []hosts.Mark
	views   *hosts.Views
	band    *hosts.Band
	history *hosts.History
}

// mark returns the kind's Mark for record type typ.
func (k *kindLanes) mark(typ string) (*hosts.Mark, bool) {
	for i := range k.marks {
		if k.marks[i].Type == typ {
			return &k.marks[i], true
		}
	}
	return nil, false
}

// kindOf is the lanes of the registered kind of a record's kind_tag (nil
// for the engine's records and an unknown tag).
func (r *run) kindOf(tag string) *kindLanes {
	if tag != r.lastTag {
		r.lastTag = tag
		k, ok := r.lanes[tag]
		if !ok {
			if hk, found := r.reg.Lookup(tag); found {
				k = &kindLanes{}
				if l, ok := hk.(hosts.Lanes); ok {
					k.marks, k.views, k.band, k.history = l.Marks(), l.Views(), l.Band(), l.History()
				}
			}
			if r.lanes == nil {
				r.lanes = map[string]*kindLanes{}
			}
			r.lanes[tag] = k
		}
		r.lastKind = k
	}
	return r.lastKind
}

// viewType is the record type that changes a view of kind k, "" for a
// kind without views.
func viewType(k *kindLanes) string {
	if k == nil || k.views == nil {
		return ""
	}
	return k.views.Type
}

// host interns a host id as causal.Index interns its strings, in the same
// few lines: each table is its own package's, and a shared generic would be
// longer than the copy.
func (r *run) host(id string) int32 {
	if i, ok := r.hostIdx[id]; ok {
		return i
	}
	i := int32(len(r.hosts))
	r.hosts = append(r.hosts, id)
	r.hostIdx[id] = i
	return i
}

// payload is every member render reads of the engine's records and of
// message sends and receives. A kind's own records are read through its
// declarations (hosts.Payload). Its tagged fields look like other JSON
// records' (the manifest's testbed member) only by their types.
type payload struct {
	Type       string          `json:"type"`
	Peer       string          `json:"peer"`
	Message    string          `json:"message"`
	Bytes      int64           `json:"bytes"`
	Updates    int64           `json:"updates"`
	Seq        *int64          `json:"seq"`
	ID         json.RawMessage `json:"id"`
	MsgID      json.RawMessage `json:"msg_id"`
	MessageID  json.RawMessage `json:"message_id"`
	From       string          `json:"from"`
	To         string          `json:"to"`
	Reason     string          `json:"reason"`
	Transition string          `json:"transition"`
	State      string          `json:"state"`
	Outcome    string          `json:"outcome"`
	Error      string          `json:"error"`
	Kind       string          `json:"kind"`
	PeersA     []string        `json:"peers_a"`
	PeersB     []string        `json:"peers_b"`
	Links      []struct {
		From string `json:"from"`
		To   string `json:"to"`
	} `json:"links"`
	DurationNs int64 `json:"duration_ns"`
	Index      int64 `json:"index"`
}

// msgID is the message id a producer wrote, if any: it pairs a send with
// its receive exactly, where the fallback key can only guess.
func (p *payload) msgID() string {
	for _, raw := range []json.RawMessage{p.MessageID, p.MsgID, p.ID} {
		if len(raw) > 0 && string(raw) != "null" {
			return string(raw)
		}
	}
	return ""
}

// messageEvent says whether typ is a send or a receive, and of which
// message kind: SWIM's message_sent/_received name it in "message"; echo's
// ping_sent/pong_received name it in the type.
func messageEvent(typ string, p *payload) (kind string, send, ok bool) {
	if p.Peer == "" {
		return "", false, false
	}
	base, send := strings.CutSuffix(typ, "_sent")
	if !send {
		var recv bool
		if base, recv = strings.CutSuffix(typ, "_received"); !recv {
			return "", false, false
		}
	}
	if base == "message" && p.Message != "" {
		base = p.Message
	}
	return base, send, true
}

// maybeMessage says whether messageEvent may find typ a message event.
func maybeMessage(typ string) bool {
	return strings.HasSuffix(typ, "_sent") || strings.HasSuffix(typ, "_received")
}

// pairKey is what pairs a receive with its send: the directed edge, the
// kind, and the producer's message id when there is one, else the echo
// seq, else the byte count. Sends with the same key pair first in, first
// out, which a reordering link can swap; an id never can.
type pairKey struct {
	from, to, kind int32
	id             string
}

func keyOf(from, to, kind int32, p *payload) pairKey {
	k := pairKey{from: from, to: to, kind: kind}
	switch id := p.msgID(); {
	case id != "":
		k.id = "id:" + id
	case p.Seq != nil:
		k.id = "seq:" + strconv.FormatInt(*p.Seq, 10) + "/" + strconv.FormatInt(p.Bytes, 10)
	default:
		k.id = "b:" + strconv.FormatInt(p.Bytes, 10)
	}
	return k
}

type edge struct{ from, to int32 }

// load reads one bundle: its manifest, verdicts, scenario name, and what
// the page draws of the records inside the window. It reads
// events.ndjson twice (three times for the texts of a big one). The
// first pass pairs every message and counts what the level of detail
// selects from (per tile, by class), which observer × subject pairs
// change, and the totals the page states; the second pairs them again
// and keeps only what those counts select. What load holds is what the
// page holds, the messages in flight, per-host and per-pair state, and
// two bits a message (its fate, from the first pass to the second),
// however long the run (docs/render.md, "Memory").
func load(dir string, opts Options) (*run, error) {
	m, err := bundle.ReadManifest(dir)
	if err != nil {
		return nil, &BundleError{Path: filepath.Join(dir, bundle.ManifestFile), Err: err}
	}
	r := &run{dir: dir, manifest: m, hostIdx: map[string]int32{}, strs: newStrTab(), otherRecs: map[string]int{}, markOutByType: map[int32]int64{}, reg: opts.kinds()}
	r.from, r.to = opts.FromNs, opts.ToNs
	if r.to == 0 || r.to > m.DurationNs {
		r.to = m.DurationNs
	}
	if r.from > r.to {
		r.from = r.to
	}
	if err := r.readVerdicts(); err != nil {
		return nil, err
	}
	r.readScenario()
	r.charts = r.newCharts(opts)

	c := &counts{pairs: map[pair]uint32{}, views: map[view]uint32{}}
	first := &reader{r: r, c: c, fl: newFlights(), open: map[string]int{}}
	if err := first.readEvents(); err != nil {
		return nil, err
	}
	first.fl.each(func(f flight) { r.count(c, f.val, f.sendT, -1, inFlight, f.from, f.to) })
	r.x.violations(r)
	r.charts.choose(r)
	r.charts.snapshots(r)
	r.peakInFlight = first.fl.peak
	for i := range r.muts {
		if r.muts[i].open {
			r.muts[i].end = r.to
		}
	}
	if len(r.hosts) > smallMesh {
		busy := 0
		for _, v := range c.pairs {
			if v == pairBusy {
				busy++
			}
		}
		r.pairsElided = len(c.pairs) - busy
		c.countTransitions = busy == 0 && c.viewMarks == 0
	}
	// The second pass keeps exactly this many: no append doubles.
	var arrows, marks int
	for k := range tiles {
		arrows += min(c.msgs[k], tileArrows)
		marks += min(c.high[k], tileHighMarks) + min(c.low[k], tileLowMarks)
	}
	r.msgs, r.marks = make([]msg, 0, arrows), make([]mark, 0, marks)
	second := &reader{r: r, c: c, fl: newFlights(), keep: true, texts: r.newTexts()}
	if err := second.readLines(); err != nil {
		return nil, err
	}
	if err := second.texts.finish(r); err != nil {
		return nil, err
	}
	return r, nil
}

// counts is what the first pass learns for the second.
type counts struct {
	// fate: each message's, in the order they appear (plan.go).
	fate fates
	// Per tile: messages, those of them not delivered, and high and low marks.
	msgs, undelivered, high, low [tiles]int
	// pairs: each observer × subject pair's first view, as an index in
	// views (which a thousand-peer mesh's million pairs share), or
	// pairBusy once a later view differed.
	pairs map[pair]uint32
	views map[view]uint32
	// viewMarks counts transitions drawn as marks. When there are none
	// and no pair is drawn (a big mesh that stayed Alive: a thousand
	// peers' million initial views), the second pass only counts
	// state_transition records, and decodes none of them again.
	viewMarks        int
	countTransitions bool
}

type pair struct{ o, s int32 }

type view struct {
	inc   int64
	state int32
}

const pairBusy = ^uint32(0)

// viewIdx is v's index in c.views. Only first views go in: a table of
// every view seen would grow with the run.
func (c *counts) viewIdx(v view) uint32 {
	i, ok := c.views[v]
	if !ok {
		i = uint32(len(c.views))
		c.views[v] = i
	}
	return i
}

// reader is one pass over events.ndjson. Both passes run the same code
// over the same records, so the string and host tables and every pairing
// come out the same; the first (keep false) fills the tables and counts,
// the second (keep true) keeps what plan.go selects from the counts.
type reader struct {
	r    *run
	c    *counts
	fl   *flights
	keep bool
	seq  int            // messages so far: sends, and receives no send pairs with
	open map[string]int // first pass: "Partition" or "kill:<peer>" → index in r.muts
	p    payload

	// The second pass: what it has kept, and what it keeps of this line.
	sel    selection
	texts  *texts
	hi, lo bool // the line is drawn as a high item, a low one
}

func (rd *reader) readEvents() error {
	err := bundle.ReadEvents(rd.r.dir, rd.record)
	if err != nil {
		var le *bundle.LineError
		path := filepath.Join(rd.r.dir, bundle.EventsFile)
		if errors.As(err, &le) {
			return &BundleError{Path: path + ":" + strconv.Itoa(le.Line), Err: le.Err}
		}
		return &BundleError{Path: path, Err: err}
	}
	return nil
}

// readLines is the second pass: the records again, and each line's text
// offered to the page.
func (rd *reader) readLines() error {
	path := filepath.Join(rd.r.dir, bundle.EventsFile)
	return rd.r.eachLine(func(line int, b []byte) error {
		rd.hi, rd.lo = false, false
		// The first pass read every line; this one cannot fail but
		// for a file changed under it.
		rec, err := bundle.ParseEventLine(b)
		if err == nil {
			err = rd.record(line, rec)
		}
		if err != nil {
			return &BundleError{Path: path + ":" + strconv.Itoa(line), Err: err}
		}
		rd.texts.offer(line, b, rd.hi, rd.lo)
		return nil
	})
}

func (rd *reader) record(line int, rec bundle.EventRecord) error {
	r, p := rd.r, &rd.p
	if !rd.keep {
		r.records++
	}
	t := rec.VirtualTimeNs
	r.charts.feed(rd, line, &rec)
	kind := r.kindOf(rec.KindTag)
	views := viewType(kind) == rec.Type && viewType(kind) != ""
	if rd.keep {
		// The second pass does not decode again what it would only skip
		// or count (the first decoded every record and reported any it
		// could not): records after the window, records before it that
		// are not messages, and view changes when the first pass found
		// none to draw.
		switch {
		case t > r.to, t < r.from && !maybeMessage(rec.Type):
			return nil
		case rd.c.countTransitions && views:
			if t >= r.from {
				r.transElided++
			}
			return nil
		}
	}
	*p = payload{}
	// A kind's own records other than messages are read through its
	// declarations (hosts.Payload), so only checked here: decoding them
	// into payload too read every probe and view change twice.
	if kind == nil || maybeMessage(rec.Type) || !json.Valid(rec.Event) {
		// A member of an unexpected type (another producer's "bytes":
		// "21") is left zero and the rest decoded: the record still draws.
		if err := json.Unmarshal(rec.Event, p); err != nil {
			var te *json.UnmarshalTypeError
			if !errors.As(err, &te) {
				return &bundle.LineError{Line: line, Err: fmt.Errorf("event: %w", err)}
			}
		}
	}
	// A message's receive may fall inside the window when its send
	// did not; sends before the window are still paired (then
	// dropped), so a receive inside is drawn from its true send.
	inside := t >= r.from && t <= r.to
	if !inside && t > r.to {
		rd.outside()
		return nil
	}
	var h int32 = -1
	if rec.HostID != "" {
		h = r.host(rec.HostID)
	}
	if kind, send, ok := messageEvent(rec.Type, p); ok && h >= 0 {
		k := r.str(kind)
		if !rd.keep && !slices.Contains(r.kinds, k) {
			r.kinds = append(r.kinds, k)
		}
		peer := r.host(p.Peer)
		if send {
			rd.sent(msg{sendT: t, recvT: -1, from: h, to: peer, kind: k, bytes: p.Bytes, updates: p.Updates, sendLine: line, status: inFlight, reason: -1}, keyOf(h, peer, k, p))
		} else if f, ok := rd.fl.popKey(keyOf(peer, h, k, p)); ok {
			rd.settled(f, delivered, t, line, -1)
		} else {
			rd.recvOnly(msg{sendT: t, recvT: t, from: peer, to: h, kind: k, bytes: p.Bytes, updates: p.Updates, endLine: line, status: recvOnly, reason: -1})
		}
		if !inside {
			rd.outside()
		}
		return nil
	}
	if !inside {
		rd.outside()
		return nil
	}
	if kind != nil {
		rd.kindRecord(kind, views, t, h, line, &rec)
		return nil
	}
	switch rec.Type {
	case "drop_on_send", "drop_on_delivery":
		from, to := r.host(p.From), r.host(p.To)
		if rec.Type == "drop_on_send" {
			// The engine records the drop right after the send it refuses.
			if f, ok := rd.fl.popEdgeAt(edge{from, to}, t); ok {
				rd.settled(f, droppedOnSend, -1, line, r.str(p.Reason))
			}
		} else if f, ok := rd.fl.popEdge(edge{from, to}); ok {
			rd.settled(f, droppedDelivery, t, line, r.str(p.Reason))
		}
		host := h
		if host < 0 {
			host = from
		}
		rd.mark(t, host, rec.Type, rec.Type+" "+p.From+"→"+p.To+": "+p.Reason, line, true)
	case "mutation":
		if !rd.keep {
			r.addMutation(t, p, line, rd.open)
		}
		rd.hi = true
	case "cache_state_change":
		rd.mark(t, h, rec.Type, "cache "+p.From+"→"+p.To+" "+p.Transition+" ("+p.State+")", line, p.Transition == "invalidated")
	case "dial_start":
		rd.mark(t, h, rec.Type, "dial "+p.From+"→"+p.To, line, false)
	case "dial_outcome":
		rd.mark(t, h, rec.Type, "dial "+p.From+"→"+p.To+" "+p.Outcome, line, p.Outcome != "ok")
	case "decode_error":
		rd.mark(t, h, rec.Type, "decode error "+p.From+"→"+p.To+": "+p.Error, line, true)
	default:
		rd.mark(t, h, rec.Type, rec.Type, line, true)
	}
	return nil
}

// kindRecord draws a record of a registered kind as the kind declares:
// a view change on the membership timeline (and, when it is news, a mark
// on the observer's lane), else a mark labelled by the kind's Mark for
// its type, or by the type alone.
func (rd *reader) kindRecord(k *kindLanes, views bool, t int64, h int32, line int, rec *bundle.EventRecord) {
	r, ev := rd.r, hosts.Payload(rec.Event)
	if r.x.feed(r, k, t, h, line, rec.Type, ev, !rd.keep) {
		rd.hi = true
	}
	if views {
		v := k.views
		obs := rec.HostID
		if v.Observer != "" {
			obs = ev.Str(v.Observer)
		}
		subj, state, reason, ver := ev.Str(v.Subject), ev.Str(v.State), ev.Str(v.Reason), ev.Num(v.Version)
		o, s := r.host(obs), r.host(subj)
		r.healthy = v.States[0].Name
		rd.transition(transition{t: t, o: o, s: s, state: r.str(state), inc: ver, reason: r.str(reason), line: line})
		if reason != v.Initial && (state != v.States[0].Name || v.Noted != nil && v.Noted(reason)) {
			rd.c.viewMarks++
			rd.mark(t, o, "view_"+state, obs+" sees "+subj+" "+state+" ("+v.VersionShort+" "+strconv.FormatInt(ver, 10)+", "+reason+")", line, true)
		}
		return
	}
	m, ok := k.mark(rec.Type)
	if !ok {
		rd.mark(t, h, rec.Type, rec.Type, line, true)
		return
	}
	high := m.High == nil || m.High(ev)
	rd.markFunc(t, h, rec.Type, func() string { return m.Label(ev) }, line, high)
}

func (rd *reader) outside() {
	if !rd.keep {
		rd.r.outside++
	}
}

// sent puts a send in flight; the second pass keeps it if plan.go says so.
func (rd *reader) sent(m msg, k pairKey) {
	val := rd.seq
	if rd.keep {
		val = rd.keepMsg(m)
		rd.lo = rd.lo || val >= 0
	}
	rd.seq++
	rd.fl.send(m.sendT, m.from, m.to, k, val)
}

// settled is a message in flight received or dropped: the first pass
// counts it, the second completes it if it keeps it.
func (rd *reader) settled(f flight, status int8, recvT int64, line int, reason int32) {
	if !rd.keep {
		rd.r.count(rd.c, f.val, f.sendT, recvT, status, f.from, f.to)
		return
	}
	if f.val < 0 {
		return
	}
	rd.lo = true
	m := &rd.r.msgs[f.val]
	m.status, m.endLine, m.reason = status, line, reason
	if status != droppedOnSend {
		m.recvT = recvT
	}
}

// recvOnly is a receive no send pairs with, drawn at its instant.
func (rd *reader) recvOnly(m msg) {
	if !rd.keep {
		rd.r.unpaired++
		rd.r.count(rd.c, rd.seq, m.sendT, m.recvT, recvOnly, m.from, m.to)
	} else if rd.keepMsg(m) >= 0 {
		rd.lo = true
	}
	rd.seq++
}

// count is the first pass's tally of one message once its fate is
// known: sends before the window took part in pairing only; the rest
// are counted per status, per tile and class, and per density bucket.
// A message outside the window is not counted among the records outside
// it: its records already were, one each, as they were read (issue 22:
// counting the message too made 8 579 of a run's 8 331 records "outside").
func (r *run) count(c *counts, seq int, sendT, recvT int64, status int8, from, to int32) {
	if sendT < r.from && (recvT < r.from || status == inFlight) {
		return
	}
	c.fate.set(seq, fateOf(status))
	r.nMsgs++
	r.msgCount[status]++
	k := r.tileOf(sendT)
	c.msgs[k]++
	if status != delivered {
		c.undelivered[k]++
	}
	if status != recvOnly {
		r.addDensity(from, sendT)
	}
	if status == delivered || status == recvOnly {
		r.addDensity(to, recvT)
	}
}

func (r *run) addDensity(h int32, t int64) {
	for int(h) >= len(r.dens) {
		r.dens = append(r.dens, nil)
	}
	if r.dens[h] == nil {
		r.dens[h] = make([]int64, densityBuckets)
	}
	r.dens[h][r.scale(t, densityBuckets)]++
}

// keepMsg is the second pass's choice for message rd.seq: its index in
// r.msgs if kept, else -1.
func (rd *reader) keepMsg(m msg) int {
	r := rd.r
	f := rd.c.fate.get(rd.seq)
	if f == fateNotDrawn {
		return -1
	}
	k := r.tileOf(m.sendT)
	if !rd.sel.arrow(rd.c, k, f == fateUndelivered) {
		r.arrowsOut[k]++
		return -1
	}
	r.msgs = append(r.msgs, m)
	return len(r.msgs) - 1
}

// mark is a record drawn as a tick on lane h (counted, if h is no lane).
func (rd *reader) mark(t int64, h int32, typ, label string, line int, high bool) {
	rd.markFunc(t, h, typ, func() string { return label }, line, high)
}

// markFunc is mark with the label made only if the mark is kept.
func (rd *reader) markFunc(t int64, h int32, typ string, label func() string, line int, high bool) {
	r := rd.r
	if h < 0 {
		if !rd.keep {
			r.otherRecs[typ]++
		}
		return
	}
	k := r.tileOf(t)
	y := r.str(typ)
	if !rd.keep {
		// The label is interned only if the second pass keeps the mark:
		// labels are mostly unique (a probe's target and sequence), so
		// interning every one would grow the page with the run.
		r.nMarks++
		if high {
			rd.c.high[k]++
		} else {
			rd.c.low[k]++
		}
		return
	}
	if !rd.sel.mark(rd.c, k, high) {
		r.marksOut[k]++
		r.markOutByType[y]++
		return
	}
	r.marks = append(r.marks, mark{t: t, host: h, typ: y, label: r.str(label()), line: line})
	if high {
		rd.hi = true
	} else {
		rd.lo = true
	}
}

// transition: the first pass notes which pairs' views change, the second
// keeps what the page draws. A small mesh (up to smallMesh hosts) keeps
// every transition; a bigger one only those of pairs whose view changed
// after the first one (state or incarnation, or a first view that was
// not alive): a pair Alive from its first view to the end is one row of
// green, and a thousand-peer mesh has a million of them.
func (rd *reader) transition(tr transition) {
	r, c := rd.r, rd.c
	k := pair{tr.o, tr.s}
	if !rd.keep {
		v := view{tr.inc, tr.state}
		if i, seen := c.pairs[k]; !seen {
			if !r.strs.equal(tr.state, r.healthy) {
				c.pairs[k] = pairBusy
			} else {
				c.pairs[k] = c.viewIdx(v)
			}
		} else if j, ok := c.views[v]; i != pairBusy && (!ok || j != i) {
			c.pairs[k] = pairBusy
		}
		return
	}
	if len(r.hosts) > smallMesh && c.pairs[k] != pairBusy {
		r.transElided++
		return
	}
	r.transKept = append(r.transKept, tr)
	rd.hi = true
}

// addMutation records a mutation as a band. Partitions last until the
// next Heal and kills until the peer's resurrection; a mutation with a
// duration lasts that long; any other is an instant across its lanes.
func (r *run) addMutation(t int64, p *payload, line int, open map[string]int) {
	mu := mutation{t: t, end: t, kind: p.Kind, line: line}
	lane := func(id string) {
		i := r.host(id)
		if !slices.Contains(mu.lanes, i) {
			mu.lanes = append(mu.lanes, i)
		}
	}
	for _, id := range p.PeersA {
		lane(id)
	}
	for _, id := range p.PeersB {
		lane(id)
	}
	for _, l := range p.Links {
		lane(l.From)
		lane(l.To)
	}
	if p.Peer != "" {
		lane(p.Peer)
	}
	closeOpen := func(key string) {
		if i, ok := open[key]; ok {
			r.muts[i].end, r.muts[i].open = t, false
			delete(open, key)
		}
	}
	switch {
	case p.Kind == "Heal":
		for _, k := range slices.Sorted(maps.Keys(open)) {
			if strings.HasPrefix(k, "partition") {
				closeOpen(k)
			}
		}
	case p.Kind == "PeerResurrect":
		closeOpen("kill:" + p.Peer)
	case p.DurationNs > 0:
		mu.end = t + min(p.DurationNs, r.to-t)
	}
	slices.Sort(mu.lanes)
	r.muts = append(r.muts, mu)
	switch p.Kind {
	case "Partition":
		r.muts[len(r.muts)-1].open = true
		open["partition"+strconv.Itoa(len(r.muts))] = len(r.muts) - 1
	case "PeerKill":
		r.muts[len(r.muts)-1].open = true
		open["kill:"+p.Peer] = len(r.muts) - 1
	}
}
func (r *run) readVerdicts() error {
	path := filepath.Join(r.dir, bundle.VerdictsFile)
	b, err := bundle.ReadFile(r.dir, bundle.VerdictsFile, bundle.MaxVerdictsBytes)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return &BundleError{Path: path, Err: errors.New("missing")}
		}
		return &BundleError{Path: path, Err: err}
	}
	if err := json.Unmarshal(b, &r.verdicts); err != nil {
		return &BundleError{Path: path, Err: err}
	}
	return nil
}

// readScenario reads scenario.toml once, through the bundle's root as
// every bundle file is read, and takes the run's name from it; a bundle
// verify accepted has a readable one, and a name is only a title.
func (r *run) readScenario() {
	var sc struct {
		Name string `toml:"name"`
	}
	if data, err := bundle.ReadFile(r.dir, bundle.ScenarioFile, bundle.MaxScenarioBytes); err == nil {
		r.scenario = string(data)
	}
	if _, err := toml.Decode(r.scenario, &sc); err == nil {
		r.name = sc.Name
	}
	if r.name == "" {
		r.name = filepath.Base(r.dir)
	}
}
