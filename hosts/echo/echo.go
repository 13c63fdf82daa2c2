// Package echo is the trivial host kind the engine is tested with and the
// determinism reference runs on: every tick it pings every other peer, and
// it answers each ping with a pong (never a pong with anything). It has
// just enough behaviour to exercise every engine path — sends, drops,
// deliveries, timers are not needed — without any protocol logic to debug.
package echo

import (
	"slices"
	"strconv"
	"unsafe"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/jsonw"
	"github.com/detsim/detsim/rng"
)

// Tag is the kind tag of echo hosts and their events.
const Tag = "echo"

// DefaultPayloadBytes is the payload each ping and pong carries when
// kind_config sets no payload_bytes.
const DefaultPayloadBytes = 64

// MaxPayloadBytes keeps an echo message within one UDP datagram.
const MaxPayloadBytes = maxWire - headerLen

// Kind is the echo host kind for the registry.
var Kind = &hosts.Kind{
	Tag:          Tag,
	States:       []string{"up", "down"},
	DownState:    "down",
	RestartState: "up",
	Validate:     validate,
	New:          newHost,
	Codec:        codec{},
	Describe:     describe,
	Events: []hosts.Event{
		&event{typ: "ping_sent"}, &event{typ: "ping_received"},
		&event{typ: "pong_sent"}, &event{typ: "pong_received"},
	},
}

func validate(config map[string]any, _ []string) []hosts.FieldError {
	var errs []hosts.FieldError
	for _, k := range sortedKeys(config) {
		if k != "payload_bytes" {
			errs = append(errs, hosts.FieldError{Field: "kind_config." + k, Msg: "unknown key (echo accepts only payload_bytes)"})
		}
	}
	if v, ok := config["payload_bytes"]; ok {
		n, isInt := v.(int64)
		switch {
		case !isInt:
			errs = append(errs, hosts.FieldError{Field: "kind_config.payload_bytes", Msg: "must be an integer"})
		case n < 0 || n > MaxPayloadBytes:
			errs = append(errs, hosts.FieldError{Field: "kind_config.payload_bytes", Msg: "must be in [0, " + strconv.Itoa(MaxPayloadBytes) + "]"})
		}
	}
	return errs
}

// host is one echo peer.
type host struct {
	id      string
	peers   []string // every declared peer, sorted: the engine's slice, shared by every host, never written
	self    int      // this host's position in peers
	payload int
	seq     uint64  // last ping sequence number sent
	out     msg     // reused: the engine encodes a Send before the next call
	evs     []event // reused: the engine serialises events before the next call
	acts    []hosts.Action
	stats   stats
}

type stats struct {
	PingsSent, PingsReceived, PongsSent, PongsReceived, SendFailures int64
}

func newHost(id string, config map[string]any, _ string, peers []string, _ *rng.Stream) hosts.Host {
	h := &host{id: id, payload: DefaultPayloadBytes}
	if v, ok := config["payload_bytes"].(int64); ok {
		h.payload = int(v)
	}
	h.peers, h.self = peers, slices.Index(peers, id)
	return h
}

// keptBuffer is the most events a host keeps its buffers for between
// calls. A tick records one per other peer: at 9 999 peers a host's
// buffers are 1.5 MB, and kept by every host they were gigabytes (memory
// quadratic in peers). Past this they are made for the tick that needs
// them and dropped at the next call.
const keptBuffer = 256

// ensure makes room for n more events and their actions before any is
// recorded, so record never moves an event already pointed to.
func (h *host) ensure(n int) {
	if cap(h.evs)-len(h.evs) < n {
		h.evs = make([]event, 0, len(h.evs)+n)
	}
	if cap(h.acts)-len(h.acts) < 2*n {
		h.acts = make([]hosts.Action, 0, len(h.acts)+2*n)
	}
}

func (h *host) ID() string   { return h.id }
func (h *host) Kind() string { return Tag }

