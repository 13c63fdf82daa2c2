package engine

import (
	"strconv"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/jsonw"
	"github.com/detsim/detsim/network"
)

// The engine-synthesised events of spec §4.7, plus mutation records and
// decode errors. Each is recorded with kind_tag "engine"; docs/events.md
// gives their schemas. Field order is fixed by AppendJSON.

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
	b = append(b, `{"type":"drop_on_send","from":`...)
	b = jsonw.AppendString(b, e.from)
	b = append(b, `,"to":`...)
	b = jsonw.AppendString(b, e.to)
	b = append(b, `,"reason":"`...)
	b = append(b, e.reason.String()...)
	b = append(b, '"')
	b = appendMessageID(b, e.from, e.id)
	return append(b, '}')
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
	b = append(b, `{"type":"drop_on_delivery","from":`...)
	b = jsonw.AppendString(b, e.from)
	b = append(b, `,"to":`...)
	b = jsonw.AppendString(b, e.to)
	b = append(b, `,"reason":`...)
	b = jsonw.AppendString(b, e.reason)
	b = appendMessageID(b, e.from, e.id)
	return append(b, '}')
}

// cacheStateChange: an edge's connection cache changed state.
type cacheStateChange struct {
	from, to   string
	transition network.Transition
	state      network.CacheState
}

func (cacheStateChange) Type() string { return "cache_state_change" }
func (e cacheStateChange) AppendJSON(b []byte) []byte {
	b = append(b, `{"type":"cache_state_change","from":`...)
	b = jsonw.AppendString(b, e.from)
	b = append(b, `,"to":`...)
	b = jsonw.AppendString(b, e.to)
	b = append(b, `,"transition":"`...)
	b = append(b, e.transition.String()...)
	b = append(b, `","state":"`...)
	b = append(b, e.state.String()...)
	return append(b, `"}`...)
}

// dialStart: a send on a cold edge began a dial.
type dialStart struct{ from, to string }

func (dialStart) Type() string { return "dial_start" }
func (e dialStart) AppendJSON(b []byte) []byte {
	b = append(b, `{"type":"dial_start","from":`...)
	b = jsonw.AppendString(b, e.from)
	b = append(b, `,"to":`...)
	b = jsonw.AppendString(b, e.to)
	return append(b, '}')
}

// dialOutcome: the delivery that paid a dial penalty popped (ok) or had
// been cut in flight (failed). Emitted at arrival time, never ahead.
type dialOutcome struct {
	from, to string
	ok       bool
}

func (dialOutcome) Type() string { return "dial_outcome" }
func (e dialOutcome) AppendJSON(b []byte) []byte {
	b = append(b, `{"type":"dial_outcome","from":`...)
	b = jsonw.AppendString(b, e.from)
	b = append(b, `,"to":`...)
	b = jsonw.AppendString(b, e.to)
	if e.ok {
		return append(b, `,"outcome":"ok"}`...)
	}
	return append(b, `,"outcome":"failed"}`...)
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
	b = append(b, `{"type":"decode_error","from":`...)
	b = jsonw.AppendString(b, e.from)
	b = append(b, `,"to":`...)
	b = jsonw.AppendString(b, e.to)
	b = append(b, `,"bytes":`...)
	b = strconv.AppendInt(b, int64(e.bytes), 10)
	b = append(b, `,"error":`...)
	b = jsonw.AppendString(b, e.err)
	b = append(b, `,"count":`...)
	b = strconv.AppendInt(b, e.count, 10)
	b = appendMessageID(b, e.from, e.id)
	return append(b, '}')
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
	b = append(b, `{"type":"mutation","index":`...)
	b = strconv.AppendInt(b, int64(r.index), 10)
	b = append(b, `,"kind":"`...)
	b = append(b, m.Kind.String()...)
	b = append(b, '"')
	switch m.Kind {
	case network.Partition:
		b = appendIDs(append(b, `,"peers_a":`...), m.PeersA)
		b = appendIDs(append(b, `,"peers_b":`...), m.PeersB)
	case network.LatencySpike, network.LossBurst, network.RelayBuffer:
		b = append(b, `,"links":[`...)
		for i, l := range m.Links {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"from":`...)
			b = jsonw.AppendString(b, l.From)
			b = append(b, `,"to":`...)
			b = jsonw.AppendString(b, l.To)
			b = append(b, '}')
		}
		b = append(b, ']')
		switch m.Kind {
		case network.LatencySpike:
			b = appendIntField(b, "factor_x100", m.FactorX100)
		case network.LossBurst:
			b = appendIntField(b, "prob_ppm", m.ProbPPM)
		case network.RelayBuffer:
			b = appendIntField(b, "floor_ns", m.FloorNs)
		}
		b = appendIntField(b, "duration_ns", m.DurationNs)
	case network.PeerKill, network.PeerResurrect, network.PeerPause:
		b = append(b, `,"peer":`...)
		b = jsonw.AppendString(b, m.Peer)
		switch m.Kind {
		case network.PeerResurrect:
			b = append(b, `,"preserve_state":`...)
			b = strconv.AppendBool(b, m.PreserveState)
		case network.PeerPause:
			b = appendIntField(b, "duration_ns", m.DurationNs)
		}
	case network.Cancel:
		b = append(b, `,"peer":`...)
		b = jsonw.AppendString(b, m.Peer)
	}
	return append(b, '}')
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
	b = append(b, `{"type":"delivery_queued","from":`...)
	b = jsonw.AppendString(b, e.from)
	b = append(b, `,"to":`...)
	b = jsonw.AppendString(b, e.to)
	b = appendIntField(b, "bytes", e.bytes)
	b = appendIntField(b, "ahead", int64(e.ahead))
	if e.paused {
		b = append(b, `,"cause":"paused"`...)
	} else {
		b = append(b, `,"cause":"busy"`...)
	}
	b = appendIntField(b, "until_ns", e.until)
	return append(b, '}')
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
	b = append(b, `{"type":"host_resumed","peer":`...)
	b = jsonw.AppendString(b, e.peer)
	b = appendIntField(b, "paused_ns", e.pausedNs)
	b = appendIntField(b, "timers", int64(e.timers))
	b = appendIntField(b, "waiting", int64(e.waiting))
	return append(b, '}')
}

// appendMessageID appends `,"id":"<sender>#<n>"`, the message id as the
// sender's own records write it (hosts.SendID), or nothing for id 0.
func appendMessageID(b []byte, sender string, id uint64) []byte {
	if id == 0 {
		return b
	}
	b = jsonw.AppendString(append(b, `,"id":`...), sender)
	b = strconv.AppendUint(append(b[:len(b)-1], '#'), id, 10)
	return append(b, '"')
}

func appendIDs(b []byte, ids []string) []byte {
	b = append(b, '[')
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonw.AppendString(b, id)
	}
	return append(b, ']')
}

func appendIntField(b []byte, name string, v int64) []byte {
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return strconv.AppendInt(b, v, 10)
}
