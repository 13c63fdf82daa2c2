package scenarios

import (
	"fmt"
	"math"

	"github.com/detsim/detsim/network"
	"github.com/detsim/detsim/rng"
)

// Bounds on scenario values. They exist so that the network's worst-case
// arithmetic cannot overflow an int64 and so that an absurd file is a fast,
// clear error instead of a hang or an out-of-memory. With every bound at
// its maximum, the largest intermediate is (latency + jitter sample) ×
// factor_x100 = (2^44 + 3.3·2^40) × 100_000 ≈ 2^60.9, before the division
// by 100; the latest arrival for one message is run end (2^50) + spiked
// latency and jitter (≈ 2^54.2) + a reorder extra of up to two such units
// (≈ 2^55.2) + dial penalty (2^44) + serialisation of one datagram at 1 B/s
// (67 895 bytes with its headers, ≈ 2^46) ≈ 2^55.9, far below 2^63. The serialisation backlog that
// builds up over a run is bounded by the send buffer: at most
// MaxSendBufferBytes of wire time at 1 B/s, 2^30 × 10^9 ns ≈ 2^59.9, so
// the latest arrival stays below 2^60. docs/scenario-format.md restates
// the bounds for users.
const (
	// MaxTimeNs bounds every point in time and every duration: duration_ns,
	// at_ns, tick periods, window and mutation durations, cache timers,
	// floor_ns (2^50 ns ≈ 13 virtual days).
	MaxTimeNs = 1 << 50
	// MaxDelayNs bounds the per-message delays latency_ns and
	// cold_dial_penalty_ns (2^44 ns ≈ 4.9 virtual hours).
	MaxDelayNs = 1 << 44
	// MaxJitterNs bounds jitter_stddev_ns; it is what the jitter table
	// accepts (2^40 ns ≈ 18 virtual minutes).
	MaxJitterNs = rng.MaxNormalStddev
	// MaxFactorX100 bounds a LatencySpike's factor_x100 (×1000).
	MaxFactorX100 = 100_000
	// MaxPPM is one million parts per million: certainty.
	MaxPPM = 1_000_000
	// MaxPeers bounds the number of [[peers]].
	MaxPeers = 10_000
	// MaxLinks is the most directed edges a [[links]] graph is spelled
	// out in Scenario.Links with (a full mesh of 1024 peers); a larger one
	// is kept as Scenario.Graph, by regions. It refuses nothing.
	MaxLinks = 1 << 20
	// MaxLinkEntries bounds the number of [[links]] entries.
	MaxLinkEntries = 1 << 20
	// MaxLinkRegions bounds the regions of one policy the [[links]]
	// entries split the peer pairs into (linkGraph): what a graph costs
	// to resolve and hold, whatever the peer count (12 bytes a region,
	// and its policy's 88 when every region has its own). An entry
	// naming one edge is one region, "*" → "*" one, and only entries
	// whose spans cross multiply them. It is MaxLinks: every graph the
	// loader could spell out before fits.
	MaxLinkRegions = MaxLinks
	// MaxExtendsDepth bounds a chain of [base] extends: the number of
	// files in it, the one run included.
	MaxExtendsDepth = 16
	// MaxFileBytes bounds the size of one scenario file.
	MaxFileBytes = 4 << 20
	// MaxSeed is the largest seed a scenario file can hold (TOML integers
	// are int64); a Seed above it cannot be written back by TOML.
	MaxSeed = math.MaxInt64
	// MaxNameBytes bounds each assertion's name.
	MaxNameBytes = 256
	// MinSendBufferBytes is the smallest send_buffer_bytes: one largest
	// UDP datagram (65 507 bytes, the most the echo and swim codecs ever
	// put in a message) with its headers at the smallest MTU, which count
	// against the buffer (docs/network.md step 2b), so an idle link
	// always takes any message they send and buffer_full only ever means
	// "queue full".
	MinSendBufferBytes = network.MaxDatagramWireBytes
	// MinRecvBufferBytes is the smallest recv_buffer_bytes: one largest
	// UDP datagram, so a host's inbox always takes one message. The inbox
	// holds messages, not packets: no header counts there.
	MinRecvBufferBytes = network.MaxDatagramBytes
	// MinMTUBytes and MaxMTUBytes bound a positive mtu_bytes: the
	// smallest MTU an IPv4 host must accept and the largest IPv4 packet.
	MinMTUBytes = network.MinMTUBytes
	MaxMTUBytes = network.MaxMTUBytes
	// MaxSendBufferBytes bounds send_buffer_bytes (2^30 bytes = 1 GiB,
	// far above any real socket's): it is what keeps the backlog, and
	// every arrival time, below 2^60 ns.
	MaxSendBufferBytes = 1 << 30
	// MaxBurstBytes bounds burst_bytes as the send buffer is bounded: a
	// bucket deeper than any socket buffer shapes nothing.
	MaxBurstBytes = 1 << 30
	// MaxScenarioNameBytes bounds the scenario's name, which names the
	// bundle directory bundles/<name>-<seed> (at most 64+1+19 bytes, well
	// under any filesystem's 255) and shrink's <name>-shrunk.toml.
	MaxScenarioNameBytes = 64
)

