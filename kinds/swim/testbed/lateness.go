package testbed

import (
	"fmt"
	"math/bits"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/detsim/detsim/bundle"
)

// lateHist counts the delay line's lateness, ns, in buckets exact below
// 1 024 ns and of 1/512 of their value above (so a quantile read from it
// is within 0.2 % of the nearest-rank one), with the exact maximum: a
// run may delay hundreds of millions of packets, which a histogram
// summarises in a few kilobytes where keeping each lateness would not.
type lateHist struct {
	counts []int64
	n      int64
	max    int64
}

func lateBucket(v int64) int {
	if v < 1024 {
		return int(v)
	}
	shift := bits.Len64(uint64(v)) - 10 // v>>shift in [512, 1023]
	return 1024 + (shift-1)*512 + int(v>>shift) - 512
}

// lateFloor is the least value of bucket i.
func lateFloor(i int) int64 {
	if i < 1024 {
		return int64(i)
	}
	shift := (i-1024)/512 + 1
	return int64((i-1024)%512+512) << shift
}

// add counts one packet released v ns after its scheduled instant; a
// negative v (the clock read before the write, never expected) counts
// as on time.
func (h *lateHist) add(v int64) {
	v = max(v, 0)
	i := lateBucket(v)
	if i >= len(h.counts) {
		h.counts = append(h.counts, make([]int64, i+1-len(h.counts))...)
	}
	h.counts[i]++
	h.n++
	h.max = max(h.max, v)
}

// quantile is the nearest-rank q-quantile: the least value of the bucket
// holding it, never above the maximum; 0 for no packets.
func (h *lateHist) quantile(q float64) int64 {
	if h.n == 0 {
		return 0
	}
	rank := max(int64(q*float64(h.n)+0.999999999), 1)
	var seen int64
	for i, c := range h.counts {
		if seen += c; seen >= rank {
			return min(lateFloor(i), h.max)
		}
	}
	return h.max
}

// summary is the manifest's record of the lateness over edges (their
// smallest latency asked is the yardstick).
func (h *lateHist) summary(edges []bundle.TestbedEdge) bundle.TestbedLateness {
	l := bundle.TestbedLateness{Packets: h.n, P50Ns: h.quantile(0.5), P99Ns: h.quantile(0.99), MaxNs: h.max}
	for i, e := range edges {
		if i == 0 || e.LatencyNs < l.SmallestLatencyNs {
			l.SmallestLatencyNs = e.LatencyNs
		}
	}
	return l
}

// LatenessMark is the manifest's mark of a recording whose own error is
// too large for its links, or "": the delay line's p99 lateness exceeds
// a tenth of the smallest latency asked. At that point one packet in a
// hundred on the shortest link arrived more than 10 % later than asked
// for reasons of the testbed's (its scheduling on a loaded machine), not
// the link's, which is the size of difference calibration's latency
// rows judge (docs/testbed.md, "The testbed's own error"). A recording
// with no delayed packet has no lateness to mark.
func LatenessMark(l bundle.TestbedLateness) string {
	if l.Packets == 0 || 10*l.P99Ns <= l.SmallestLatencyNs {
		return ""
	}
	return fmt.Sprintf("the delay line's p99 lateness %s > 1/10 of the %s smallest latency asked (%d packets; p50 %s, max %s)",
		msText(l.P99Ns), msText(l.SmallestLatencyNs), l.Packets, msText(l.P50Ns), msText(l.MaxNs))
}

// msText is ns as milliseconds, to a precision that shows a lateness of
// tens of microseconds.
func msText(ns int64) string {
	ms := float64(ns) / 1e6
	switch {
	case ms >= 10:
		return strconv.FormatFloat(ms, 'f', 1, 64) + " ms"
	case ms >= 1:
		return strconv.FormatFloat(ms, 'f', 2, 64) + " ms"
	}
	return strconv.FormatFloat(ms, 'f', 3, 64) + " ms"
}

// loadSampler reads the machine's 1-minute load average every period
// while a run goes on.
type loadSampler struct {
	stopc   chan struct{}
	done    sync.WaitGroup
	samples []float64
}

// loadavgPath is where the kernel publishes the load averages.
const loadavgPath = "/proc/loadavg"

func startLoadSampler(every time.Duration) *loadSampler {
	s := &loadSampler{stopc: make(chan struct{})}
	s.sample()
	s.done.Add(1)
	go func() {
		defer s.done.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				s.sample()
			case <-s.stopc:
				return
			}
		}
	}()
	return s
}

func (s *loadSampler) sample() {
	b, err := os.ReadFile(loadavgPath)
	if err != nil {
		return // a kernel without /proc: the load is not recorded
	}
	if v, err := parseLoad1(string(b)); err == nil {
		s.samples = append(s.samples, v)
	}
}

// parseLoad1 is /proc/loadavg's first field, the 1-minute load.
func parseLoad1(text string) (float64, error) {
	f := strings.Fields(text)
	if len(f) == 0 {
		return 0, fmt.Errorf("%s is empty", loadavgPath)
	}
	return strconv.ParseFloat(f[0], 64)
}

// stop takes a last sample and summarises them all, or returns nil when
// the load could not be read.
func (s *loadSampler) stop(cpus int) *bundle.TestbedLoad {
	close(s.stopc)
	s.done.Wait()
	s.sample()
	return loadSummary(s.samples, cpus)
}

func loadSummary(samples []float64, cpus int) *bundle.TestbedLoad {
	if len(samples) == 0 {
		return nil
	}
	x := slices.Clone(samples)
	slices.Sort(x)
	med := x[len(x)/2]
	if len(x)%2 == 0 {
		med = (x[len(x)/2-1] + x[len(x)/2]) / 2
	}
	return &bundle.TestbedLoad{CPUs: cpus, Samples: len(x), Load1Min: x[0], Load1Median: med, Load1Max: x[len(x)-1]}
}
