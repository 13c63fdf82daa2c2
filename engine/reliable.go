package engine

import (
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/network"
)

// offer asks the network about one send from host hi to host ti: a
// datagram is the network's Send; a reliable stream (hosts.SendReliable,
// hosts.ReplyReliable) is its second send query, SendReliable, which
// skips the loss draw and, for a stream being opened, adds the
// handshake's round trip (docs/decisions.md, "The reliable path"). A
// run whose hosts never ask for a stream makes exactly the calls it made
// before the reliable path existed.
func (e *Engine) offer(hi int32, ti int, byteLen int64, via hosts.Transport) (network.Outcome, []network.Note) {
	switch via {
	case hosts.Datagram:
		return e.st.net.Send(int(hi), ti, byteLen, e.st.now)
	case hosts.StreamOpen, hosts.StreamReply:
		return e.st.net.SendReliable(int(hi), ti, byteLen, e.st.now, via == hosts.StreamOpen)
	}
	// An action the engine cannot route is a host bug (§3.2).
	panic("engine: host " + e.st.hosts[hi].id + " sent with an unknown transport")
}
