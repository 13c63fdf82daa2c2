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
var Kind hosts.Kind = kind{}

// kind is the echo kind: the runtime, a "down" state (hosts.Restartable),
// its messages named for viewers (hosts.Describer) and its records
// (hosts.Records).
type kind struct{}

var (
	states = []string{"up", "down"}
	events = []hosts.Event{
		&event{typ: "ping_sent"}, &event{typ: "ping_received"},
		&event{typ: "pong_sent"}, &event{typ: "pong_received"},
	}
)

func (kind) Tag() string              { return Tag }
func (kind) States() []string         { return states }
func (kind) DownState() string        { return "down" }
func (kind) RestartState() string     { return "up" }
func (kind) Codec() hosts.Codec       { return codec{} }
func (kind) Describe(b []byte) string { return describe(b) }
func (kind) Events() []hosts.Event    { return events }

func (kind) Validate(config map[string]any, peers []string) []hosts.FieldError {
	return validate(config, peers)
}

func (kind) New(id string, config map[string]any, state string, peers []string, r *rng.Stream) hosts.Host {
	return newHost(id, config, state, peers, r)
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
	seq     uint64 // last ping sequence number sent
	out     msg    // reused: the engine encodes a Send before the next call
	stats   stats

	// The actions a call returns point at the host's own events and out,
	// which the engine has serialised and encoded before the next call,
	// so they are built once and reused: a tick's (a record and a send
	// per other peer) stay the same but for the events' seq, a
	// delivery's but for its events and the pong's destination. Building
	// them afresh each call was a quarter of an echo event's cost
	// (docs/BENCHMARKS.md, "The engine near its floor"). Clone drops
	// them, as they point into this host.
	tickEvs  []event
	tickActs []hosts.Action
	recvEvs  [2]event
	recvActs []hosts.Action // records of recvEvs[0] and [1], then the pong
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

// keptBuffer is the most pings a host keeps a tick's buffers for between
// calls. A tick records one per other peer: at 9 999 peers a host's
// buffers are 1.5 MB, and kept by every host they were gigabytes (memory
// quadratic in peers). Past this they are made for the tick that needs
// them and dropped at the next call.
const keptBuffer = 256

// dropBig forgets a tick's buffers too big to keep (keptBuffer); the
// engine is done with the tick that returned them.
func (h *host) dropBig() {
	if len(h.tickEvs) > keptBuffer {
		h.tickEvs, h.tickActs = nil, nil
	}
}

func (h *host) ID() string   { return h.id }
func (h *host) Kind() string { return Tag }

// Tick pings every other peer with the next sequence number.
func (h *host) Tick(now int64) []hosts.Action {
	h.dropBig()
	h.seq++
	h.out = msg{pong: false, seq: h.seq, payload: h.payload}
	if h.tickActs == nil {
		h.tickEvs = make([]event, 0, max(len(h.peers)-1, 0))
		h.tickActs = make([]hosts.Action, 0, 2*cap(h.tickEvs))
		for i, p := range h.peers {
			if i == h.self {
				continue
			}
			h.tickEvs = append(h.tickEvs, event{typ: "ping_sent", peer: p, bytes: headerLen + h.payload})
			h.tickActs = append(h.tickActs, hosts.Record(&h.tickEvs[len(h.tickEvs)-1]), hosts.Send(p, &h.out))
		}
	}
	for i := range h.tickEvs {
		h.tickEvs[i].seq = h.seq
	}
	h.stats.PingsSent += int64(len(h.tickEvs))
	return h.tickActs
}

// Recv answers pings with pongs and records what arrived.
func (h *host) Recv(m hosts.Message, now int64) []hosts.Action {
	h.dropBig()
	switch m := m.(type) {
	case *hosts.Delivery:
		if h.recvActs == nil {
			h.recvActs = []hosts.Action{hosts.Record(&h.recvEvs[0]), hosts.Record(&h.recvEvs[1]), {}}
		}
		in := m.Payload.(*msg)
		if in.pong {
			h.stats.PongsReceived++
			h.recvEvs[0] = event{typ: "pong_received", peer: m.From, seq: in.seq, bytes: headerLen + in.payload}
			return h.recvActs[:1]
		}
		h.stats.PingsReceived++
		h.stats.PongsSent++
		h.out = msg{pong: true, seq: in.seq, payload: h.payload}
		h.recvEvs[0] = event{typ: "ping_received", peer: m.From, seq: in.seq, bytes: headerLen + in.payload}
		h.recvEvs[1] = event{typ: "pong_sent", peer: m.From, seq: in.seq, bytes: headerLen + h.payload}
		h.recvActs[2] = hosts.Send(m.From, &h.out)
		return h.recvActs
	case *hosts.SendFailed:
		h.stats.SendFailures++
	}
	return nil
}

// Snapshot reports the host's counters, appended by hand as every kind's
// snapshot is, alike in shape: the members are echo's.
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
	// The actions point into h; peers is never written, so sharing it is
	// safe.
	c.tickEvs, c.tickActs, c.recvActs = nil, nil, nil
	return &c
}

// event is every echo diagnostics record: ping_sent, ping_received,
// pong_sent, pong_received. Its fields look like other kinds' records
// (the outside-kind example's, memberlist's observer's) by their types
// only.
type event struct {
	typ   string
	peer  string
	seq   uint64
	bytes int
}

func (e *event) Type() string { return e.typ }

// Written by hand as every kind writes its hottest record, alike in shape to
// raft's msgEvent: the members are echo's.
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
	return int64(unsafe.Sizeof(*h)) + int64(cap(h.tickEvs))*int64(unsafe.Sizeof(event{})) + int64(cap(h.tickActs)+cap(h.recvActs))*int64(unsafe.Sizeof(hosts.Action{}))
}
