package network

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/detsim/detsim/rng"
)

const (
	ms = int64(1_000_000)
	s  = int64(1_000_000_000)
)

// peerIDs names n peers p0, p1, … with at least width digits (p00, p01
// at width 2), so that they sort as they are numbered.
func peerIDs(n, width int) []string {
	peers := make([]string, n)
	for i := range peers {
		peers[i] = fmt.Sprintf("p%0*d", width, i)
	}
	return peers
}

// allocated is how many bytes f allocates: the heap's running total
// across it, after a collection.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// quiet is a deterministic policy: no jitter, loss or reorder, 1 byte per
// ns of serialisation, no dial penalty, warm at once, never idles out.
func quiet() Policy {
	return Policy{LatencyNs: 10 * ms, BandwidthBps: 1_000_000_000}
}

// mesh declares every ordered pair of distinct peers with policy p.
func mesh(peers []string, p Policy) []Link {
	var links []Link
	for _, from := range peers {
		for _, to := range peers {
			if from != to {
				links = append(links, Link{Edge: Edge{From: from, To: to}, Policy: p})
			}
		}
	}
	return links
}

// with returns links with the policy of from→to replaced by p.
func with(links []Link, from, to string, p Policy) []Link {
	out := append([]Link(nil), links...)
	for i := range out {
		if out[i].From == from && out[i].To == to {
			out[i].Policy = p
		}
	}
	return out
}

// newMesh is a full mesh of p over peers with seed 1.
func newMesh(peers []string, p Policy) *Network {
	return New(peers, mesh(peers, p), rng.New(1))
}

// idx is the host index of peer id, failing the test when it is unknown.
func idx(t testing.TB, n *Network, id string) int {
	t.Helper()
	i, ok := n.index[id]
	if !ok {
		t.Fatalf("no peer %q", id)
	}
	return i
}

// send is Send by peer id, with a copy of the notes.
func send(t testing.TB, n *Network, from, to string, bytes, at int64) (Outcome, []Note) {
	t.Helper()
	o, notes := n.Send(idx(t, n, from), idx(t, n, to), bytes, at)
	return o, append([]Note(nil), notes...)
}

// position is how many draws the edge from→to has made.
func position(t testing.TB, n *Network, from, to string) uint64 {
	t.Helper()
	return n.flowOf(n.edge(idx(t, n, from), idx(t, n, to))).position()
}

func mustArrive(t testing.TB, o Outcome) int64 {
	t.Helper()
	if !o.Arrived {
		t.Fatalf("send dropped (%v), want arrival", o.Reason)
	}
	return o.At
}

func rngRoot() rng.Root { return rng.New(1) }
