package tui

import (
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"testing"
	"time"

	"github.com/detsim/detsim/batch"
	"github.com/detsim/detsim/debugger"
	"github.com/detsim/detsim/engine"
	"github.com/detsim/detsim/scenarios"
	"github.com/detsim/detsim/tui/screen"
)

// The issue-12 scale benchmarks, on kinds/swim/bench/testdata/swim1000_60s.toml: a
// thousand SWIM members on a full mesh for 60 virtual seconds (539 002
// steps, 1.83 M records). Each is cheap enough for a 2-core machine with
// -benchtime 1x (one or two runs of the scenario each); the figures are
// reported as metrics, rates as ratios to a batch run of the same
// scenario in the same process (docs/BENCHMARKS.md).

// scale1000 loads the scenario and puts the benchmark under the memory
// limit a stepper session runs under (Run), restored when it ends.
func scale1000(b *testing.B) *scenarios.Scenario {
	b.Helper()
	old := debug.SetMemoryLimit(memoryLimit(engine.DefaultCheckpointBudget))
	b.Cleanup(func() { debug.SetMemoryLimit(old) })
	return loadScenario(b, filepath.Join("..", "kinds", "swim", "bench", "testdata", "swim1000_60s.toml"))
}

// heapPeak samples the heap between chunks of a job, as a session would
// see it: the largest in-use heap seen and the heap the runtime holds
// from the OS, an upper bound on the peak.
type heapPeak struct{ inuse, sys uint64 }

func (h *heapPeak) sample() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	h.inuse = max(h.inuse, ms.HeapInuse)
	h.sys = max(h.sys, ms.HeapSys-ms.HeapReleased)
}

func (h *heapPeak) report(b *testing.B) {
	b.ReportMetric(float64(h.inuse)/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(h.sys)/(1<<20), "peak-heap-sys-MB")
}

// runJob runs j on s to the end, chunk after chunk as the Model does, and
// returns the final message.
func runJob(b *testing.B, s *debugger.Session, j *job, h *heapPeak) jobMsg {
	b.Helper()
	for {
		msg := execute(s, j)
		if msg.err != nil {
			b.Fatal(msg.err)
		}
		h.sample()
		if msg.next == nil {
			return msg
		}
		j = msg.next
	}
}

// batchRate runs the scenario as --batch does (bundle written under the
// benchmark's temp directory) and returns its steps per second.
func batchRate(b *testing.B, sc *scenarios.Scenario) float64 {
	b.Helper()
	t0 := time.Now()
	res, err := batch.Run(sc, testRegistry(), batch.Config{Out: filepath.Join(b.TempDir(), "bundle")})
	if err != nil {
		b.Fatal(err)
	}
	return float64(res.Steps) / time.Since(t0).Seconds()
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

func medianDur(ds []time.Duration) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[len(s)/2].Microseconds()) / 1000
}

// BenchmarkStepper1000_Next is `n` on the 1000-peer run, at 200×50: one
// step with the frame built and drawn, from step 0 (the start-up burst:
// a node's first tick records its view of all 1000 members) and from
// t=5s. Goal: median ≤ 50 ms.
func BenchmarkStepper1000_Next(b *testing.B) {
	for _, at := range []int64{0, 5_000_000_000} {
		b.Run("at="+screen.FmtTime(at), func(b *testing.B) {
			m := newTestModel(b, scale1000(b), 200, 50)
			var h heapPeak
			if at > 0 {
				msg := runJob(b, m.sess, &job{kind: jobGotoTime, target: at, vp: m.scr.ViewParams()}, &h)
				m.scr.Show(msg.fr)
			}
			s := m.sess
			var times []time.Duration
			for b.Loop() {
				t0 := time.Now()
				msg := execute(s, &job{kind: jobStep, vp: m.scr.ViewParams()})
				if msg.err != nil {
					b.Fatal(msg.err)
				}
				m.scr.Show(msg.fr)
				_ = m.View()
				times = append(times, time.Since(t0))
				h.sample()
			}
			b.ReportMetric(medianDur(times), "ms-median")
			h.report(b)
		})
	}
}

