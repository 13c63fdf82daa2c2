package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/detsim/detsim/batch"
	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/bundle/verdict"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/internal/cputime"
	"github.com/detsim/detsim/scenarios"
)

// traffic is what crossed the simulated network in one run.
type traffic struct {
	Packets int64 // datagrams sent
	Bytes   int64 // their payload bytes
}

// detsimRun is one finished detsim run and its bundle.
type detsimRun struct {
	res *batch.Result
	traffic
	logBytes int64 // size of events.ndjson
}

// runDetsim runs sc headless to its end with the bundle (events.ndjson,
// snapshots, verdicts, manifest) written under out, exactly as
// `detsim --batch` does.
func runDetsim(tb testing.TB, sc *scenarios.Scenario, out string) *batch.Result {
	tb.Helper()
	res, err := batch.Run(sc, builtin.Registry(), batch.Config{Out: out, Version: "bench"})
	if err != nil {
		tb.Fatalf("detsim run: %v", err)
	}
	return res
}

// countTraffic reads a bundle's events.ndjson and adds up every SWIM
// message_sent record: the datagrams the hosts put on the network.
func countTraffic(tb testing.TB, res *batch.Result) detsimRun {
	tb.Helper()
	path := filepath.Join(res.Out, "events.ndjson")
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	run := detsimRun{res: res}
	if info, err := f.Stat(); err == nil {
		run.logBytes = info.Size()
	}
	var rec struct {
		Event struct {
			Type  string `json:"type"`
			Bytes int64  `json:"bytes"`
		} `json:"event"`
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		if !bytes.Contains(sc.Bytes(), []byte(`"message_sent"`)) {
			continue
		}
		rec.Event.Type, rec.Event.Bytes = "", 0
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			tb.Fatalf("%s: %v", path, err)
		}
		if rec.Event.Type == "message_sent" {
			run.Packets++
			run.Bytes += rec.Event.Bytes
		}
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return run
}

// benchDetsim times whole runs of s as `detsim --batch` makes them:
// loading the scenario, the engine writing events.ndjson and snapshots,
// the post-run verdicts, the manifest. Removing the previous bundle is
// outside the timer.
func benchDetsim(b *testing.B, s swimSpec) {
	dir := b.TempDir()
	var last *batch.Result
	var cpu time.Duration
	b.ResetTimer()
	for i := range b.N {
		c0 := cputime.Self()
		last = runDetsim(b, s.load(b), filepath.Join(dir, fmt.Sprint(i)))
		cpu += cputime.Self() - c0
		if i+1 < b.N {
			b.StopTimer()
			if err := os.RemoveAll(last.Out); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
	}
	b.StopTimer()
	run := countTraffic(b, last)
	b.ReportMetric(float64(run.Packets), "packets/op")
	b.ReportMetric(float64(run.Bytes), "bytes/op")
	b.ReportMetric(float64(last.Records), "records/op")
	b.ReportMetric(float64(run.logBytes), "logbytes/op")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// BenchmarkDetsim_3Nodes7Min is the detsim half of the 3-node comparison:
// 7 virtual minutes, bundle written.
func BenchmarkDetsim_3Nodes7Min(b *testing.B) { benchDetsim(b, spec3) }

// BenchmarkDetsim_1000Nodes60s is the detsim half of the 1000-node
// comparison: 60 virtual seconds, bundle written (goal < 1.8 s).
func BenchmarkDetsim_1000Nodes60s(b *testing.B) { benchDetsim(b, spec1000) }

// TestDetsim_3Nodes7Min_AllAliveAndProbing checks that the detsim side
// does the work the comparison claims: all three stay alive for the whole
// run and each probes once per second, a ping and an ack per probe.
func TestDetsim_3Nodes7Min_AllAliveAndProbing(t *testing.T) {
	res := runDetsim(t, spec3.load(t), filepath.Join(t.TempDir(), "b"))
	for _, v := range res.Verdicts {
		if v.Outcome != verdict.Pass {
			t.Errorf("assertion %s: %v, want Pass", v.Name, v.Outcome)
		}
	}
	run := countTraffic(t, res)
	// 3 nodes × 420 probe intervals × (ping + ack), give or take the
	// probes cut by the end of the run.
	if want := int64(3 * 420 * 2); run.Packets < want-12 || run.Packets > want {
		t.Errorf("packets = %d, want about %d", run.Packets, want)
	}
	for _, dir := range []string{bundle.SnapshotsFile, "verdicts.json", "manifest.json"} {
		if _, err := os.Stat(filepath.Join(res.Out, dir)); err != nil {
			t.Errorf("bundle lacks %s: %v", dir, err)
		}
	}
}
