package network

import "math/bits"

// IPv4, UDP and TCP framing (RFC 791, 768, 793), for the MTU model of
// docs/network.md, "MTU and fragmentation".
const (
	// MinMTUBytes is the smallest MTU a link may have: 576 bytes, the
	// datagram every IPv4 host must accept whole (RFC 791).
	MinMTUBytes = 576
	// MaxMTUBytes is the largest IPv4 packet: its total-length field has
	// 16 bits.
	MaxMTUBytes = 65_535
	// MaxDatagramBytes is the largest UDP payload over IPv4, 65 535 − 20
	// − 8 = 65 507 bytes. A bigger datagram is refused at send
	// (Drop(TooLarge)), as a real socket refuses it with EMSGSIZE.
	MaxDatagramBytes = MaxMTUBytes - ipv4HeaderBytes - udpHeaderBytes
	// MaxDatagramWireBytes is the most an accepted datagram puts on the
	// wire and in the send buffer, headers included: MaxDatagramBytes at
	// MinMTUBytes, in maxFragments fragments, 67 895 bytes.
	MaxDatagramWireBytes = MaxDatagramBytes + udpHeaderBytes + ipv4HeaderBytes*maxFragments

	udpHeaderBytes  = 8
	ipv4HeaderBytes = 20
	tcpHeaderBytes  = 20

	// maxFragments is the most fragments a datagram the network accepts
	// can have: MaxDatagramBytes at MinMTUBytes, 119. It sizes the
	// arithmetic of survivalPPM.
	maxFragments = 1 + (MaxDatagramBytes+udpHeaderBytes-(MinMTUBytes-ipv4HeaderBytes)+fragmentUnitAtMin-1)/fragmentUnitAtMin

	fragmentUnitAtMin = (MinMTUBytes - ipv4HeaderBytes) / 8 * 8
)

// sanitizeMTU clamps a positive MTU into [MinMTUBytes, MaxMTUBytes]; 0
// (the IP model off) and negative values give 0. The loader accepts only
// 0 and that range; the clamp keeps every fragment count at most
// maxFragments whatever a caller passes.
func sanitizeMTU(mtu int64) int64 {
	if mtu <= 0 {
		return 0
	}
	return min(max(mtu, MinMTUBytes), MaxMTUBytes)
}

// fragments is how many IPv4 packets carry a UDP datagram of payload
// bytes over a link of MTU mtu (in [MinMTUBytes, MaxMTUBytes]). The IP
// payload is the datagram plus its 8-byte UDP header. It fits one packet
// when it is at most mtu − 20 bytes; otherwise every fragment but the
// last carries floor((mtu − 20)/8)·8 bytes (fragment offsets count 8-byte
// units) and the last carries what is left, up to mtu − 20, as Linux's
// ip_append_data cuts it. Where mtu − 20 is a multiple of 8 (1 500) that
// is ceil((payload + 8) / (mtu − 20)).
func fragments(payload, mtu int64) int64 {
	ipPayload := max(payload, 0) + udpHeaderBytes
	whole := mtu - ipv4HeaderBytes
	if ipPayload <= whole {
		return 1
	}
	unit := whole / 8 * 8
	return 1 + (ipPayload-whole+unit-1)/unit
}

// datagramWire is what a UDP datagram of byteLen bytes puts on a link of
// sanitised MTU mtu: the payload, its UDP header and one IPv4 header per
// fragment, and the fragment count. With the IP model off (mtu 0) it is
// byteLen alone, one unit.
func datagramWire(byteLen, mtu int64) (wire, k int64) {
	if mtu == 0 {
		return byteLen, 1
	}
	k = fragments(byteLen, mtu)
	return max(byteLen, 0) + udpHeaderBytes + ipv4HeaderBytes*k, k
}

// lastFragmentWire is the wire size of the last of the k fragments a
// datagram of wire bytes takes at sanitised MTU mtu: every fragment
// before it carries (mtu − 20) rounded down to 8 bytes of IP payload and
// its own IPv4 header. A token bucket lets a datagram through when its
// last fragment finds tokens (edgeFlow.occupy); with one fragment, or the
// IP model off, it is the whole datagram.
func lastFragmentWire(wire, k, mtu int64) int64 {
	if k <= 1 || mtu == 0 {
		return wire
	}
	return wire - (k-1)*(ipv4HeaderBytes+(mtu-ipv4HeaderBytes)/8*8)
}

// lastSegmentWire is the wire size of the last TCP segment of a stream
// write of wire bytes (streamWire) at sanitised MTU mtu: every segment
// before it is a full MSS and its 40 header bytes, mtu in all.
func lastSegmentWire(wire, mtu int64) int64 {
	if mtu == 0 || wire <= mtu {
		return wire
	}
	return wire - (wire-1)/mtu*mtu
}

