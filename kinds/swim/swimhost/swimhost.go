// Package swimhost is the SWIM host kind (spec §6.2): a thin adapter that
// runs the kinds/swim/swim state machine, unchanged, behind the simulator's
// host interface. It translates and nothing else: ticks, deliveries,
// timers and send failures go in; the node's effects come out as actions
// in the order the node produced them; snapshots are the node's own
// tier-2 JSON. An effect it cannot route panics, because silently
// dropping one is the class of bug the simulator exists to catch.
package swimhost

import (
	"fmt"
	"io/fs"
	"math"
	"strconv"

	"github.com/detsim/detsim/causal"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/hosts/pane"
	"github.com/detsim/detsim/internal/jsonw"
	"github.com/detsim/detsim/kinds/swim/swim"
	"github.com/detsim/detsim/kinds/swim/swimcfg"
	"github.com/detsim/detsim/kinds/swim/swimcheck"
	"github.com/detsim/detsim/rng"
)

// Tag is the kind tag of SWIM hosts and their events (spelled once, in
// swimcheck, whose judge routes records by it).
const Tag = swimcheck.Tag

// Kind is the SWIM host kind for the registry. initial_state: "member"
// (knows every declared peer as alive at incarnation 0), "joining" (knows
// only kind_config.seeds and sends them join requests) or "down" (not
// running until a PeerResurrect, which starts it as joining).
var Kind hosts.Kind = kind{}

// kind is the SWIM kind: the runtime, its records and how they are drawn
// (declare.go), its assertions (swimcheck), the explanation of a view
// (explain.go), the stepper's pane (pane.go) and its scenario library
// (library.go).
type kind struct{}

var (
	states     = []string{"member", "joining", "down"}
	prototypes = events()
)

func (kind) Tag() string          { return Tag }
func (kind) States() []string     { return states }
func (kind) DownState() string    { return "down" }
func (kind) RestartState() string { return "joining" }
func (kind) Codec() hosts.Codec   { return codec{} }

func (kind) Validate(config map[string]any, peers []string) []hosts.FieldError {
	return validate(config, peers)
}

func (kind) New(id string, config map[string]any, state string, peers []string, r *rng.Stream) hosts.Host {
	return newHost(id, config, state, peers, r)
}

func (kind) Describe(b []byte) string       { return swim.DescribeWire(b) }
func (kind) Events() []hosts.Event          { return prototypes }
func (kind) Watches() []hosts.Watch         { return watches }
func (kind) Series() []hosts.Series         { return series }
func (kind) Marks() []hosts.Mark            { return marks }
func (kind) Views() *hosts.Views            { return views }
func (kind) Band() *hosts.Band              { return nil }
func (kind) History() *hosts.History        { return nil }
func (kind) Assertions() *hosts.Assertions  { return swimcheck.Family }
func (kind) Explainer() causal.Explainer    { return explainer{} }
func (kind) Pane(in pane.Input) []pane.Line { return drawPane(in) }
func (kind) Library() fs.FS                 { return library }

func events() []hosts.Event {
	var out []hosts.Event
	for _, e := range swim.EventPrototypes() {
		out = append(out, e)
	}
	return append(out, &QueueChanged{})
}

// validate is swimcfg.Parse's verdict: the daemon parses kind_config
// with the same code.
func validate(config map[string]any, peers []string) []hosts.FieldError {
	_, errs := swimcfg.Parse(config, peers)
	return errs
}

func newHost(id string, config map[string]any, state string, peers []string, r *rng.Stream) hosts.Host {
	cfg, errs := swim.ParseConfig(config)
	if len(errs) > 0 {
		panic(fmt.Sprintf("swimhost: %s: config the loader accepted does not parse: %v", id, errs))
	}
	return adopt(swim.New(id, cfg, swimcfg.Start(state), peers, r), r)
}

// adopt wraps node in a host that receives its effects directly.
func adopt(node *swim.Node, r *rng.Stream) *host {
	h := &host{node: node, rng: r}
	node.SetOutput(h)
	// The engine encodes a call's sends before it makes the next call.
	node.ReuseSentUpdates(true)
	return h
}

