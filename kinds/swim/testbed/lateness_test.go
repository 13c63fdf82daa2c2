package testbed

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/detsim/detsim/bundle"
)

// The histogram's quantiles are the nearest-rank ones to within its
// resolution (exact below 1 024 ns, 1/512 above), its maximum exact.
func TestLateHist_QuantilesMatchNearestRank(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var h lateHist
	var xs []int64
	for range 20_000 {
		v := int64(rng.ExpFloat64() * 400_000) // a heavy-ish tail, µs to ms
		h.add(v)
		xs = append(xs, v)
	}
	slices.Sort(xs)
	for _, q := range []float64{0.5, 0.99} {
		want := xs[int(math.Ceil(q*float64(len(xs))))-1]
		if got := h.quantile(q); got > want || float64(want-got) > float64(want)/512+1 {
			t.Errorf("q%.2f: %d, nearest rank %d", q, got, want)
		}
	}
	if h.max != xs[len(xs)-1] || h.n != int64(len(xs)) {
		t.Errorf("max %d n %d, want %d %d", h.max, h.n, xs[len(xs)-1], len(xs))
	}
	for _, v := range []int64{0, 1, 1023, 1024, 1025, 2047, 2048, 1 << 40} {
		if f := lateFloor(lateBucket(v)); f > v || float64(v-f) > float64(v)/512 {
			t.Errorf("bucket of %d starts at %d", v, f)
		}
	}
}

// plantLateness is a summary of n packets, their lateness drawn from an
// exponential of the given mean, on edges whose smallest latency is
// smallest.
func plantLateness(n int, mean time.Duration, smallest int64) bundle.TestbedLateness {
	rng := rand.New(rand.NewPCG(3, 4))
	var h lateHist
	for range n {
		h.add(int64(rng.ExpFloat64() * float64(mean)))
	}
	return h.summary([]bundle.TestbedEdge{{LatencyNs: 3 * smallest}, {LatencyNs: smallest}, {LatencyNs: 2 * smallest}})
}

// The mark: a delay line whose p99 lateness exceeds a tenth of the
// smallest latency asked marks the recording, saying by how much; one
// under it does not, nor one that delayed nothing.
func TestLatenessMark_OverATenthOfTheSmallestLatency(t *testing.T) {
	const ms = int64(time.Millisecond)
	// An exponential's p99 is 4.6 of its mean: 0.69 ms at a 0.15 ms mean,
	// 3.5 ms at 0.75 ms; the smallest latency asked is 20 ms.
	under := plantLateness(10_000, 150*time.Microsecond, 20*ms)
	over := plantLateness(10_000, 750*time.Microsecond, 20*ms)
	if under.SmallestLatencyNs != 20*ms || under.P99Ns < ms/2 || under.P99Ns > ms {
		t.Fatalf("planted under: %+v", under)
	}
	if m := LatenessMark(under); m != "" {
		t.Errorf("p99 %d ns against 20 ms marked: %s", under.P99Ns, m)
	}
	if over.P99Ns < 3*ms || over.P99Ns > 4*ms {
		t.Fatalf("planted over: %+v", over)
	}
	m := LatenessMark(over)
	if !strings.Contains(m, "p99 lateness 3.") || !strings.Contains(m, "> 1/10 of the 20.0 ms smallest latency asked") {
		t.Errorf("p99 %d ns against 20 ms: mark %q", over.P99Ns, m)
	}
	if m := LatenessMark(bundle.TestbedLateness{SmallestLatencyNs: 20 * ms}); m != "" {
		t.Errorf("no packets: %q", m)
	}
	// The threshold itself: exactly a tenth is not over it.
	if LatenessMark(bundle.TestbedLateness{Packets: 1, P99Ns: 2 * ms, SmallestLatencyNs: 20 * ms}) != "" ||
		LatenessMark(bundle.TestbedLateness{Packets: 1, P99Ns: 2*ms + 1, SmallestLatencyNs: 20 * ms}) == "" {
		t.Error("the threshold is not a tenth of the smallest latency")
	}
}

// The load summary: min, median and max of the 1-minute load and the
// core count; nothing when the load could not be read.
func TestLoadSummary(t *testing.T) {
	l := loadSummary([]float64{2.5, 0.5, 4, 1}, 2)
	if *l != (bundle.TestbedLoad{CPUs: 2, Samples: 4, Load1Min: 0.5, Load1Median: 1.75, Load1Max: 4}) {
		t.Errorf("%+v", *l)
	}
	if loadSummary(nil, 2) != nil {
		t.Error("no samples, a summary")
	}
	if v, err := parseLoad1("3.80 4.06 5.59 6/111 28756\n"); err != nil || v != 3.8 {
		t.Errorf("parseLoad1: %v %v", v, err)
	}
}