// DefaultSendBufferBytes is send_buffer_bytes when [default_link] omits
// it: 4 MiB, the most Linux lets a TCP send buffer grow to by default
// (net.ipv4.tcp_wmem's maximum, 4194304) and twice the 2 MiB UDP buffer
// memberlist asks for. It holds about 3 000 1 400-byte SWIM messages, so
// only a link offered more than its bandwidth for a long time fills it.
const DefaultSendBufferBytes = 4 << 20

// DefaultMTUBytes is mtu_bytes when [default_link] omits it: 1 500
// bytes, Ethernet's MTU and what a cloud VM's interface, a veth pair and
// most WAN paths carry (docs/network.md, "MTU and fragmentation").
const DefaultMTUBytes = 1500

// MaxRecvCostNs bounds recv_cost_ns, as latency_ns is bounded: no
// product is ever taken of it, only sums, each checked.
const MaxRecvCostNs = MaxDelayNs

// DefaultRecvBufferBytes is recv_buffer_bytes when a peer omits it: 2 MiB,
// the UDP receive buffer memberlist asks for (udpRecvBufSize). Deliveries
// a paused or busy host holds beyond it are dropped (recv_backlog_full),
// as a full socket receive buffer drops datagrams.
const DefaultRecvBufferBytes = 2 << 20

// DefaultIdleNs is cache_invalidate_after_idle_ns when [default_link]
// omits it: longer than any run, so a link never idles out unless the
// scenario asks for it.
const DefaultIdleNs = MaxTimeNs

// boundNames makes range errors say what a limit means.
var boundNames = map[int64]string{
	MaxTimeNs:          "2^50 ns (≈13 virtual days)",
	MaxDelayNs:         "2^44 ns (≈4.9 virtual hours)",
	MaxJitterNs:        "2^40 ns (≈18 virtual minutes)",
	MaxFactorX100:      "100000 (×1000)",
	MaxPPM:             "1000000 ppm",
	MaxSendBufferBytes: "2^30 bytes (1 GiB)",
	MaxMTUBytes:        "65535 bytes (the largest IPv4 packet)",
}

// lowNames makes range errors say what a lower limit means.
var lowNames = map[int64]string{
	MinSendBufferBytes: "67895 bytes (one largest UDP datagram with its headers at the smallest MTU)",
	MinRecvBufferBytes: "65507 bytes (one largest UDP datagram)",
	MinMTUBytes:        "576 bytes (the smallest IPv4 MTU), or 0 for no fragmentation",
}

// rangeMsg explains why v is outside [lo, hi].
func rangeMsg(v, lo, hi int64) string {
	switch {
	case v < lo && lo == 0:
		return fmt.Sprintf("must not be negative, got %d", v)
	case v < lo && lo == 1:
		return fmt.Sprintf("must be greater than 0, got %d", v)
	case v < lo && lowNames[lo] != "":
		return fmt.Sprintf("must be at least %s, got %d", lowNames[lo], v)
	case v < lo:
		return fmt.Sprintf("must be at least %d, got %d", lo, v)
	}
	if name, ok := boundNames[hi]; ok {
		return fmt.Sprintf("must be at most %s, got %d", name, v)
	}
	return fmt.Sprintf("must be at most %d, got %d", hi, v)
}
