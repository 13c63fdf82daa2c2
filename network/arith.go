package network

import (
	"math"
	"math/bits"

	"github.com/detsim/detsim/internal/checked"
)

// Every time computation in the send algorithm saturates instead of
// wrapping (internal/checked): a wrapped arrival time would schedule a
// message in the past, while a saturated one only lands after the run
// ends. The loader bounds its inputs, but the network does not rely on it.

// serializationNs is how long byteLen bytes occupy a link of bandwidthBps
// bytes per second: floor(byteLen × 10⁹ / bandwidthBps) (spec §5.2).
func serializationNs(byteLen, bandwidthBps int64) int64 {
	return checked.MulDiv(byteLen, 1_000_000_000, bandwidthBps)
}

// below maps one uniform 64-bit draw onto [0, n) by taking the high word
// of draw×n. Unlike rejection sampling it always consumes exactly one draw,
// which keeps the per-send draw count fixed; its bias is below n/2⁶⁴.
func below(draw, n uint64) uint64 {
	hi, _ := bits.Mul64(draw, n)
	return hi
}

// queuedBytes is how many bytes a wire of bandwidthBps bytes per second
// has yet to send when backlogNs of serialisation remain on it:
// ceil(backlogNs × bandwidthBps / 10⁹), so a byte partly on the wire
// still counts (docs/network.md step 2b). A non-positive bandwidth never
// drains: any backlog on it is a full wire.
func queuedBytes(backlogNs, bandwidthBps int64) int64 {
	if backlogNs <= 0 {
		return 0
	}
	if bandwidthBps <= 0 {
		return math.MaxInt64
	}
	return checked.MulDivCeil(backlogNs, bandwidthBps, 1_000_000_000)
}
