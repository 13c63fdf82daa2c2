package bench

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/detsim/detsim/batch"
	"github.com/detsim/detsim/internal/cputime"
)

// benchRequested reports whether this `go test` was asked to run
// benchmarks (-bench).
func benchRequested() bool {
	f := flag.Lookup("test.bench")
	return f != nil && f.Value.String() != ""
}

// side is one half of a side-by-side result.
type side struct {
	name   string
	res    testing.BenchmarkResult
	cpu    time.Duration // process CPU time over all N runs
	detail string
}

func (s side) nsPerOp() float64  { return float64(s.res.T.Nanoseconds()) / float64(s.res.N) }
func (s side) cpuPerOp() float64 { return float64(s.cpu.Nanoseconds()) / float64(s.res.N) }

// printSideBySide writes both halves in `go test -bench` line format and
// the speed ratio, to stdout, where benchmark results go.
func printSideBySide(title string, det, ml side) {
	fmt.Printf("--- side by side: %s (same process, one after the other; GOMAXPROCS=%d; bundles under %s)\n",
		title, runtime.GOMAXPROCS(0), os.TempDir())
	for _, s := range []side{det, ml} {
		fmt.Printf("%-32s %4d %14.0f ns/op %14.0f cpu-ns/op   %s\n", s.name, s.res.N, s.nsPerOp(), s.cpuPerOp(), s.detail)
	}
	fmt.Printf("speed ratio memberlist/detsim: wall %.2f×, cpu %.2f×\n", ml.nsPerOp()/det.nsPerOp(), ml.cpuPerOp()/det.cpuPerOp())
}

// detsimSide benchmarks whole detsim batch runs of s, scenario loading
// included, as `detsim --batch` pays it.
func detsimSide(t *testing.T, s swimSpec) side {
	dir := t.TempDir()
	var last *batch.Result
	var cpu time.Duration
	res := testing.Benchmark(func(b *testing.B) {
		cpu = 0
		for i := range b.N {
			out := filepath.Join(dir, fmt.Sprintf("%s-%d", s.name, i))
			c0 := cputime.Self()
			last = runDetsim(b, s.load(b), out)
			cpu += cputime.Self() - c0
			b.StopTimer()
			if i+1 < b.N {
				os.RemoveAll(out)
			}
			b.StartTimer()
		}
	})
	if last == nil {
		t.Fatal("the detsim benchmark did not run")
	}
	run := countTraffic(t, last)
	pass, fail, inc := last.Counts()
	return side{
		name: "detsim/" + s.name,
		res:  res,
		cpu:  cpu,
		detail: fmt.Sprintf("%d packets/op  %d bytes/op  %d records/op  %.1f MB log  verdicts %d pass %d fail %d inconclusive",
			run.Packets, run.Bytes, last.Records, float64(run.logBytes)/1e6, pass, fail, inc),
	}
}

// memberlistSide benchmarks whole memberlist runs, each in a fresh
// synctest bubble parented by t.
func memberlistSide(t *testing.T, n int, d time.Duration) side {
	var last mlRun
	var cpu time.Duration
	res := testing.Benchmark(func(b *testing.B) {
		c0 := cputime.Self()
		for range b.N {
			last = inBubble(t, n, d)
		}
		cpu = cputime.Self() - c0
	})
	return side{
		name: fmt.Sprintf("memberlist/%dnodes_%v", n, d),
		res:  res,
		cpu:  cpu,
		detail: fmt.Sprintf("%d packets/op  %d bytes/op  %d dropped  %d streams (%d B)  alive seen per node %d..%d  converged %d/%d  logged errors %d",
			last.Packets, last.Bytes, last.Dropped, last.Streams, last.StreamBytes, last.MinMembers, last.MaxMembers, last.Converged, n, last.LoggedErrors),
	}
}

var rounds = flag.Int("rounds", 5, "rounds of the 3-node side-by-side; each times both sides, and the median ratio is reported")

// TestSideBySide_3Nodes7Min is the 3-node comparison: 3 SWIM
// nodes, zero-latency links, 7 virtual minutes, detsim writing its full
// bundle against memberlist in a synctest bubble. It is a benchmark that
// needs a *testing.T (synctest.Test takes nothing else), so it runs only
// under -bench and honours -benchtime; it asserts nothing about speed.
//
// The machines here are shared and their speed drifts within seconds, so
// one detsim-then-memberlist pass can put a quiet moment on one side and
// a busy one on the other. The test runs -rounds passes, each timing both
// sides back to back, and reports every pass's ratio and their median.
func TestSideBySide_3Nodes7Min(t *testing.T) {
	if !benchRequested() {
		t.Skip("a benchmark: runs under -bench (go test -bench . -benchtime 3x)")
	}
	var wall, cpu []float64
	for r := range max(*rounds, 1) {
		det := detsimSide(t, spec3)
		ml := memberlistSide(t, 3, 7*time.Minute)
		printSideBySide(fmt.Sprintf("3 nodes, 7 virtual minutes, round %d of %d", r+1, max(*rounds, 1)), det, ml)
		wall = append(wall, ml.nsPerOp()/det.nsPerOp())
		cpu = append(cpu, ml.cpuPerOp()/det.cpuPerOp())
	}
	fmt.Printf("median speed ratio memberlist/detsim over %d rounds: wall %.2f× (rounds %s), cpu %.2f×\n",
		len(wall), median(wall), ratios(wall), median(cpu))
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func ratios(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprintf("%.1f", x)
	}
	return strings.Join(parts, " ")
}

// TestSideBySide_1000Nodes60s is the 1000-node comparison, one run each:
// memberlist alone takes about 20 s of wall time, so it runs only with
// -slow (go test -run TestSideBySide_1000 -v -args -slow).
func TestSideBySide_1000Nodes60s(t *testing.T) {
	if !*slow {
		t.Skip("slow: run with -args -slow")
	}
	det := side{name: "detsim/" + spec1000.name}
	start, c0 := time.Now(), cputime.Self()
	res := runDetsim(t, spec1000.load(t), filepath.Join(t.TempDir(), "b"))
	det.res, det.cpu = testing.BenchmarkResult{N: 1, T: time.Since(start)}, cputime.Self()-c0
	run := countTraffic(t, res)
	pass, fail, inc := res.Counts()
	det.detail = fmt.Sprintf("%d packets/op  %d bytes/op  %d records/op  %.1f MB log  verdicts %d pass %d fail %d inconclusive",
		run.Packets, run.Bytes, res.Records, float64(run.logBytes)/1e6, pass, fail, inc)

	ml := side{name: "memberlist/1000nodes_1m0s"}
	start, c0 = time.Now(), cputime.Self()
	r := inBubble(t, 1000, time.Minute)
	ml.res, ml.cpu = testing.BenchmarkResult{N: 1, T: time.Since(start)}, cputime.Self()-c0
	ml.detail = fmt.Sprintf("%d packets/op  %d bytes/op  %d dropped  %d streams (%d B)  alive seen per node %d..%d  converged %d/1000  failed joins %d (first: %q)  logged errors %d (first: %q)",
		r.Packets, r.Bytes, r.Dropped, r.Streams, r.StreamBytes, r.MinMembers, r.MaxMembers, r.Converged,
		r.FailedJoins, r.JoinError, r.LoggedErrors, r.FirstLoggedError)
	printSideBySide("1000 nodes, 60 virtual seconds", det, ml)
}
