// Package swimhost is the SWIM host kind (spec §6.2): a thin adapter that
// runs the hosts/swim state machine, unchanged, behind the simulator's
// host interface. It translates and nothing else: ticks, deliveries,
// timers and send failures go in; the node's effects come out as actions
// in the order the node produced them; snapshots are the node's own
// tier-2 JSON. An effect it cannot route panics, because silently
// dropping one is the class of bug the simulator exists to catch.
package swimhost

import (
	"fmt"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/hosts/swim"
	"github.com/detsim/detsim/rng"
)

// Tag is the kind tag of SWIM hosts and their events.
const Tag = "swim"

// Kind is the SWIM host kind for the registry. initial_state: "member"
// (knows every declared peer as alive at incarnation 0), "joining" (knows
// only kind_config.seeds and sends them join requests) or "down" (not
// running until a PeerResurrect, which starts it as joining).
var Kind = &hosts.Kind{
	Tag:          Tag,
	States:       []string{"member", "joining", "down"},
	DownState:    "down",
	RestartState: "joining",
	Validate:     validate,
	New:          newHost,
	Codec:        codec{},
}

func validate(config map[string]any, peers []string) []hosts.FieldError {
	cfg, errs := swim.ParseConfig(config)
	errs = append(errs, cfg.Validate(peers)...)
	out := make([]hosts.FieldError, len(errs))
	for i, e := range errs {
		out[i] = hosts.FieldError{Field: e.Field, Msg: e.Msg}
	}
	return out
}

func newHost(id string, config map[string]any, state string, peers []string, r *rng.Stream) hosts.Host {
	cfg, errs := swim.ParseConfig(config)
	if len(errs) > 0 {
		panic(fmt.Sprintf("swimhost: %s: config the loader accepted does not parse: %v", id, errs))
	}
	start := swim.Member
	if state == "joining" {
		start = swim.Joining
	}
	h := adopt(swim.New(id, cfg, start, peers, r), r)
	// The first call emits an initial transition per known member: size
	// the buffer for it once rather than grow it a doubling at a time.
	h.burst = len(peers) + 16
	return h
}

// adopt wraps node in a host that receives its effects directly.
func adopt(node *swim.Node, r *rng.Stream) *host {
	h := &host{node: node, rng: r}
	node.SetOutput(h)
	return h
}

// host adapts one swim.Node.
type host struct {
	node *swim.Node
	rng  *rng.Stream // the node's randomness; cloned with it
	acts []hosts.Action
	// burst is the capacity the first call's actions need; 0 after it.
	burst int
}

func (h *host) ID() string   { return h.node.Self() }
func (h *host) Kind() string { return Tag }

func (h *host) Tick(now int64) []hosts.Action {
	h.begin()
	h.node.Tick(now)
	return h.acts
}

func (h *host) Recv(m hosts.Message, now int64) []hosts.Action {
	h.begin()
	switch m := m.(type) {
	case *hosts.Delivery:
		h.node.Receive(m.From, m.Payload.(*swim.Message), now)
	case *hosts.TimerFired:
		h.node.TimerFired(m.Token, now)
	case *hosts.SendFailed:
		h.node.SendFailed(m.To, m.Reason, now)
	default:
		panic(fmt.Sprintf("swimhost: %s: unknown message %T", h.node.Self(), m))
	}
	return h.acts
}

// begin empties the action buffer for a call. The engine consumes the
// actions of one call before making the next, so the buffer is reused; a
// buffer a burst grew is let go once a call has not needed it (Trim lets
// it go sooner).
func (h *host) begin() {
	if h.burst > 0 {
		h.acts, h.burst = make([]hosts.Action, 0, h.burst), 0
		return
	}
	if cap(h.acts) > maxKeptActions && len(h.acts) <= maxKeptActions {
		h.acts = nil
		return
	}
	h.acts = h.acts[:0]
}

// The node's effects become actions as they happen (swim.Output), one for
// one and in order: messages and events pass through as pointers.

func (h *host) Send(to string, msg *swim.Message) { h.acts = append(h.acts, hosts.Send(to, msg)) }
func (h *host) Timer(at int64, token uint64)      { h.acts = append(h.acts, hosts.Timer(at, token)) }
func (h *host) Event(e swim.Event)                { h.acts = append(h.acts, hosts.Record(e)) }

// maxKeptActions is the largest action buffer a host keeps between calls.
const maxKeptActions = 256

func (h *host) Snapshot() []byte { return h.node.Snapshot() }

// Trim releases the buffers a burst of actions grew (hosts.Trimmer): the
// engine has consumed them.
func (h *host) Trim() { h.acts = nil }

func (h *host) Clone() hosts.Host {
	r := h.rng.Clone()
	return adopt(h.node.Clone(r), r)
}

// Node exposes the state machine, for viewers that want more than the
// snapshot JSON.
func (h *host) Node() *swim.Node { return h.node }

// codec is the production wire format of hosts/swim (§3.3): the simulator
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

// ApproxBytes estimates what a Clone holds (the engine's checkpoint byte
// budget): the node's state plus the adapter's own few words.
func (h *host) ApproxBytes() int64 { return h.node.ApproxBytes() + 64 }