// host adapts one swim.Node.
type host struct {
	node *swim.Node
	rng  *rng.Stream // the node's randomness; cloned with it
	acts []hosts.Action
	// depth is the queue depth the last broadcast_queue record gave.
	depth int
}

func (h *host) ID() string   { return h.node.Self() }
func (h *host) Kind() string { return Tag }

func (h *host) Tick(now int64) []hosts.Action {
	h.begin()
	h.node.Tick(now)
	h.noteQueue()
	return h.acts
}

// TickDue makes host a hosts.Dozer: the node's TickDue, unless the
// queue's depth moved since the last record of it, which the next Tick
// records.
func (h *host) TickDue() int64 {
	if d, _ := h.node.QueueDepth(); d != h.depth {
		return math.MinInt64
	}
	return h.node.TickDue()
}

func (h *host) Recv(m hosts.Message, now int64) []hosts.Action {
	h.begin()
	switch m := m.(type) {
	case *hosts.Delivery:
		if m.Reliable { // it came over a stream: the node answers on it
			h.node.ReceiveStreamID(m.From, m.ID, payload(m.Payload), now)
		} else {
			h.node.ReceiveID(m.From, m.ID, payload(m.Payload), now)
		}
	case *hosts.TimerFired:
		h.node.TimerFired(m.Token, now)
	case *hosts.SendFailed:
		h.node.SendFailed(m.To, m.Reason, now)
	default:
		panic(fmt.Sprintf("swimhost: %s: unknown message %T", h.node.Self(), m))
	}
	h.noteQueue()
	return h.acts
}

// begin empties the action buffer for a call. The engine consumes the
// actions of one call before making the next, so the buffer is reused; a
// buffer a burst grew (a join response's thousand members) is let go
// once a call has not needed it (Trim lets it go sooner). A node's
// start-up is no burst: its initial transitions come as a few actions
// (StartView).
func (h *host) begin() {
	if cap(h.acts) > maxKeptActions && len(h.acts) <= maxKeptActions {
		h.acts = nil
		return
	}
	clear(h.acts) // keep no event or message of the last call alive
	h.acts = h.acts[:0]
}

// The node's effects become actions as they happen (swim.Output), one for
// one and in order: messages and events pass through as pointers. A
// send's id (the one its message_sent names) rides beside the message
// (hosts.SendID) and comes back to the receiver as Delivery.ID.

func (h *host) Send(to string, msg *swim.Message, id uint64) {
	h.acts = append(h.acts, hosts.SendID(to, msg, id))
}
func (h *host) Timer(at int64, token uint64) { h.acts = append(h.acts, hosts.Timer(at, token)) }
func (h *host) Event(e swim.Event)           { h.acts = append(h.acts, hosts.Record(e)) }

// SendStream is swim.StreamOutput: the fallback probe's ping opens a
// reliable stream, its ack answers on it (docs/decisions.md, "The
// reliable path").
func (h *host) SendStream(to string, msg *swim.Message, t swim.Transport, id uint64) {
	if t == swim.StreamReply {
		h.acts = append(h.acts, hosts.ReplyReliable(to, msg, id))
		return
	}
	h.acts = append(h.acts, hosts.SendReliable(to, msg, id))
}

// maxKeptActions is the largest action buffer a host keeps between calls.
const maxKeptActions = 256

func (h *host) Snapshot() []byte { return h.node.Snapshot() }

// Trim releases the buffers a burst of actions grew (hosts.Trimmer): the
// engine has consumed them.
func (h *host) Trim() {
	h.acts = nil
}

func (h *host) Clone() hosts.Host {
	r := h.rng.Clone()
	c := adopt(h.node.Clone(r), r)
	c.depth = h.depth
	return c
}

// Node exposes the state machine, for viewers that want more than the
// snapshot JSON.
func (h *host) Node() *swim.Node { return h.node }

// DescribeTimer says what a timer is for (hosts.Inspector).
func (h *host) DescribeTimer(token uint64) string { return h.node.DescribeTimer(token) }

