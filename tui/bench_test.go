package tui

import (
	"slices"
	"testing"
	"time"

	"github.com/detsim/detsim/debugger"
	"github.com/detsim/detsim/scenarios"
)

// longEcho is echo_parity running for ever: about 620 steps per virtual
// second, every network path exercised in its first 20 seconds.
func longEcho(b *testing.B) *scenarios.Scenario {
	sc := *loadScenario(b, "reference/echo_parity")
	sc.DurationNs = 1 << 50
	return &sc
}

// BenchmarkReverseStep is the reverse-step goal: `p` at step
// 1,000,000 of a long run — restore the nearest checkpoint, re-execute,
// build the frame with the last step's changes, and draw it at 160×48.
// It reports the median (goal ≤ 50 ms).
func BenchmarkReverseStep(b *testing.B) { benchReverseStep(b, longEcho(b)) }

// benchReverseStep runs sc to step 1,000,000, then times one step back
// per iteration, frame built and drawn, and reports the median.
func benchReverseStep(b *testing.B, sc *scenarios.Scenario) {
	m := newTestModel(b, sc, 160, 48)
	s := m.sess
	if hit := s.Continue([]debugger.Breakpoint{{Kind: debugger.BreakStep, N: 1_000_000}}); hit.Step != 1_000_000 {
		b.Fatalf("reached step %d", hit.Step)
	}
	vp := m.scr.ViewParams()
	var times []time.Duration
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		msg := execute(s, &job{kind: jobBack, vp: vp})
		if msg.err != nil {
			b.Fatal(msg.err)
		}
		m.scr.Show(msg.fr)
		_ = m.View()
		times = append(times, time.Since(t0))
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "ms-median")
	b.ReportMetric(float64(s.Timeline().Engine().Index()), "final-step")
}

// BenchmarkView100Hosts is the frame goal: drawing the screen at 160×48
// with a hundred hosts (goal ≤ 16 ms). The matrix draws only what fits.
func BenchmarkView100Hosts(b *testing.B) {
	m := newTestModel(b, meshScenario(100, 1<<50), 160, 48)
	m = drive(b, m, keys("g", "text:3s", "enter", "tab", "j", "j", "j")...)
	for b.Loop() {
		_ = m.View()
	}
}

// BenchmarkStep100Hosts is what one `n` costs with a hundred hosts:
// snapshot the rows on screen, step, diff, build the frame, draw it.
func BenchmarkStep100Hosts(b *testing.B) {
	m := newTestModel(b, meshScenario(100, 1<<50), 160, 48)
	m = drive(b, m, keys("g", "text:3s", "enter")...)
	s := m.sess
	vp := m.scr.ViewParams()
	for b.Loop() {
		msg := execute(s, &job{kind: jobStep, vp: vp})
		m.scr.Show(msg.fr)
		_ = m.View()
	}
}

// BenchmarkReverseStepSwim is BenchmarkReverseStep on the SWIM
// reproduction run long enough to pass step 1,000,000.
func BenchmarkReverseStepSwim(b *testing.B) {
	sc := *loadScenario(b, "reproduction/gossip_flap")
	sc.DurationNs = 1 << 50
	benchReverseStep(b, &sc)
}
