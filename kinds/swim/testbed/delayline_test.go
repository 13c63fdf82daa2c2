package testbed

import "testing"

// The delay line's wire, packet by packet: 1 000 bytes/s and a
// 2 500-byte queue. A packet on an idle wire holds it for its own
// bytes / rate; the next waits for it; one that would find more than the
// queue waiting is dropped and does not take the wire; after a silence
// the wire is idle again.
func TestDelayLine_SerialisesAWirePacketByPacket(t *testing.T) {
	const ms = int64(1_000_000)
	e := lineEdge{wireRate: 1000, wireQueue: 2500}
	for i, tc := range []struct {
		now, bytes, want int64
		ok               bool
	}{
		{0, 1000, 1000 * ms, true},       // an idle wire: 1 s for 1 000 bytes
		{0, 1000, 2000 * ms, true},       // behind it: 1 000 waiting, so 1 s more
		{0, 1000, 0, false},              // 2 000 waiting + 1 000 > 2 500: dropped
		{0, 100, 2100 * ms, true},        // 2 000 + 100 fits: the drop took no wire
		{500 * ms, 400, 2000 * ms, true}, // 1 600 waiting at 0.5 s + 400
		{500 * ms, 600, 0, false},        // 2 000 waiting + 600: dropped
		{10_000 * ms, 10, 10 * ms, true}, // long after: idle again
	} {
		got, ok := e.serialise(tc.now, tc.bytes)
		if ok != tc.ok || got != tc.want {
			t.Errorf("packet %d (%d B at %d ms): hold %d ms, ok %v; want %d ms, %v", i, tc.bytes, tc.now/ms, got/ms, ok, tc.want/ms, tc.ok)
		}
	}
	shaped := lineEdge{}
	if got, ok := shaped.serialise(5, 1500); got != 0 || !ok {
		t.Errorf("an edge that is not serialised: %d, %v", got, ok)
	}
}
