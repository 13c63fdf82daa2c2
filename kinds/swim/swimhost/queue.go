package swimhost

import (
	"strconv"

	"github.com/detsim/detsim/hosts"
)

// QueueChanged is the broadcast_queue record: the depth (updates) and
// bytes of the host's broadcast queue after a call that changed its
// depth. The node's queue changes only inside its calls (an update
// queued by a transition or a refutation, one retired by its last
// transmission or superseded by a newer one), so one record after each
// call that changed it gives the page's queue chart every change rather
// than the scenario's few snapshots (docs/swim.md, "Events"). The
// adapter writes it, not the node: it describes the simulated host, and
// the daemons on the testbed need not carry it.
type QueueChanged struct {
	Depth, Bytes int
}

// Type is the record's event type.
func (*QueueChanged) Type() string { return tQueue }

// AppendJSON appends {"type":"broadcast_queue","depth":D,"bytes":B}.
func (e *QueueChanged) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"type":"`+tQueue+`","depth":`...)
	dst = strconv.AppendInt(dst, int64(e.Depth), 10)
	dst = append(dst, `,"bytes":`...)
	dst = strconv.AppendInt(dst, int64(e.Bytes), 10)
	return append(dst, '}')
}

// noteQueue records the queue's depth when a call changed it.
func (h *host) noteQueue() {
	d, b := h.node.QueueDepth()
	if d == h.depth {
		return
	}
	h.depth = d
	h.acts = append(h.acts, hosts.Record(&QueueChanged{Depth: d, Bytes: b}))
}
