package verdict

import (
	"fmt"
	"math"
	"testing"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/kinds/swim/swimcheck"
	"github.com/detsim/detsim/scenarios"
)

// benchRun is a busy ten-peer run: each virtual second every peer probes
// the next one directly and pings and acks it, the engine notes a cache
// change, and p4's view of p5 flips between suspect and alive while
// p4's probes of p5 time out. Nothing in it resolves any benchAssertions,
// so every record is judged by all ten.
func benchRun(rounds int) *stream {
	s := &stream{}
	ids := make([]string, 10)
	for i := range ids {
		ids[i] = fmt.Sprintf("p%d", i)
	}
	s.initial(0, ids...)
	for r := range int64(rounds) {
		t := (r + 1) * sec
		for i, id := range ids {
			s.probe(t, id, "probe_sent", ids[(i+1)%len(ids)], r)
			s.message(t, id, "message_sent", "ping", 120)
		}
		for i := range ids {
			next := ids[(i+1)%len(ids)]
			s.message(t+10*ms, next, "message_received", "ping", 120)
			s.message(t+10*ms, next, "message_sent", "ack", 80)
		}
		for i, id := range ids {
			s.message(t+20*ms, id, "message_received", "ack", 80)
			if id != "p4" {
				s.probe(t+20*ms, id, "probe_acked", ids[(i+1)%len(ids)], r)
			}
			s.add(t+20*ms, "", "engine", `{"type":"cache_state_change","from":"p0","to":"p1","state":"warm","reason":"warmed"}`)
		}
		s.probe(t+500*ms, "p4", "probe_timed_out", "p5", r)
		if r%5 == 0 {
			state := []string{"suspect", "alive"}[r/5%2]
			s.view(t+600*ms, "p4", "p5", state, r/5)
		}
	}
	return s
}

func benchAssertions() []scenarios.Assertion {
	never := int64(math.MaxInt64 / 2)
	all := peers("p0", "p1", "p2", "p3")
	return []scenarios.Assertion{
		{Name: "1", Kind: "all_alive_at", Params: swimcheck.AllAliveAt{AtNs: never, Peers: all}},
		{Name: "2", Kind: "all_alive_throughout", Params: swimcheck.AllAliveThroughout{WindowStartNs: int64(0), WindowEndNs: never, Peers: all}},
		{Name: "3", Kind: "convergence_after", Params: swimcheck.ConvergenceAfter{AfterNs: never, WithinNs: sec, Peers: all}},
		{Name: "4", Kind: "no_flap_while_probes_ok", Params: swimcheck.NoFlapWhileProbesOK{Peer: "p5", WindowStartNs: int64(0), WindowEndNs: never}},
		{Name: "5", Kind: "no_dead_when_probes_ok", Params: swimcheck.NoDeadWhenProbesOK{Peer: "p5", WindowStartNs: int64(0), WindowEndNs: never}},
		{Name: "6", Kind: "self_incarnation_bounded", Params: swimcheck.SelfIncarnationBounded{Peer: "p5", MaxValue: never}},
		{Name: "7", Kind: "message_size_bounded", Params: swimcheck.MessageSizeBounded{MessageKind: "ping", MaxBytes: never}},
		{Name: "8", Kind: "dead_peer_resurrects_within", Params: swimcheck.DeadPeerResurrectsWithin{Peer: "p5", AfterNs: int64(0), WithinNs: sec}},
		{Name: "9", Kind: "event_count", Params: scenarios.EventCount{EventType: "cache_state_change", Max: never}},
		{Name: "10", Kind: "event_rate", Params: scenarios.EventRate{EventType: "probe_sent", WindowNs: sec, MaxPerWindow: never}},
	}
}

// BenchmarkObserve measures the streaming evaluator's cost per record
// with one assertion of every kind active; ns/op is per record.
func BenchmarkObserve(b *testing.B) {
	recs := benchRun(1000).records(b)
	span := recs[len(recs)-1].VirtualTimeNs + sec
	e, err := New(benchAssertions())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		k := i % len(recs)
		rec := recs[k]
		rec.VirtualTimeNs += int64(i/len(recs)) * span
		e.Observe(i+1, rec)
	}
	b.StopTimer()
	if e.Resolved() {
		b.Fatal("the benchmark resolved its assertions")
	}
}

// BenchmarkEvaluateBundle measures post-run evaluation of a written
// events.ndjson, reading and parsing included; ns/op is per record.
func BenchmarkEvaluateBundle(b *testing.B) {
	s := benchRun(1000)
	dir := s.write(b)
	as := benchAssertions()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N / len(s.lines) {
		if _, err := EvaluateBundle(dir, as, math.MaxInt64/2); err != nil {
			b.Fatal(err)
		}
	}
	_ = bundle.EventsFile
}
