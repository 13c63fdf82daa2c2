package swim

import "testing"

// benchProbeCycle measures one full direct probe at steady state: the
// prober's Tick (ping), the target's Receive (ack), the prober's Receive
// (probe_acked), with the codec in between as a transport would run it.
func benchProbeCycle(b *testing.B, size int) {
	names := ids(size)
	cfg := DefaultConfig()
	nodes := make(map[string]*Node, size)
	for i, id := range names {
		nodes[id] = New(id, cfg, Member, names, &testRand{uint64(i) + 1})
		// Emit the initial view now, outside the timed loop, without
		// starting a probe nobody would answer.
		nodes[id].SendFailed("", "", 0)
	}
	a := nodes[names[0]]
	now := int64(0)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		now += cfg.ProbeIntervalNs
		var ping *Message
		var to string
		for _, e := range a.Tick(now) {
			if e.Kind == EffectSend {
				ping, to = e.Msg, e.To
			}
		}
		if ping == nil {
			b.Fatal("no ping")
		}
		buf, _ := Encode(ping)
		in, _ := Decode(buf)
		var ack *Message
		for _, e := range nodes[to].Receive(a.Self(), in, now+ms) {
			if e.Kind == EffectSend {
				ack = e.Msg
			}
		}
		buf, _ = Encode(ack)
		in, _ = Decode(buf)
		a.Receive(to, in, now+2*ms)
	}
}

func BenchmarkProbeCycle_3Nodes(b *testing.B)    { benchProbeCycle(b, 3) }
func BenchmarkProbeCycle_1000Nodes(b *testing.B) { benchProbeCycle(b, 1000) }

// BenchmarkCluster_1000Nodes_OneVirtualSecond runs the in-test pump (heap,
// codec, 100 ms ticks) for one steady-state virtual second of a 1000-node
// cluster: about the per-second share of the simulator's 1000 × 60 s goal,
// without the engine's own costs.
func BenchmarkCluster_1000Nodes_OneVirtualSecond(b *testing.B) {
	c := newCluster(b, ids(1000), DefaultConfig(), nil)
	c.keepLog = false
	c.run(2 * s)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		c.run(c.now + s)
	}
}
