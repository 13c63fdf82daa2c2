package live

import "github.com/detsim/detsim/internal/jsonw"

// PeerStartFailed is the live-only record of a peer life that could not
// begin (docs/events.md, "Live records"): at a PeerResurrect, or at the
// start, the peer's socket could not be bound — another process took its
// port while it was down (port_in_use) — or its swimd exited before it
// was ready (start_failed). The run stops there, its bundle marked
// interrupted.
//
// The live run's records are written through jsonw.Object, the one event
// encoder the engine and the kinds share, as node's are (node/events.go).
type PeerStartFailed struct {
	Peer   string
	Reason string // "port_in_use" | "start_failed"
	Err    string
}

// Type returns "peer_start_failed".
func (*PeerStartFailed) Type() string { return "peer_start_failed" }

// AppendJSON appends the event as one JSON object, members in a fixed
// order.
func (e *PeerStartFailed) AppendJSON(b []byte) []byte {
	return jsonw.Open(b, "peer_start_failed").Str("peer", e.Peer).Str("reason", e.Reason).Str("error", e.Err).End()
}
