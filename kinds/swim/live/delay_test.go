package live

import (
	"net/netip"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/detsim/detsim/internal/spool"
	"github.com/detsim/detsim/kinds/swim/live/node"
	"github.com/detsim/detsim/network"
	"github.com/detsim/detsim/rng"
)

// BenchmarkShaperAddedDelay measures what the shaper itself adds to a
// datagram's trip when the link policy asks for none (zero latency,
// jitter, loss and dial penalty; 1 TB/s): from the sender's send to the
// receiver's socket read, through the network model, a real timer and a
// loopback write, against the same write with no shaper. It reports the
// p50 and p99 of both in µs (docs/calibration.md records a figure):
//
//	go test ./kinds/swim/live -run '^$' -bench ShaperAddedDelay -benchtime 5000x
func BenchmarkShaperAddedDelay(b *testing.B) {
	b.Run("latency=0", func(b *testing.B) { benchShaper(b, 0) })
	// With a 1 ms policy the datagram waits on a real timer: what the
	// shaper adds beyond the 1 ms is timer lateness plus the write.
	b.Run("latency=1ms", func(b *testing.B) { benchShaper(b, 1_000_000) })
}

func benchShaper(b *testing.B, latencyNs int64) {
	epoch := time.Now()
	clock := func() int64 { return int64(time.Since(epoch)) }
	var count atomic.Int64
	out, err := spool.NewSink(filepath.Join(b.TempDir(), "s.ndjson"), &count)
	if err != nil {
		b.Fatal(err)
	}
	defer out.Close()
	peers := []string{"a", "b"}
	net := network.NewMesh(peers, network.Policy{BandwidthBps: 1_000_000_000_000, LatencyNs: latencyNs}, rng.New(1))
	s := newShaper(net, peers, clock, out)
	send, err := node.ListenLoopback("127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer send.Close()
	recv, err := node.ListenLoopback("127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer recv.Close()
	to := node.AddrOf(recv)
	write := func(p []byte, a netip.AddrPort) error { _, err := send.WriteToUDPAddrPort(p, a); return err }
	s.setRunning(1, true, to, write)
	s.spare = write // a's socket: a is not a running node here
	payload := make([]byte, 64)
	buf := make([]byte, 2048)
	shaped := make([]int64, 0, b.N)
	raw := make([]int64, 0, b.N)
	b.ResetTimer()
	for range b.N {
		t0 := clock()
		if reason := s.send(0, 1, payload, len(payload), 0); reason != "" {
			b.Fatal(reason)
		}
		if _, _, err := recv.ReadFromUDPAddrPort(buf); err != nil {
			b.Fatal(err)
		}
		shaped = append(shaped, clock()-t0-latencyNs)
		t0 = clock()
		if err := write(payload, to); err != nil {
			b.Fatal(err)
		}
		if _, _, err := recv.ReadFromUDPAddrPort(buf); err != nil {
			b.Fatal(err)
		}
		raw = append(raw, clock()-t0)
	}
	b.StopTimer()
	s.close()
	q := func(xs []int64, p int) float64 {
		slices.Sort(xs)
		return float64(xs[min(len(xs)*p/100, len(xs)-1)]) / 1e3
	}
	b.ReportMetric(q(shaped, 50), "shaped-p50-µs")
	b.ReportMetric(q(shaped, 99), "shaped-p99-µs")
	b.ReportMetric(q(raw, 50), "raw-p50-µs")
	b.ReportMetric(q(raw, 99), "raw-p99-µs")
}
