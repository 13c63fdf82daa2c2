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