// Inspect is the node's "why" (hosts.Inspector), one JSON object:
//
//	accused: [{member, state, incarnation, accuser}] — every member held
//	         suspect or dead, sorted by id, with who accused it;
//	broadcast_queue: {total, entries: [{member, state, incarnation[,
//	         accuser], transmits, bytes}]} — the queue in send order, the
//	         first limit entries.
func (h *host) Inspect(limit int) []byte {
	n := h.node
	b := []byte(`{"accused":[`)
	first := true
	for _, id := range n.Members() {
		by, ok := n.Accuser(id)
		if !ok {
			continue
		}
		st, inc, _ := n.View(id)
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, `{"member":`...)
		b = jsonw.AppendString(b, id)
		b = append(b, `,"state":"`...)
		b = append(b, st.String()...)
		b = append(b, `","incarnation":`...)
		b = strconv.AppendUint(b, inc, 10)
		b = append(b, `,"accuser":`...)
		b = jsonw.AppendString(b, by)
		b = append(b, '}')
	}
	q, total := n.BroadcastQueue(limit)
	b = append(b, `],"broadcast_queue":{"total":`...)
	b = strconv.AppendInt(b, int64(total), 10)
	b = append(b, `,"entries":[`...)
	for i, u := range q {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"member":`...)
		b = jsonw.AppendString(b, u.Member)
		b = append(b, `,"state":"`...)
		b = append(b, u.State.String()...)
		b = append(b, `","incarnation":`...)
		b = strconv.AppendUint(b, u.Incarnation, 10)
		if u.From != "" {
			b = append(b, `,"accuser":`...)
			b = jsonw.AppendString(b, u.From)
		}
		b = append(b, `,"transmits":`...)
		b = strconv.AppendInt(b, int64(u.Transmits), 10)
		b = append(b, `,"bytes":`...)
		b = strconv.AppendInt(b, int64(u.Bytes), 10)
		b = append(b, '}')
	}
	return append(b, "]}}"...)
}

// codec is the production wire format of kinds/swim/swim (§3.3): the simulator
// charges the network exactly the bytes a UDP transport would send.
type codec struct{}

func (codec) Append(b []byte, m any) ([]byte, error) {
	msg, ok := m.(*swim.Message)
	if !ok {
		return b, fmt.Errorf("swimhost: cannot encode %T", m)
	}
	return swim.Append(b, msg)
}

func (codec) Decode(b []byte) (any, error) { return swim.Decode(b) }

// EncodedLen makes codec a hosts.SizingCodec: a legacy queue's datagrams
// run to tens of kilobytes, beyond the room the engine leaves by default.
func (codec) EncodedLen(m any) int {
	msg, _ := m.(*swim.Message)
	return swim.EncodedSize(msg)
}

// DecodeInto makes codec a hosts.ReusingCodec: a node reads a delivered
// message within Receive and copies what it keeps (ids and metadata, which
// a swim.Decoder may share between messages, are immutable). The payload
// is the host's *swim.Decoder, holding the message; Recv takes either.
func (codec) DecodeInto(b []byte, into any) (any, error) {
	d, ok := into.(*swim.Decoder)
	if !ok {
		d = new(swim.Decoder)
	}
	_, err := d.Decode(b)
	return d, err
}

// Handoff makes codec a hosts.HandingCodec: a headless run hands the
// receiver a copy of the message (swim.Handoff), not its bytes; into is a
// *swim.Message an earlier Handoff returned.
func (codec) Handoff(m any, into any) (any, int, error) {
	msg, ok := m.(*swim.Message)
	if !ok {
		return nil, 0, fmt.Errorf("swimhost: cannot encode %T", m)
	}
	reuse, _ := into.(*swim.Message)
	v, size, err := swim.Handoff(msg, reuse)
	if err != nil {
		return nil, 0, err
	}
	return v, size, nil
}

// payload is the message a delivery carries: a *swim.Decoder's (from
// DecodeInto) or a *swim.Message (from Decode).
func payload(p any) *swim.Message {
	if d, ok := p.(*swim.Decoder); ok {
		return d.Message()
	}
	return p.(*swim.Message)
}

// ApproxBytes estimates what a Clone holds (the engine's checkpoint byte
// budget): the node's state plus the adapter's own few words.
func (h *host) ApproxBytes() int64 { return h.node.ApproxBytes() + 64 }
