// Package ring is a token ring as a detsim host kind, written outside
// the detsim repository's module to show how one is (docs/kinds.md in
// the detsim repository).
//
// The peers, in id order, pass one token round a ring. The holder keeps
// it for hold_ticks ticks (its critical section), then sends it, with
// the next sequence number, to the next peer, and resends it every
// ack_timeout_ns until that peer acknowledges it. The bug: a receiver
// takes every token it is sent, a resent one too. When the network loses
// an acknowledgement, the sender resends a token the receiver has held
// and passed on already, and the receiver holds it a second time while
// the next peer holds the newer one: two holders at once, which the
// single_holder assertion fails. kind_config dedup = true is the fix: a
// receiver acknowledges, and ignores, a token whose sequence number it
// has seen.
//
// Like every kind, it is deterministic: it reads no clock but the now
// the engine hands it, draws no randomness (it has no use for the
// substream it is given), starts no goroutine and never ranges over a
// map to decide anything.
package ring

import (
	"embed"
	"encoding/binary"
	"errors"
	"io/fs"
	"slices"
	"strconv"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/rng"
)

// Tag is the kind's tag: what a scenario's peers name as kind, and the
// kind_tag of the records its hosts write.
const Tag = "ring"

// The record types a ring host writes.
const (
	tAcquired = "token_acquired" // seq: the host now holds token seq
	tReleased = "token_released" // seq: it no longer does
	tPassed   = "token_passed"   // to, seq: sent to the next peer
	tResent   = "token_resent"   // to, seq: sent again, unacknowledged
)

//go:embed library
var library embed.FS

// Kind is the token ring host kind: hand it to cli.Main.
var Kind hosts.Kind = kind{}

// kind is the ring. The methods of hosts.Kind are its runtime, what
// every kind provides; each of the others is one of the optional
// interfaces detsim looks for (hosts/kind.go), and a kind implements
// only those it has something for.
type kind struct{}

// The runtime: hosts.Kind.
func (kind) Tag() string        { return Tag }
func (kind) States() []string   { return []string{"up", "down"} }
func (kind) Codec() hosts.Codec { return codec{} }

func (kind) Validate(config map[string]any, peers []string) []hosts.FieldError {
	return validate(config, peers)
}

func (kind) New(id string, config map[string]any, state string, peers []string, r *rng.Stream) hosts.Host {
	return newHost(id, config, state, peers, r)
}

// hosts.Restartable: a "down" peer runs from a PeerResurrect on, as "up".
func (kind) DownState() string    { return "down" }
func (kind) RestartState() string { return "up" }

// hosts.Describer: a message named for the stepper's queue pane.
func (kind) Describe(b []byte) string { return describe(b) }

// hosts.Records: one prototype of every record a ring host writes.
func (kind) Events() []hosts.Event { return events }

var events = []hosts.Event{
	&event{typ: tAcquired, seq: 1}, &event{typ: tReleased, seq: 1},
	&event{typ: tPassed, to: "b", seq: 1}, &event{typ: tResent, to: "b", seq: 1},
}

// hosts.Watcher: `--watch 'host=a field=seq'`.
func (kind) Watches() []hosts.Watch { return watches }

var watches = []hosts.Watch{
	{Field: "seq", Type: tAcquired, Value: "seq", Doc: "the sequence number of the last token the host took"},
}

// hosts.Charts: the page's charts.
func (kind) Series() []hosts.Series { return series }

var series = []hosts.Series{
	{ID: "ring_acquisitions", Title: "tokens taken", Types: []string{tAcquired}, Agg: hosts.AggCount,
		Doc: "how many times a host took the token"},
	{ID: "ring_resends", Title: "tokens resent", Types: []string{tResent}, Agg: hosts.AggCount,
		Doc: "tokens sent again for want of an acknowledgement"},
}

// hosts.Oracle: the single_holder assertion and its judge (judge.go).
func (kind) Assertions() *hosts.Assertions { return family }

var family = &hosts.Assertions{
	Kinds: []hosts.AssertionKind{hosts.Def[SingleHolder](hosts.NoPair, hosts.NoPair)},
	Judge: newJudge,
}

// hosts.Librarian: the scenarios under library/, embedded.
func (kind) Library() fs.FS { return lib }

var lib = mustSub(library, "library")

func mustSub(f fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(f, dir)
	if err != nil {
		panic(err) // a constant, valid directory name
	}
	return sub
}

type config struct {
	holdTicks    int64
	ackTimeoutNs int64
	dedup        bool
}

func readConfig(c map[string]any) config {
	out := config{holdTicks: 3, ackTimeoutNs: 150_000_000}
	if v, ok := c["hold_ticks"].(int64); ok {
		out.holdTicks = v
	}
	if v, ok := c["ack_timeout_ns"].(int64); ok {
		out.ackTimeoutNs = v
	}
	if v, ok := c["dedup"].(bool); ok {
		out.dedup = v
	}
	return out
}

// validate checks a peer's kind_config: every problem, each named by its
// field, as the scenario loader reports them.
func validate(c map[string]any, _ []string) []hosts.FieldError {
	var errs []hosts.FieldError
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	slices.Sort(keys) // the same errors in the same order every time
	for _, k := range keys {
		switch v := c[k]; k {
		case "hold_ticks", "ack_timeout_ns":
			if n, ok := v.(int64); !ok || n < 1 {
				errs = append(errs, hosts.FieldError{Field: "kind_config." + k, Msg: "must be an integer of at least 1"})
			}
		case "dedup":
			if _, ok := v.(bool); !ok {
				errs = append(errs, hosts.FieldError{Field: "kind_config." + k, Msg: "must be true or false"})
			}
		default:
			errs = append(errs, hosts.FieldError{Field: "kind_config." + k, Msg: "unknown key (ring accepts hold_ticks, ack_timeout_ns, dedup)"})
		}
	}
	return errs
}