// Tick pings every other peer with the next sequence number.
func (h *host) Tick(now int64) []hosts.Action {
	h.reset()
	h.seq++
	h.out = msg{pong: false, seq: h.seq, payload: h.payload}
	h.ensure(max(len(h.peers)-1, 0))
	for i, p := range h.peers {
		if i == h.self {
			continue
		}
		h.stats.PingsSent++
		h.record(event{typ: "ping_sent", peer: p, seq: h.seq, bytes: headerLen + h.payload})
		h.acts = append(h.acts, hosts.Send(p, &h.out))
	}
	return h.acts
}

// Recv answers pings with pongs and records what arrived.
func (h *host) Recv(m hosts.Message, now int64) []hosts.Action {
	h.reset()
	switch m := m.(type) {
	case *hosts.Delivery:
		in := m.Payload.(*msg)
		if in.pong {
			h.ensure(1)
			h.stats.PongsReceived++
			h.record(event{typ: "pong_received", peer: m.From, seq: in.seq, bytes: headerLen + in.payload})
			return h.acts
		}
		h.ensure(2)
		h.stats.PingsReceived++
		h.stats.PongsSent++
		h.out = msg{pong: true, seq: in.seq, payload: h.payload}
		h.record(event{typ: "ping_received", peer: m.From, seq: in.seq, bytes: headerLen + in.payload})
		h.record(event{typ: "pong_sent", peer: m.From, seq: in.seq, bytes: headerLen + h.payload})
		h.acts = append(h.acts, hosts.Send(m.From, &h.out))
	case *hosts.SendFailed:
		h.stats.SendFailures++
	}
	return h.acts
}

// reset starts a new call's action list. The events of the previous call
// were serialised before this call, so their storage is free again.
func (h *host) reset() {
	if cap(h.evs) > keptBuffer {
		h.evs, h.acts = nil, nil
	}
	h.acts = h.acts[:0]
	h.evs = h.evs[:0]
}

// record appends ev as an action. It points into evs, which ensure sized
// for the events this call records, so it never moves an event already
// pointed to.
func (h *host) record(ev event) {
	h.evs = append(h.evs, ev)
	h.acts = append(h.acts, hosts.Record(&h.evs[len(h.evs)-1]))
}

// Snapshot reports the host's counters.
func (h *host) Snapshot() []byte {
	b := []byte(`{"id":`)
	b = jsonw.AppendString(b, h.id)
	b = append(b, `,"seq":`...)
	b = strconv.AppendUint(b, h.seq, 10)
	b = append(b, `,"pings_sent":`...)
	b = strconv.AppendInt(b, h.stats.PingsSent, 10)
	b = append(b, `,"pings_received":`...)
	b = strconv.AppendInt(b, h.stats.PingsReceived, 10)
	b = append(b, `,"pongs_sent":`...)
	b = strconv.AppendInt(b, h.stats.PongsSent, 10)
	b = append(b, `,"pongs_received":`...)
	b = strconv.AppendInt(b, h.stats.PongsReceived, 10)
	b = append(b, `,"send_failures":`...)
	b = strconv.AppendInt(b, h.stats.SendFailures, 10)
	return append(b, '}')
}

func (h *host) Clone() hosts.Host {
	c := *h
	c.evs, c.acts = nil, nil
	return &c // peers is never written, so sharing it is safe
}

// event is every echo diagnostics record: ping_sent, ping_received,
// pong_sent, pong_received.
type event struct {
	typ   string
	peer  string
	seq   uint64
	bytes int
}

func (e *event) Type() string { return e.typ }

func (e *event) AppendJSON(b []byte) []byte {
	b = append(b, `{"type":"`...)
	b = append(b, e.typ...)
	b = append(b, `","peer":`...)
	b = jsonw.AppendString(b, e.peer)
	b = append(b, `,"seq":`...)
	b = strconv.AppendUint(b, e.seq, 10)
	b = append(b, `,"bytes":`...)
	b = strconv.AppendInt(b, int64(e.bytes), 10)
	return append(b, '}')
}

// ApproxBytes estimates what a Clone holds (the engine's checkpoint byte
// budget): the struct and its reused buffers; peers is shared.
func (h *host) ApproxBytes() int64 {
	return int64(unsafe.Sizeof(*h)) + int64(cap(h.evs))*int64(unsafe.Sizeof(event{})) + int64(cap(h.acts))*int64(unsafe.Sizeof(hosts.Action{}))
}
