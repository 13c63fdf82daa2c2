package network

import (
	"math/big"
	"testing"
)

// kernelFragments cuts a datagram as Linux's ip_append_data does, one
// fragment at a time: while what is left does not fit one packet, a
// fragment carries the largest multiple of 8 that fits.
func kernelFragments(payload, mtu int64) int64 {
	left, k := payload+udpHeaderBytes, int64(1)
	for ; left > mtu-ipv4HeaderBytes; k++ {
		left -= (mtu - ipv4HeaderBytes) / 8 * 8
	}
	return k
}

// TestFragments_IPv4Fragmentation_5_7: how many IPv4 packets a UDP
// datagram takes (the spec §5.7 amendment, docs/network.md "MTU and
// fragmentation"): the issue's 16 KB datagram over a 1 500-byte MTU is
// eleven, and every size at every MTU agrees with cutting it fragment by
// fragment.
func TestFragments_IPv4Fragmentation_5_7(t *testing.T) {
	for _, tc := range []struct{ payload, mtu, k, wire int64 }{
		{0, 1500, 1, 28},           // an empty datagram is still a packet
		{100, 1500, 1, 128},        // the small datagram
		{1472, 1500, 1, 1500},      // exactly one full packet
		{1473, 1500, 2, 1521},      // one byte more: two packets
		{16_000, 1500, 11, 16_228}, // the 16 KB datagram: eleven fragments
		{MaxDatagramBytes, 1500, 45, 66_415},
		{548, 576, 1, 576}, // mtu − 28 fits whole, though 556 is not a multiple of 8
		{549, 576, 2, 597},
		{1100, 576, 2, 1148}, // 552 + 556: the last fragment may be unaligned
		{1101, 576, 3, 1169},
		{MaxDatagramBytes, MinMTUBytes, maxFragments, MaxDatagramBytes + 8 + 20*maxFragments},
		{MaxDatagramBytes, MaxMTUBytes, 1, MaxMTUBytes}, // the largest datagram is one largest packet
		{8972, 9000, 1, 9000}, // jumbo frames
		{8973, 9000, 2, 9021},
	} {
		wire, k := datagramWire(tc.payload, tc.mtu)
		if k != tc.k || wire != tc.wire {
			t.Errorf("datagram of %d bytes at MTU %d: %d fragments, %d wire bytes; want %d, %d", tc.payload, tc.mtu, k, wire, tc.k, tc.wire)
		}
	}
	if maxFragments != 119 {
		t.Errorf("maxFragments = %d, want 119 (65 507 bytes at MTU 576)", maxFragments)
	}
	for _, mtu := range []int64{MinMTUBytes, 577, 583, 1280, 1500, 9000, MaxMTUBytes} {
		for payload := int64(0); payload <= MaxDatagramBytes; payload++ {
			if got, want := fragments(payload, mtu), kernelFragments(payload, mtu); got != want {
				t.Fatalf("fragments(%d, %d) = %d, want %d", payload, mtu, got, want)
			}
		}
	}
	if wire, k := datagramWire(70_000, 0); wire != 70_000 || k != 1 {
		t.Errorf("with the IP model off a message is one unit of its own length: %d, %d", wire, k)
	}
}

// TestStreamWire_SegmentsAtTheMSS_5_7: a reliable stream's bytes go in
// segments of MSS = MTU − 40, each paying a 40-byte IPv4 and TCP header.
func TestStreamWire_SegmentsAtTheMSS_5_7(t *testing.T) {
	for _, tc := range []struct{ bytes, mtu, wire int64 }{
		{0, 1500, 0}, // nothing written, nothing sent
		{1, 1500, 41},
		{1460, 1500, 1500}, // one full segment
		{1461, 1500, 1541},
		{16_000, 1500, 16_440},   // eleven segments
		{100_000, 1500, 102_760}, // a stream has no datagram limit
		{536, 576, 576},          // RFC 879's default MSS
		{16_000, 0, 16_000},      // the IP model off
	} {
		if got := streamWire(tc.bytes, tc.mtu); got != tc.wire {
			t.Errorf("streamWire(%d, %d) = %d, want %d", tc.bytes, tc.mtu, got, tc.wire)
		}
	}
}

