package engine

import (
	"strconv"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/jsonw"
	"github.com/detsim/detsim/network"
)

// The engine-synthesised events of spec §4.7, plus mutation records and
// decode errors. Each is recorded with kind_tag "engine"; docs/events.md
// gives their schemas. Field order is fixed by AppendJSON, a jsonw.Object
// chain a record: the declarations look alike and differ in members.

const engineTag = "engine"

// EngineTag is the kind_tag of the records the engine synthesises.
const EngineTag = engineTag

// Series is what the page charts of the engine's own records, for every
// kind: the drops on each directed link.
func Series() []hosts.Series {
	return []hosts.Series{{
		ID: "engine_drops", Title: "drops", Types: []string{"drop_on_send", "drop_on_delivery"}, Host: "from", Peer: "to", Agg: hosts.AggCount,
		Doc: "messages dropped on each directed link (on send: lost, partitioned, over the buffer or too large; in flight or at arrival: cut)",
	}}
}

// EventPrototypes returns one value of every record the engine
// synthesises, one per shape (a mutation per kind), every member set.
// Viewers derive the engine's event types and fields from their JSON
// (hosts.Records is the same for a host kind), so the list cannot
// drift from what is written.
func EventPrototypes() []hosts.Event {
	out := []hosts.Event{
		dropOnSend{id: 1}, dropOnDelivery{id: 1}, cacheStateChange{}, dialStart{}, dialOutcome{}, decodeError{id: 1},
	}
	for _, k := range []network.MutationKind{network.Partition, network.LatencySpike, network.LossBurst, network.RelayBuffer, network.PeerKill, network.PeerResurrect} {
		out = append(out, mutationRecord{m: &network.Mutation{Kind: k}})
	}
	return out
}

// dropOnSend: a send the network refused (host_id: the sender).
type dropOnSend struct {
	from, to string
	reason   network.DropReason
	id       uint64 // the sender's message id; 0 none
}

func (dropOnSend) Type() string { return "drop_on_send" }
func (e dropOnSend) AppendJSON(b []byte) []byte {
	o := jsonw.Open(b, "drop_on_send").Str("from", e.from).Str("to", e.to).Str("reason", e.reason.String())
	return withMessageID(o, e.from, e.id).End()
}

// dropOnDelivery: a delivery refused at arrival time or cut in flight by a
// mutation (host_id: the receiver).
type dropOnDelivery struct {
	from, to string
	reason   string
	id       uint64 // the sender's message id; 0 none
}

func (dropOnDelivery) Type() string { return "drop_on_delivery" }
func (e dropOnDelivery) AppendJSON(b []byte) []byte {
	o := jsonw.Open(b, "drop_on_delivery").Str("from", e.from).Str("to", e.to).Str("reason", e.reason)
	return withMessageID(o, e.from, e.id).End()
}

// cacheStateChange: an edge's connection cache changed state.
type cacheStateChange struct {
	from, to   string
	transition network.Transition
	state      network.CacheState
}

func (cacheStateChange) Type() string { return "cache_state_change" }
func (e cacheStateChange) AppendJSON(b []byte) []byte {
	return jsonw.Open(b, "cache_state_change").Str("from", e.from).Str("to", e.to).
		Str("transition", e.transition.String()).Str("state", e.state.String()).End()
}

// dialStart: a send on a cold edge began a dial.
type dialStart struct{ from, to string }

func (dialStart) Type() string { return "dial_start" }
func (e dialStart) AppendJSON(b []byte) []byte {
	return jsonw.Open(b, "dial_start").Str("from", e.from).Str("to", e.to).End()
}

// dialOutcome: the delivery that paid a dial penalty popped (ok) or had
// been cut in flight (failed). Emitted at arrival time, never ahead.
type dialOutcome struct {
	from, to string
	ok       bool
}

func (dialOutcome) Type() string { return "dial_outcome" }
func (e dialOutcome) AppendJSON(b []byte) []byte {
	outcome := "failed"
	if e.ok {
		outcome = "ok"
	}
	return jsonw.Open(b, "dial_outcome").Str("from", e.from).Str("to", e.to).Str("outcome", outcome).End()
}

// decodeError: wire bytes the receiver's codec rejected. count is the
// receiver's running total, so a flood is visible from any one record.
type decodeError struct {
	from, to string
	bytes    int
	err      string
	count    int64
	id       uint64 // the sender's message id; 0 none
}

