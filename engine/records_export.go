package engine

import (
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/network"
)

// The engine's records for a runtime that is not the engine (package live
// plays the network's part on real sockets and must write the very same
// bytes): each returns the record the engine itself emits, kind tag
// RecordTag. docs/events.md gives their schemas.

// RecordTag is the kind_tag of engine records.
const RecordTag = engineTag

// DropOnSendRecord is drop_on_send (host_id: the sender); id is the
// sender's message id, 0 when the runtime does not know it.
func DropOnSendRecord(from, to string, reason network.DropReason, id uint64) hosts.Event {
	return dropOnSend{from: from, to: to, reason: reason, id: id}
}

// DropOnDeliveryRecord is drop_on_delivery (host_id: the receiver); id
// as for DropOnSendRecord.
func DropOnDeliveryRecord(from, to, reason string, id uint64) hosts.Event {
	return dropOnDelivery{from: from, to: to, reason: reason, id: id}
}

// CacheStateChangeRecord is cache_state_change (host_id: the sender).
func CacheStateChangeRecord(from, to string, t network.Transition, s network.CacheState) hosts.Event {
	return cacheStateChange{from: from, to: to, transition: t, state: s}
}

// DialStartRecord is dial_start (host_id: the sender).
func DialStartRecord(from, to string) hosts.Event { return dialStart{from: from, to: to} }

// DialOutcomeRecord is dial_outcome (host_id: the sender).
func DialOutcomeRecord(from, to string, ok bool) hosts.Event {
	return dialOutcome{from: from, to: to, ok: ok}
}

// MutationRecord is the mutation record of the scenario's index-th
// mutation (host_id: null).
func MutationRecord(index int, m *network.Mutation) hosts.Event {
	return mutationRecord{index: index, m: m}
}