// streamWire is what byteLen bytes written to a TCP stream put on a link
// of sanitised MTU mtu: the bytes and a 40-byte IPv4 + TCP header on each
// of the ceil(byteLen / MSS) segments, MSS = mtu − 40. With the IP model
// off it is byteLen.
func streamWire(byteLen, mtu int64) int64 {
	if mtu == 0 || byteLen <= 0 {
		return byteLen
	}
	mss := mtu - ipv4HeaderBytes - tcpHeaderBytes
	segments := (byteLen + mss - 1) / mss
	return byteLen + (ipv4HeaderBytes+tcpHeaderBytes)*segments
}

// datagramLossPPM is the probability, in ppm, that a datagram of k
// fragments is lost when each fragment is lost independently with
// probability ppm/10⁶: 10⁶ × (1 − (1 − ppm/10⁶)^k), rounded up to a whole
// ppm, so rounding never understates a loss and k = 1 gives ppm exactly.
// It is computed exactly in integers (survivalPPM), with no float and no
// overflow. ppm outside [0, 10⁶] is clamped, as Chance reads it; k below
// 1 counts as 1 and k above maxFragments, which no accepted datagram
// has, as maxFragments.
func datagramLossPPM(ppm, k int64) int64 {
	switch {
	case ppm <= 0:
		return 0
	case ppm >= 1_000_000:
		return 1_000_000
	case k <= 1:
		return ppm
	}
	return 1_000_000 - int64(survivalPPM(uint64(1_000_000-ppm), min(k, maxFragments)))
}

// lossMemo remembers, for each fragment count k, the last per-fragment
// rate it was asked about and datagramLossPPM of the two: a run's
// datagrams meet few rates (the policies' and the LossBursts'), so the
// exact computation, tens of nanoseconds for eleven fragments, is done
// about once per rate and fragment count instead of once per send. It is
// a cache of a pure function: what it holds never changes an answer, and
// a Clone starts with it empty.
type lossMemo [maxFragments + 1]struct{ ppm, loss int32 }

// lossPPM is datagramLossPPM(ppm, k) through the memo.
func (m *lossMemo) lossPPM(ppm, k int64) int64 {
	if ppm <= 0 || ppm >= 1_000_000 || k <= 1 || k > maxFragments {
		return datagramLossPPM(ppm, k) // no arithmetic to save
	}
	e := &m[k]
	if int64(e.ppm) != ppm { // an empty entry holds ppm 0, never asked here
		e.ppm, e.loss = int32(ppm), int32(datagramLossPPM(ppm, k))
	}
	return int64(e.loss)
}

// survivalWords is the number of 64-bit words that hold q^k for q < 10⁶
// and k ≤ maxFragments: 10⁶ < 2^19.932, so 119 × 19.932 < 2 372 bits.
const survivalWords = (maxFragments*19932/1000 + 64) / 64

// survivalPPM is floor(q^k / 10^(6(k−1))) = floor(10⁶ × (q/10⁶)^k) for
// 0 < q < 10⁶ and 2 ≤ k ≤ maxFragments: the chance, in ppm rounded down,
// that all k fragments survive when each does with probability q/10⁶.
// q^k is formed exactly in a fixed array of words on the stack (no
// allocation), then divided by 10⁶ k−1 times; floor(floor(a/b)/c) =
// floor(a/(b·c)) for positive integers, so the chained divisions are
// exact. Multiplying by q³ < 2^60 and dividing by 10¹⁸ < 2^60, three
// factors at a time, keeps every step one word wide and a 16 KB
// datagram's eleven fragments to four multiplications and four
// divisions of at most four words.
func survivalPPM(q uint64, k int64) uint64 {
	const tenPow18 = 1_000_000 * 1_000_000 * 1_000_000
	var w [survivalWords]uint64
	w[0] = 1
	n := 1 // words in use, least significant first
	for e := k; e > 0; e -= 3 {
		m := q * q * q
		if e < 3 {
			m = q
			if e == 2 {
				m = q * q
			}
		}
		var carry uint64 // below m, so carry + 1 never wraps
		for i := range n {
			hi, lo := bits.Mul64(w[i], m)
			var c uint64
			w[i], c = bits.Add64(lo, carry, 0)
			carry = hi + c
		}
		if carry != 0 {
			w[n] = carry
			n++
		}
	}
	for e := k - 1; e > 0; e -= 3 {
		d := uint64(tenPow18)
		if e < 3 {
			d = 1_000_000
			if e == 2 {
				d = 1_000_000 * 1_000_000
			}
		}
		var r uint64 // below d, as Div64 requires
		for i := n - 1; i >= 0; i-- {
			w[i], r = bits.Div64(r, w[i], d)
		}
		for n > 1 && w[n-1] == 0 {
			n--
		}
	}
	return w[0]
}

// DatagramWire is what a UDP datagram of byteLen bytes puts on a link
// whose mtu_bytes is mtu (0: the IP model off): its bytes with the UDP
// header and an IPv4 header per fragment, and the fragment count. It is
// the count Send charges; calibrate reports message sizes on the wire
// with it.
func DatagramWire(byteLen, mtu int64) (wire, fragments int64) {
	return datagramWire(byteLen, sanitizeMTU(mtu))
}
