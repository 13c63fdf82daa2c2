package live

import "github.com/detsim/detsim/internal/jsonw"

// PeerStartFailed is the live-only record of a peer life that could not
// begin (docs/events.md, "Live records"): at a PeerResurrect, or at the
// start, the peer's socket could not be bound — another process took its
// port while it was down (port_in_use) — or its swimd exited before it
// was ready (start_failed). The run stops there, its bundle marked
// interrupted.
//
// The live run's records are written by hand as node's are (node/events.go),
// alike in shape: the members are each record's own.
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
	b = append(b, `{"type":"peer_start_failed","peer":`...)
	b = jsonw.AppendString(b, e.Peer)
	b = append(b, `,"reason":`...)
	b = jsonw.AppendString(b, e.Reason)
	b = append(b, `,"error":`...)
	b = jsonw.AppendString(b, e.Err)
	return append(b, '}')
}
