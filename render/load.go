package render

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/bundle/verdict"
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
	keep              bool
}

// mark is one record drawn as a tick on a lane.
type mark struct {
	t     int64
	host  int32
	typ   int32 // string table
	label int32 // string table: a short description
	line  int
	high  bool // never elided while its tile has room for high marks
	keep  bool
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

// run is one bundle read for drawing.
type run struct {
	dir       string
	manifest  bundle.Manifest
	name      string
	verdicts  []verdict.Verdict
	from, to  int64 // the window drawn
	records   int64
	outside   int64 // records outside the window
	hosts     []string
	hostIdx   map[string]int32
	strs      []string
	strIdx    map[string]int32
	kinds     []int32 // string-table indexes of message kinds, first-seen order
	msgs      []msg
	marks     []mark
	muts      []mutation
	trans     []transition
	unpaired  int            // receives with no send
	otherRecs map[string]int // record types drawn as nothing (counted on the page)

	// Filled by plan.
	arrowsKept, marksKept int
	transKept             []transition
	transElided           int
	pairsElided           int
	want                  []int // lines whose text the page inlines, sorted
	textsElided           int64
	texts                 []string
}

func (r *run) str(s string) int32 {
	if i, ok := r.strIdx[s]; ok {
		return i
	}
	i := int32(len(r.strs))
	r.strs = append(r.strs, s)
	r.strIdx[s] = i
	return i
}

func (r *run) host(id string) int32 {
	if i, ok := r.hostIdx[id]; ok {
		return i
	}
	i := int32(len(r.hosts))
	r.hosts = append(r.hosts, id)
	r.hostIdx[id] = i
	return i
}

// payload is every member render reads of any event type. Members that
// mean different things in different types (from/to: hosts in a drop,
// states in a state_transition) are read per type.
type payload struct {
	Type        string          `json:"type"`
	Peer        string          `json:"peer"`
	Message     string          `json:"message"`
	Bytes       int64           `json:"bytes"`
	Updates     int64           `json:"updates"`
	Seq         *int64          `json:"seq"`
	ID          json.RawMessage `json:"id"`
	MsgID       json.RawMessage `json:"msg_id"`
	MessageID   json.RawMessage `json:"message_id"`
	From        string          `json:"from"`
	To          string          `json:"to"`
	Reason      string          `json:"reason"`
	Observer    string          `json:"observer"`
	Subject     string          `json:"subject"`
	Incarnation int64           `json:"incarnation"`
	Target      string          `json:"target"`
	Mode        string          `json:"mode"`
	Via         []string        `json:"via"`
	Old         int64           `json:"old"`
	New         int64           `json:"new"`
	Cause       string          `json:"cause"`
	Transition  string          `json:"transition"`
	State       string          `json:"state"`
	Outcome     string          `json:"outcome"`
	Error       string          `json:"error"`
	Kind        string          `json:"kind"`
	PeersA      []string        `json:"peers_a"`
	PeersB      []string        `json:"peers_b"`
	Links       []struct {
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

// load reads one bundle: its manifest, verdicts, scenario name and every
// record inside the window.
func load(dir string, opts Options) (*run, error) {
	m, err := bundle.ReadManifest(dir)
	if err != nil {
		return nil, &BundleError{Path: filepath.Join(dir, bundle.ManifestFile), Err: err}
	}
	r := &run{dir: dir, manifest: m, hostIdx: map[string]int32{}, strIdx: map[string]int32{}, otherRecs: map[string]int{}}
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
	r.readScenarioName()

	fl := newFlights()
	openMut := map[string]int{} // "Partition" or "kill:<peer>" → index in r.muts
	var p payload
	err = bundle.ReadEvents(dir, func(line int, rec bundle.EventRecord) error {
		r.records++
		t := rec.VirtualTimeNs
		p = payload{}
		// A member of an unexpected type (another producer's "bytes":
		// "21") is left zero and the rest decoded: the record still draws.
		if err := json.Unmarshal(rec.Event, &p); err != nil {
			var te *json.UnmarshalTypeError
			if !errors.As(err, &te) {
				return &bundle.LineError{Line: line, Err: fmt.Errorf("event: %w", err)}
			}
		}
		// A message's receive may fall inside the window when its send
		// did not; sends before the window are still paired (then
		// dropped), so a receive inside is drawn from its true send.
		inside := t >= r.from && t <= r.to
		if !inside && t > r.to {
			r.outside++
			return nil
		}
		var h int32 = -1
		if rec.HostID != "" {
			h = r.host(rec.HostID)
		}
		if kind, send, ok := messageEvent(rec.Type, &p); ok && h >= 0 {
			k := r.str(kind)
			if !slices.Contains(r.kinds, k) {
				r.kinds = append(r.kinds, k)
			}
			peer := r.host(p.Peer)
			if send {
				fl.send(t, h, peer, keyOf(h, peer, k, &p), len(r.msgs))
				r.msgs = append(r.msgs, msg{sendT: t, recvT: -1, from: h, to: peer, kind: k, bytes: p.Bytes, updates: p.Updates, sendLine: line, status: inFlight, reason: -1})
			} else if f, ok := fl.popKey(keyOf(peer, h, k, &p)); ok {
				m := &r.msgs[f.val]
				m.recvT, m.endLine, m.status = t, line, delivered
			} else {
				r.recvOnly(t, peer, h, k, &p, line)
			}
			if !inside {
				r.outside++
			}
			return nil
		}
		if !inside {
			r.outside++
			return nil
		}
		switch rec.Type {
		case "drop_on_send", "drop_on_delivery":
			from, to := r.host(p.From), r.host(p.To)
			var f flight
			var ok bool
			if rec.Type == "drop_on_send" {
				// The engine records the drop right after the send it refuses.
				f, ok = fl.popEdgeAt(edge{from, to}, t)
			} else {
				f, ok = fl.popEdge(edge{from, to})
			}
			if ok {
				m := &r.msgs[f.val]
				m.endLine, m.reason = line, r.str(p.Reason)
				m.status = droppedOnSend
				if rec.Type == "drop_on_delivery" {
					m.status, m.recvT = droppedDelivery, t
				}
			}
			host := h
			if host < 0 {
				host = from
			}
			r.addMark(t, host, rec.Type, rec.Type+" "+p.From+"→"+p.To+": "+p.Reason, line, true)
		case "state_transition":
			o, s := r.host(p.Observer), r.host(p.Subject)
			r.trans = append(r.trans, transition{t: t, o: o, s: s, state: r.str(p.To), inc: p.Incarnation, reason: r.str(p.Reason), line: line})
			if p.Reason != "initial" && (p.To != "alive" || p.Reason == "refuted") {
				r.addMark(t, o, "view_"+p.To, p.Observer+" sees "+p.Subject+" "+p.To+" (inc "+strconv.FormatInt(p.Incarnation, 10)+", "+p.Reason+")", line, true)
			}
		case "mutation":
			r.addMutation(t, &p, line, openMut)
		case "probe_sent":
			l := "probe " + p.Target + " #" + seqText(p.Seq) + " " + p.Mode
			if len(p.Via) > 0 {
				l += " via " + strings.Join(p.Via, ",")
			}
			r.addMark(t, h, rec.Type, l, line, p.Mode != "direct")
		case "probe_acked":
			r.addMark(t, h, rec.Type, "ack from "+p.Target+" #"+seqText(p.Seq)+" "+p.Mode, line, false)
		case "probe_timed_out":
			r.addMark(t, h, rec.Type, "probe timeout "+p.Target+" #"+seqText(p.Seq)+" "+p.Mode, line, true)
		case "self_incarnation_bump":
			r.addMark(t, h, rec.Type, "incarnation "+strconv.FormatInt(p.Old, 10)+"→"+strconv.FormatInt(p.New, 10)+" ("+p.Cause+")", line, true)
		case "cache_state_change":
			r.addMark(t, h, rec.Type, "cache "+p.From+"→"+p.To+" "+p.Transition+" ("+p.State+")", line, p.Transition == "invalidated")
		case "dial_start":
			r.addMark(t, h, rec.Type, "dial "+p.From+"→"+p.To, line, false)
		case "dial_outcome":
			r.addMark(t, h, rec.Type, "dial "+p.From+"→"+p.To+" "+p.Outcome, line, p.Outcome != "ok")
		case "decode_error":
			r.addMark(t, h, rec.Type, "decode error "+p.From+"→"+p.To+": "+p.Error, line, true)
		default:
			if h >= 0 {
				r.addMark(t, h, rec.Type, rec.Type, line, true)
			} else {
				r.otherRecs[rec.Type]++
			}
		}
		return nil
	})
	if err != nil {
		var le *bundle.LineError
		path := filepath.Join(dir, bundle.EventsFile)
		if errors.As(err, &le) {
			return nil, &BundleError{Path: path + ":" + strconv.Itoa(le.Line), Err: le.Err}
		}
		return nil, &BundleError{Path: path, Err: err}
	}
	for i := range r.muts {
		if r.muts[i].open {
			r.muts[i].end = r.to
		}
	}
	// Sends before the window took part in pairing only.
	kept := r.msgs[:0]
	for _, m := range r.msgs {
		if m.sendT >= r.from || (m.recvT >= r.from && m.status != inFlight) {
			kept = append(kept, m)
		} else {
			r.outside++
		}
	}
	r.msgs = kept
	return r, nil
}

func seqText(s *int64) string {
	if s == nil {
		return "?"
	}
	return strconv.FormatInt(*s, 10)
}

func (r *run) recvOnly(t int64, from, to, kind int32, p *payload, line int) {
	r.unpaired++
	r.msgs = append(r.msgs, msg{sendT: t, recvT: t, from: from, to: to, kind: kind, bytes: p.Bytes, updates: p.Updates, endLine: line, status: recvOnly, reason: -1})
}

func (r *run) addMark(t int64, h int32, typ, label string, line int, high bool) {
	if h < 0 {
		r.otherRecs[typ]++
		return
	}
	r.marks = append(r.marks, mark{t: t, host: h, typ: r.str(typ), label: r.str(label), line: line, high: high})
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
		for _, k := range sortedKeys(open) {
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

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func (r *run) readVerdicts() error {
	path := filepath.Join(r.dir, bundle.VerdictsFile)
	b, err := os.ReadFile(path)
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

// readScenarioName takes the run's name from scenario.toml; a bundle
// verify accepted has a readable one, and a name is only a title.
func (r *run) readScenarioName() {
	var sc struct {
		Name string `toml:"name"`
	}
	if _, err := toml.DecodeFile(filepath.Join(r.dir, bundle.ScenarioFile), &sc); err == nil {
		r.name = sc.Name
	}
	if r.name == "" {
		r.name = filepath.Base(r.dir)
	}
}