// host is one peer of the ring.
type host struct {
	id      string
	next    string // the peer after this one, in id order, round the ring
	cfg     config
	holding bool
	left    int64  // ticks left to hold the token
	seq     uint64 // the last token taken (or made, by the first peer)
	pending uint64 // the token sent on and not yet acknowledged, 0 for none
	out     msg
	evs     [2]event
}

func newHost(id string, c map[string]any, _ string, peers []string, _ *rng.Stream) hosts.Host {
	i := slices.Index(peers, id)
	h := &host{id: id, next: peers[(i+1)%len(peers)], cfg: readConfig(c)}
	if i == 0 {
		h.holding, h.left, h.seq = true, h.cfg.holdTicks, 1 // the first peer starts with token 1
	}
	return h
}

func (h *host) ID() string   { return h.id }
func (h *host) Kind() string { return Tag }

// Tick counts down the hold and passes the token on when it is done.
func (h *host) Tick(now int64) []hosts.Action {
	if !h.holding {
		return nil
	}
	if h.left--; h.left > 0 {
		return nil
	}
	h.holding, h.pending = false, h.seq+1
	h.out = msg{token: true, seq: h.pending}
	h.evs[0] = event{typ: tReleased, seq: h.seq}
	h.evs[1] = event{typ: tPassed, to: h.next, seq: h.pending}
	return []hosts.Action{
		hosts.Record(&h.evs[0]), hosts.Record(&h.evs[1]),
		hosts.Send(h.next, &h.out), hosts.Timer(now+h.cfg.ackTimeoutNs, h.pending),
	}
}

// Recv takes tokens, acknowledges them, and resends an unacknowledged one.
func (h *host) Recv(m hosts.Message, now int64) []hosts.Action {
	switch m := m.(type) {
	case *hosts.Delivery:
		in := m.Payload.(*msg)
		if !in.token {
			if in.seq == h.pending {
				h.pending = 0
			}
			return nil
		}
		h.out = msg{token: false, seq: in.seq}
		ack := hosts.Send(m.From, &h.out)
		if h.cfg.dedup && in.seq <= h.seq {
			return []hosts.Action{ack} // seen: acknowledge it again, and nothing else
		}
		// The bug, without dedup: a resent token is taken again.
		h.holding, h.left, h.seq = true, h.cfg.holdTicks, in.seq
		h.evs[0] = event{typ: tAcquired, seq: in.seq}
		return []hosts.Action{hosts.Record(&h.evs[0]), ack}
	case *hosts.TimerFired:
		if m.Token != h.pending {
			return nil // acknowledged meanwhile
		}
		h.out = msg{token: true, seq: h.pending}
		h.evs[0] = event{typ: tResent, to: h.next, seq: h.pending}
		return []hosts.Action{hosts.Record(&h.evs[0]), hosts.Send(h.next, &h.out), hosts.Timer(now+h.cfg.ackTimeoutNs, h.pending)}
	}
	return nil // a SendFailed: the timer resends
}

func (h *host) Snapshot() []byte {
	b := []byte(`{"holding":`)
	b = strconv.AppendBool(b, h.holding)
	b = append(b, `,"seq":`...)
	b = strconv.AppendUint(b, h.seq, 10)
	b = append(b, `,"pending":`...)
	b = strconv.AppendUint(b, h.pending, 10)
	return append(b, '}')
}

func (h *host) Clone() hosts.Host {
	c := *h // no pointer into h survives a call: out and evs are rebuilt by each
	return &c
}

// msg is a token (token true) or its acknowledgement.
type msg struct {
	token bool
	seq   uint64
}

// codec writes a message as one byte, 'T' or 'A', and the sequence
// number in 8 bytes big-endian: 9 bytes on the wire.
type codec struct{}

func (codec) Append(dst []byte, m any) ([]byte, error) {
	v, ok := m.(*msg)
	if !ok {
		return dst, errors.New("ring: not a ring message")
	}
	b := byte('A')
	if v.token {
		b = 'T'
	}
	return binary.BigEndian.AppendUint64(append(dst, b), v.seq), nil
}

func (codec) Decode(b []byte) (any, error) {
	if len(b) != 9 || (b[0] != 'T' && b[0] != 'A') {
		return nil, errors.New("ring: malformed message")
	}
	return &msg{token: b[0] == 'T', seq: binary.BigEndian.Uint64(b[1:])}, nil
}

// describe names a message for the stepper's queue pane.
func describe(b []byte) string {
	v, err := codec{}.Decode(b)
	if err != nil {
		return ""
	}
	if m := v.(*msg); m.token {
		return "token #" + strconv.FormatUint(m.seq, 10)
	} else {
		return "ack #" + strconv.FormatUint(m.seq, 10)
	}
}

// event is one record; to is empty for the types without it.
type event struct {
	typ string
	to  string
	seq uint64
}

func (e *event) Type() string { return e.typ }

// AppendJSON writes the record with "type" first and a fixed member
// order, so its bytes never depend on an encoder.
func (e *event) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"type":"`...)
	dst = append(dst, e.typ...)
	dst = append(dst, '"')
	if e.to != "" {
		dst = append(dst, `,"to":`...)
		dst = strconv.AppendQuote(dst, e.to)
	}
	dst = append(dst, `,"seq":`...)
	dst = strconv.AppendUint(dst, e.seq, 10)
	return append(dst, '}')
}