// exactLossPPM is ceil(10⁶ × (1 − (1 − ppm/10⁶)^k)) in exact rational
// arithmetic: the fraction (10⁶ᵏ − qᵏ) / 10⁶⁽ᵏ⁻¹⁾ with q = 10⁶ − ppm,
// rounded up.
func exactLossPPM(ppm, k int64) int64 {
	million := big.NewInt(1_000_000)
	num := new(big.Int).Exp(million, big.NewInt(k), nil)
	num.Sub(num, new(big.Int).Exp(big.NewInt(1_000_000-ppm), big.NewInt(k), nil))
	den := new(big.Int).Exp(million, big.NewInt(k-1), nil)
	q, r := num.QuoRem(num, den, new(big.Int))
	if r.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	return q.Int64()
}

// TestDatagramLossPPM_ExactAgainstRationals_5_7: the datagram loss of k
// fragments is exactly ceil(10⁶ × (1 − (1 − p)^k)) for every p and k the
// network can meet, compared with math/big rationals.
func TestDatagramLossPPM_ExactAgainstRationals_5_7(t *testing.T) {
	for _, tc := range []struct{ ppm, k, want int64 }{
		{20_000, 1, 20_000},   // one packet: the link's own rate
		{20_000, 2, 39_600},   // 1 − 0.98² exactly: no rounding
		{20_000, 11, 199_269}, // the 16 KB datagram at 2 %: 19.93 %
		{23_000, 11, 225_824}, // at the 2.3 % the testbed measured for one packet
		{5_000, 45, 201_935},  // a 65 507-byte datagram at 0.5 %
		{1, 119, 119},         // a tiny probability is never rounded away
		{999_999, 2, 1_000_000},
		{500_000, 3, 875_000},
		{0, 119, 0},
		{1_000_000, 1, 1_000_000},
	} {
		if got := datagramLossPPM(tc.ppm, tc.k); got != tc.want {
			t.Errorf("datagramLossPPM(%d, %d) = %d, want %d", tc.ppm, tc.k, got, tc.want)
		}
		if exact := exactLossPPM(tc.ppm, tc.k); exact != tc.want {
			t.Errorf("table row (%d, %d): exact value is %d, not %d", tc.ppm, tc.k, exact, tc.want)
		}
	}
	ppms := []int64{1, 2, 3, 7, 999, 1000, 1001, 5000, 9999, 10_000, 20_000, 123_457, 250_000, 499_999, 500_000, 777_777, 999_998, 999_999}
	for ppm := int64(1); ppm < 1_000_000; ppm += 7919 {
		ppms = append(ppms, ppm)
	}
	for _, ppm := range ppms {
		prev := int64(0)
		for k := int64(1); k <= maxFragments; k++ {
			got := datagramLossPPM(ppm, k)
			if want := exactLossPPM(ppm, k); got != want {
				t.Fatalf("datagramLossPPM(%d, %d) = %d, exact %d", ppm, k, got, want)
			}
			if got < prev {
				t.Fatalf("loss at %d ppm falls from %d to %d at %d fragments", ppm, prev, got, k)
			}
			prev = got
		}
	}
}

// FuzzDatagramLossPPM: for any inputs the formula never panics, stays a
// probability, is at least the per-fragment rate, and is exact wherever
// its inputs are in range.
func FuzzDatagramLossPPM(f *testing.F) {
	f.Add(int64(20_000), int64(11))
	f.Add(int64(-1), int64(-1))
	f.Add(int64(1_000_001), int64(1<<62))
	f.Add(int64(1), int64(maxFragments))
	f.Fuzz(func(t *testing.T, ppm, k int64) {
		got := datagramLossPPM(ppm, k)
		clamped := min(max(ppm, 0), 1_000_000)
		if got < clamped || got > 1_000_000 {
			t.Fatalf("datagramLossPPM(%d, %d) = %d, outside [%d, 10⁶]", ppm, k, got, clamped)
		}
		if k >= 1 && k <= maxFragments {
			if want := exactLossPPM(clamped, k); got != want {
				t.Fatalf("datagramLossPPM(%d, %d) = %d, exact %d", ppm, k, got, want)
			}
		}
	})
}

// TestLossMemo_AnswersAsTheFormula: the memo is a cache; whatever order
// rates and fragment counts come in, it answers as datagramLossPPM does.
func TestLossMemo_AnswersAsTheFormula(t *testing.T) {
	var m lossMemo
	for i := range int64(5000) {
		ppm := []int64{-3, 0, 1, 20_000, 20_001, 999_999, 1_000_000, 2_000_000}[i%8]
		k := (i*37)%(maxFragments+3) - 1 // −1 … maxFragments+1
		if got, want := m.lossPPM(ppm, k), datagramLossPPM(ppm, k); got != want {
			t.Fatalf("query %d: memo(%d, %d) = %d, formula %d", i, ppm, k, got, want)
		}
	}
}
