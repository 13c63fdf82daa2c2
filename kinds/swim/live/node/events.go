package node

import (
	"github.com/detsim/detsim/internal/jsonw"
)

// PacketDropped is the live-only record of a datagram the node refused
// before the SWIM state machine saw it (docs/events.md, "Live records"):
// no or a bad authentication tag, a tag for another member, a replay, or
// bytes the codec rejected. Count is
// the node's running total of drops, so a flood is visible from any one
// record even when records are thinned (see dropRecordEvery).
type PacketDropped struct {
	Source string // the sender's address as the socket reported it
	Bytes  int
	Reason string // one of the Reason constants (tag.go)
	Err    string // the codec's error, for decode_error; "" otherwise
	Count  int64
}

// Type returns "packet_dropped".
func (*PacketDropped) Type() string { return "packet_dropped" }

// AppendJSON appends the event as one JSON object, members in a fixed
// order.
func (e *PacketDropped) AppendJSON(b []byte) []byte {
	return jsonw.Open(b, "packet_dropped").Str("source", e.Source).Int("bytes", int64(e.Bytes)).Str("reason", e.Reason).
		Str("error", e.Err).Int("count", e.Count).End()
}

// Unauthenticated is the first record of a node run without a cluster
// key (swimd --insecure): any process that reaches its port could have
// forged what the records after it say (docs/live.md, "The cluster key
// and the replay window"). A node with a key never writes it.
type Unauthenticated struct{}

// Type returns "unauthenticated".
func (*Unauthenticated) Type() string { return "unauthenticated" }

// AppendJSON appends the event as one JSON object.
func (*Unauthenticated) AppendJSON(b []byte) []byte {
	return append(b, `{"type":"unauthenticated"}`...)
}
