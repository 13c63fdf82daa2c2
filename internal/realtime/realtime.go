// Package realtime is how tests of real-time code — live runs, daemons,
// servers on real sockets and timers — wait: for a condition, polled
// until a deadline scaled to how loaded the machine is, never for a fixed
// sleep. A test that sleeps 3 s and then asserts passes on an idle
// machine and fails beside two CPU-burning processes; one that waits for
// what it needs, with a deadline that grows with the load, passes on
// both, and fails only when the awaited thing never happens.
//
// Outside the determinism fence: it reads the clock and the load.
package realtime

import (
	"flag"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// MaxScale bounds Scale: a machine over ten times slower than an idle one
// is one no real-time test can say anything about.
const MaxScale = 10

var (
	scaleOnce sync.Once
	scale     int
)

// Scale is how many times slower than an idle machine this one runs real
// time now, at least 1 and at most MaxScale: the larger of the runnable
// load per CPU (the one-minute load average over the CPUs, rounded) and the
// lateness of short sleeps (the median overshoot of eleven 1 ms sleeps,
// in units of 4 ms: one late wake-up is noise, most of them late is
// load), measured once per test binary. The load average lags a
// load that just began; the sleeps see it at once.
func Scale() int {
	scaleOnce.Do(func() { scale = min(max(loadScale(), sleepScale(), 1), MaxScale) })
	return scale
}

// ScaleParallel is the scale for one of a test's parallel real-time runs
// (t.Parallel subtests each running one, such as the edge's outside-agent
// episodes): Scale measured afresh, never below the binary's Scale, and
// raised by the runs of this test binary that may run beside it. Scale,
// measured once, is the load when the binary began: a package whose runs
// take ten minutes meets loads its first measurement never saw (an
// episode's 2 s Cancel bound, at 40 ms × a scale taken at load 4, missed
// at load 12.5). And the runs beside it are load no measurement sees in
// time: they mostly wait, so the one-minute load average barely counts
// them, but they wake at their schedule's instants, on the same CPUs as
// this one's (at four at once beside three burners, a retry meant to land
// inside a scaled retry-after landed outside it: docs/BENCHMARKS.md, "The
// edge's tests"). Each neighbour — go test's -parallel less this run —
// counts as one runnable process per CPU, as the load average would
// count it were it running, rounded up: a neighbour waking at the same
// instant takes a CPU whole.
func ScaleParallel() int {
	return beside(max(Scale(), loadScale(), sleepScale()), parallel(), runtime.NumCPU())
}

// beside is measured raised by parallel-1 neighbours over ncpu CPUs,
// rounded up, at most MaxScale.
func beside(measured, parallel, ncpu int) int {
	others, ncpu := max(parallel-1, 0), max(ncpu, 1)
	return min(max(measured, 1)+(others+ncpu-1)/ncpu, MaxScale)
}

// parallel is go test's -parallel, how many parallel subtests run at
// once (the CPUs by default); 1 outside a test binary.
func parallel() int {
	f := flag.Lookup("test.parallel")
	if f == nil {
		return 1
	}
	n, err := strconv.Atoi(f.Value.String())
	if err != nil {
		return 1
	}
	return n
}

func loadScale() int {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 1
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 1
	}
	load, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return 1
	}
	return int(load/float64(runtime.NumCPU()) + 0.5)
}

func sleepScale() int {
	late := make([]time.Duration, 11)
	for i := range late {
		start := time.Now()
		time.Sleep(time.Millisecond)
		late[i] = time.Since(start) - time.Millisecond
	}
	slices.Sort(late)
	return 1 + int(late[len(late)/2]/(4*time.Millisecond))
}

// Scaled is d times Scale.
func Scaled(d time.Duration) time.Duration { return d * time.Duration(Scale()) }

// WaitFor polls cond every 20 ms until it holds, and fails the test if it
// does not within Scaled(within), saying what was awaited.
func WaitFor(t testing.TB, what string, within time.Duration, cond func() bool) {
	t.Helper()
	limit := Scaled(within)
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v (%v × load scale %d) for %s", limit, within, Scale(), what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Returns runs f and fails the test if it has not returned within
// Scaled(bound), saying what blocked. It is a hang detector, not a timing
// goal: a reader that waits on a FIFO's writer fails its test here instead
// of hanging the whole test binary. A blocked f is left running.
func Returns(t testing.TB, what string, bound time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	limit := Scaled(bound)
	select {
	case <-done:
	case <-time.After(limit):
		t.Fatalf("%s blocked for %v (%v × load scale %d): a non-regular file was read instead of refused", what, limit, bound, Scale())
	}
}
