package engine

import (
	"path/filepath"
	"testing"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/network"
)

// nullSink takes every record and does nothing with it, so the benchmark
// measures the engine: queue, dispatch, network, hosts, record building.
type nullSink struct{ n int64 }

func (s *nullSink) Event(int64, string, string, hosts.Event) { s.n++ }
func (s *nullSink) Snapshot(int64, string, int, []byte)      { s.n++ }

// benchPolicy is a clean link: every send arrives, nothing is dialled
// twice, so every popped event does real work.
var benchPolicy = network.Policy{LatencyNs: 5_000_000, JitterStddevNs: 1_000_000, BandwidthBps: 1 << 30}

// BenchmarkEngine_16Echo_NullSink is the engine throughput goal:
// popped events per second with 16 echo hosts and records handed to a
// null sink (no serialisation, no digest).
func BenchmarkEngine_16Echo_NullSink(b *testing.B) {
	sc := meshScenario("echo", 16, benchPolicy, 1<<62)
	e := mustEngine(b, sc, Options{Sink: &nullSink{}})
	for range 10_000 { // past the cold-start dials
		e.Step()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		e.Step()
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkEngine_16Echo_Digest adds serialisation and the running digest
// (no disk): what the stepper pays per event.
func BenchmarkEngine_16Echo_Digest(b *testing.B) {
	sc := meshScenario("echo", 16, benchPolicy, 1<<62)
	e := mustEngine(b, sc, Options{})
	for range 10_000 {
		e.Step()
	}
	b.ReportAllocs()
	b.ResetTimer()
	start := e.Records()
	for range b.N {
		e.Step()
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(e.Records()-start)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkEngine_16Echo_Bundle is the full batch path: serialisation,
// the running digest and events.ndjson written to disk.
func BenchmarkEngine_16Echo_Bundle(b *testing.B) {
	w, err := bundle.Create(filepath.Join(b.TempDir(), "out"))
	if err != nil {
		b.Fatal(err)
	}
	defer w.Abort()
	sc := meshScenario("echo", 16, benchPolicy, 1<<62)
	e := mustEngine(b, sc, Options{Writer: w})
	b.ReportAllocs()
	b.ResetTimer()
	start := e.Records()
	for range b.N {
		e.Step()
	}
	if e.Err() != nil {
		b.Fatal(e.Err())
	}
	b.ReportMetric(float64(e.Records()-start)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkEngine_16Echo_RecvCost is the null-sink benchmark with every
// host paying recv_cost_ns per delivery (1 µs: below the arrival rate,
// so the inbox mostly holds one delivery at a time): what the inbox and
// its Process entries add per event.
func BenchmarkEngine_16Echo_RecvCost(b *testing.B) {
	sc := meshScenario("echo", 16, benchPolicy, 1<<62)
	for i := range sc.Peers {
		sc.Peers[i].RecvCostNs = 1_000
	}
	e := mustEngine(b, sc, Options{Sink: &nullSink{}})
	for range 10_000 {
		e.Step()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		e.Step()
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