func (decodeError) Type() string { return "decode_error" }
func (e decodeError) AppendJSON(b []byte) []byte {
	o := jsonw.Open(b, "decode_error").Str("from", e.from).Str("to", e.to).Int("bytes", int64(e.bytes)).
		Str("error", e.err).Int("count", e.count)
	return withMessageID(o, e.from, e.id).End()
}

// mutationRecord is the MutationRecord of spec §3.2: one per popped
// mutation, with every parameter of its kind.
type mutationRecord struct {
	index int
	m     *network.Mutation
}

func (mutationRecord) Type() string { return "mutation" }
func (r mutationRecord) AppendJSON(b []byte) []byte {
	m := r.m
	o := jsonw.Open(b, "mutation").Int("index", int64(r.index)).Str("kind", m.Kind.String())
	switch m.Kind {
	case network.Partition:
		o = jsonw.AppendStringArray(append(o, `,"peers_a":`...), m.PeersA)
		o = jsonw.AppendStringArray(append(o, `,"peers_b":`...), m.PeersB)
	case network.LatencySpike, network.LossBurst, network.RelayBuffer:
		o = append(o, `,"links":[`...)
		for i, l := range m.Links {
			if i > 0 {
				o = append(o, ',')
			}
			o = append(jsonw.AppendString(append(o, `{"from":`...), l.From), `,"to":`...)
			o = append(jsonw.AppendString(o, l.To), '}')
		}
		o = append(o, ']')
		switch m.Kind {
		case network.LatencySpike:
			o = o.Int("factor_x100", m.FactorX100)
		case network.LossBurst:
			o = o.Int("prob_ppm", m.ProbPPM)
		case network.RelayBuffer:
			o = o.Int("floor_ns", m.FloorNs)
		}
		o = o.Int("duration_ns", m.DurationNs)
	case network.PeerKill, network.PeerResurrect, network.PeerPause:
		o = o.Str("peer", m.Peer)
		switch m.Kind {
		case network.PeerResurrect:
			o = o.Bool("preserve_state", m.PreserveState)
		case network.PeerPause:
			o = o.Int("duration_ns", m.DurationNs)
		}
	case network.Cancel:
		o = o.Str("peer", m.Peer)
	}
	return o.End()
}

// deliveryQueued: a delivery arrived at a host that cannot take it yet —
// paused, or handling earlier deliveries (recv_cost_ns) — and waits in
// its inbox behind ahead others (host_id: the receiver). until is the end
// of the pause in force, or of the handling in progress.
type deliveryQueued struct {
	from, to string
	bytes    int64
	ahead    int
	paused   bool
	until    int64
}

func (deliveryQueued) Type() string { return "delivery_queued" }
func (e deliveryQueued) AppendJSON(b []byte) []byte {
	cause := "busy"
	if e.paused {
		cause = "paused"
	}
	return jsonw.Open(b, "delivery_queued").Str("from", e.from).Str("to", e.to).Int("bytes", e.bytes).
		Int("ahead", int64(e.ahead)).Str("cause", cause).Int("until_ns", e.until).End()
}

// hostResumed: a PeerPause ended (host_id: the host). timers is how many
// timers and send failures fell due during it (they run next, in due
// order), waiting how many deliveries wait in the inbox (after them).
type hostResumed struct {
	peer            string
	pausedNs        int64
	timers, waiting int
}

func (hostResumed) Type() string { return "host_resumed" }
func (e hostResumed) AppendJSON(b []byte) []byte {
	return jsonw.Open(b, "host_resumed").Str("peer", e.peer).Int("paused_ns", e.pausedNs).
		Int("timers", int64(e.timers)).Int("waiting", int64(e.waiting)).End()
}

// withMessageID appends `,"id":"<sender>#<n>"`, the message id as the
// sender's own records write it (hosts.SendID), or nothing for id 0.
func withMessageID(o jsonw.Object, sender string, id uint64) jsonw.Object {
	if id == 0 {
		return o
	}
	o = jsonw.AppendString(append(o, `,"id":`...), sender)
	o = strconv.AppendUint(append(o[:len(o)-1], '#'), id, 10)
	return append(o, '"')
}