// heavyTailed is n one-way delays: a normal body of the given mean and
// sd, and one in twenty delayed a further exponential of mean tail (the
// delay line late on a loaded machine).
func heavyTailed(n int, mean, sd, tail float64) []int64 {
	rng := rand.New(rand.NewPCG(5, 6))
	out := make([]int64, n)
	for i := range out {
		v := mean + sd*rng.NormFloat64()
		if i%20 == 0 {
			v += rng.ExpFloat64() * tail
		}
		out[i] = int64(v)
	}
	return out
}

// --derive fits the body of a heavy-tailed sample: latency its median
// and jitter its IQR / 1.349, within 0.5 ms of the body's 45 ± 5 ms,
// where the mean and the sample standard deviation are pulled far off by
// the tail; and it says the tail is heavier than the Gaussian fits. A
// Gaussian sample gets no such note.
func TestDerive_FitsTheBodyOfAHeavyTail(t *testing.T) {
	const ms = 1e6
	heavy := EdgeReport{From: "a", To: "b", Asked: Edge{MTUBytes: 1500}, SmallSent: 20_000, SmallGot: 20_000}
	heavy.summariseDelays(heavyTailed(20_000, 45*ms, 5*ms, 60*ms))
	gauss := EdgeReport{From: "b", To: "a", Asked: Edge{MTUBytes: 1500}, SmallSent: 20_000, SmallGot: 20_000}
	gauss.summariseDelays(heavyTailed(20_000, 45*ms, 5*ms, 0))
	if heavy.OneWayStddev < 10*ms || heavy.OneWayMean < 47*ms {
		t.Fatalf("the planted tail does not pull the moments: mean %.1f ms sd %.1f ms", heavy.OneWayMean/ms, heavy.OneWayStddev/ms)
	}
	d := (&ProbeReport{Edges: []EdgeReport{heavy, gauss}}).Derive()
	for i, want := range []bool{true, false} {
		if math.Abs(float64(d[i].LatencyNs)-45*ms) > 0.5*ms || math.Abs(float64(d[i].JitterStddevNs)-5*ms) > 0.5*ms {
			t.Errorf("%s→%s: derived %d ± %d ns, want 45 ± 5 ms", d[i].From, d[i].To, d[i].LatencyNs, d[i].JitterStddevNs)
		}
		if got := strings.Contains(d[i].Tail, "heavier than a Gaussian fits"); got != want {
			t.Errorf("%s→%s: tail note %q, want one: %v", d[i].From, d[i].To, d[i].Tail, want)
		}
	}
	var b strings.Builder
	(&ProbeReport{Edges: []EdgeReport{heavy}}).WriteLinks(&b)
	if !strings.Contains(b.String(), "# the tail is heavier") || !strings.Contains(b.String(), "jitter_stddev_ns = 5") {
		t.Errorf("links:\n%s", b.String())
	}
}

// --derive never writes the probe's own sending ceiling as a link's
// bandwidth: when the probe could offer only about what arrived, the
// edge was not what limited it, so bandwidth is left to the scenario
// extended and the file says why; when the probe offered twice what
// arrived, the throughput over (1 − loss) is the link's.
func TestDerive_NeverWritesTheProbesCeilingAsBandwidth(t *testing.T) {
	asked := Edge{RateBytes: 1_250_000_000, BurstBytes: 1564, MTUBytes: 1500} // 10 Gbit/s
	ceiling := EdgeReport{From: "a", To: "b", Asked: asked, SmallSent: 100, SmallGot: 100, OneWayP50: 1e6, OneWayP99: 1e6,
		ThroughputBytes: 40_000_000, OfferedBytes: 41_000_000}
	shaped := EdgeReport{From: "b", To: "a", Asked: Edge{RateBytes: 8000, BurstBytes: 1564, MTUBytes: 1500}, SmallSent: 100, SmallGot: 98, OneWayP50: 1e6, OneWayP99: 1e6,
		ThroughputBytes: 7840, OfferedBytes: 16_000}
	r := &ProbeReport{Edges: []EdgeReport{ceiling, shaped}}
	d := r.Derive()
	if d[0].BandwidthBps != 0 || !strings.Contains(d[0].Ceiling, "the probe's own sending ceiling") {
		t.Errorf("ceiling-limited: bandwidth %d, note %q", d[0].BandwidthBps, d[0].Ceiling)
	}
	if d[1].BandwidthBps != 8000 || d[1].Ceiling != "" {
		t.Errorf("link-limited: bandwidth %d, note %q", d[1].BandwidthBps, d[1].Ceiling)
	}
	var b strings.Builder
	r.WriteLinks(&b)
	first, second, _ := strings.Cut(b.String(), `from = "b"`)
	if strings.Contains(first, "bandwidth_bps") || !strings.Contains(first, "# bandwidth not derived") || !strings.Contains(second, "bandwidth_bps = 8000") {
		t.Errorf("links:\n%s", b.String())
	}
}