// BenchmarkStepper1000_GotoEnd opens the stepper and goes to the last
// step (g with a step past the end: clamped), landing frame included.
// Its rate is steps per second of wall time against a batch run timed in
// the same iteration.
func BenchmarkStepper1000_GotoEnd(b *testing.B) {
	vsBatch(b, "goto-vs-batch", func(m *Model, h *heapPeak) (int64, time.Duration) {
		t0 := time.Now()
		msg := runJob(b, m.sess, &job{kind: jobGotoStep, target: 1 << 40, vp: m.scr.ViewParams()}, h)
		took := time.Since(t0)
		b.ReportMetric(float64(msg.fr.Index()), "final-step")
		b.ReportMetric(float64(m.sess.Timeline().Checkpoints()), "checkpoints")
		return int64(msg.fr.Index()), took
	})
}

// vsBatch runs the scale scenario's stepper benchmark whose iteration is
// run on a fresh 200x50 stepper: run returns the steps it took and the
// time they took, and the metric is their rate against a batch run timed
// in the same iteration (median over the iterations), with the heap's
// peak.
func vsBatch(b *testing.B, metric string, run func(m *Model, h *heapPeak) (steps int64, took time.Duration)) {
	sc := scale1000(b)
	var ratios []float64
	var h heapPeak
	for b.Loop() {
		br := batchRate(b, sc)
		m := newTestModel(b, sc, 200, 50)
		steps, took := run(&m, &h)
		ratios = append(ratios, float64(steps)/took.Seconds()/br)
	}
	b.ReportMetric(median(ratios), metric)
	h.report(b)
}

// BenchmarkStepper1000_ReverseAtEnd is `p` at the last step, again and
// again (after one goto there, not timed): restore, re-execute, frame,
// draw. The first one back re-executes from the last checkpoint; it
// leaves one near, so the later ones are shorter.
func BenchmarkStepper1000_ReverseAtEnd(b *testing.B) {
	m := newTestModel(b, scale1000(b), 200, 50)
	var h heapPeak
	msg := runJob(b, m.sess, &job{kind: jobGotoStep, target: 1 << 40, vp: m.scr.ViewParams()}, &h)
	m.scr.Show(msg.fr)
	var times []time.Duration
	for b.Loop() {
		t0 := time.Now()
		msg := runJob(b, m.sess, &job{kind: jobBack, vp: m.scr.ViewParams()}, &h)
		m.scr.Show(msg.fr)
		_ = m.View()
		times = append(times, time.Since(t0))
	}
	b.ReportMetric(medianDur(times), "ms-median")
	b.ReportMetric(float64(times[0].Microseconds())/1000, "ms-first")
	h.report(b)
}

// BenchmarkStepper1000_ContinueToEnd is `c` from step 0 to the end of the
// run (its one assertion passes, so no breakpoint fires), in 40 ms
// chunks with progress frames, as the stepper runs it.
func BenchmarkStepper1000_ContinueToEnd(b *testing.B) {
	vsBatch(b, "continue-vs-batch", func(m *Model, h *heapPeak) (int64, time.Duration) {
		t0 := time.Now()
		msg := runJob(b, m.sess, &job{kind: jobContinue, bps: m.bps, vp: m.scr.ViewParams()}, h)
		took := time.Since(t0)
		if !msg.fr.Done() {
			b.Fatalf("continue stopped at step %d: %s", msg.fr.Index(), msg.status)
		}
		return int64(msg.fr.Index()), took
	})
}

// BenchmarkStepper1000_ContinueFromMiddle is `c` from where a user would
// be after `g 30s` and a few `p`: 270 000 steps to the end. Its rate is
// against the batch run's average over the whole scenario (whose first
// quarter second, 1000 nodes starting, is the slow part), so it flatters
// the stepper; the whole-run figure is ContinueToEnd.
func BenchmarkStepper1000_ContinueFromMiddle(b *testing.B) {
	vsBatch(b, "continue-vs-batch-average", func(m *Model, h *heapPeak) (int64, time.Duration) {
		msg := runJob(b, m.sess, &job{kind: jobGotoTime, target: 30_000_000_000, vp: m.scr.ViewParams()}, h)
		m.scr.Show(msg.fr)
		for range 5 {
			msg = runJob(b, m.sess, &job{kind: jobBack, vp: m.scr.ViewParams()}, h)
			m.scr.Show(msg.fr)
		}
		start := m.frame().Index()
		t0 := time.Now()
		msg = runJob(b, m.sess, &job{kind: jobContinue, bps: m.bps, vp: m.scr.ViewParams()}, h)
		return int64(msg.fr.Index() - start), time.Since(t0)
	})
}
