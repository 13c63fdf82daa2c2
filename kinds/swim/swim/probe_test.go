package swim

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// A target unreachable directly but reachable through an intermediary is
// acked indirectly and never suspected.
func TestIndirectProbe_AckThroughIntermediary(t *testing.T) {
	c := newCluster(t, abc, DefaultConfig(), nil)
	c.partition("a", "c", true)
	c.run(20 * s)
	var modes []string
	for _, r := range c.events("a", "probe_acked") {
		if pa := r.ev.(*ProbeAcked); pa.Target == "c" {
			modes = append(modes, pa.Mode)
		}
	}
	if len(modes) == 0 || slices.Contains(modes, ModeDirect) {
		t.Fatalf("a's acks for c: %v, want only indirect", modes)
	}
	for _, r := range c.events("a", "probe_sent") {
		if ps := r.ev.(*ProbeSent); ps.Mode == ModeIndirect && !slices.Equal(ps.Via, []string{"b"}) {
			t.Fatalf("via %v", ps.Via)
		}
	}
	if !c.allAlive(abc...) {
		t.Fatalf("an indirect ack must prevent suspicion:\n%s", c.dumpViews())
	}
}

// An intermediary that cannot reach the target either sends a nack; a
// nack that arrives in time spares the prober's health.
func TestIndirectProbe_NackSparesHealth(t *testing.T) {
	cfg := DefaultConfig()
	cfg.ProbeTimeoutNs = 200 * ms // ping_req at +200, nack at +400 + RTT: in time
	cfg.SuspicionMult = 30        // keep c suspect (and probed) for the whole test
	c := newCluster(t, abc, cfg, nil)
	c.run(2 * s)
	c.down["c"] = true
	c.run(12 * s)
	nacks := 0
	for _, r := range c.events("b", "message_sent") {
		if m := r.ev.(*MessageSent); m.Message == IndirectAck {
			nacks++
		}
	}
	if nacks == 0 {
		t.Fatal("b never nacked")
	}
	if h := c.nodes["a"].Health(); h != 0 {
		t.Fatalf("a's health %d: in-time nacks should show the fault is elsewhere", h)
	}
	// With the default timeout the nack comes too late and counts as missing.
	c2 := newCluster(t, abc, DefaultConfig(), nil)
	c2.run(2 * s)
	c2.down["c"] = true
	c2.run(4 * s)
	if h := c2.nodes["a"].Health(); h == 0 {
		t.Fatal("a late nack should count against the prober's health")
	}
}

// Independent confirmations shorten the suspicion: in a 6-node cluster
// (k = 2) the first accuser waits at most max = 24 s, but a second and a
// third accuser bring it down to min = 4 s.
func TestSuspicion_ConfirmationsShortenTimeout(t *testing.T) {
	names := []string{"a", "b", "c", "d", "e", "f"}
	c := newCluster(t, names, DefaultConfig(), nil)
	c.run(2 * s)
	c.down["f"] = true
	killed := c.now
	if !c.runUntil(40*s, func() bool { return allDead(c, names[:5], []string{"f"}) }) {
		t.Fatalf("f not dead:\n%s", c.dumpViews())
	}
	t.Logf("f declared dead by all after %d ms", (c.now-killed)/ms)
	if took := c.now - killed; took > 15*s {
		t.Fatalf("f took %d ms to be declared dead; confirmations should cut the 24 s maximum", took/ms)
	}
	confirmed := false
	for _, id := range names[:5] {
		for _, r := range c.events(id, "state_transition") {
			st := r.ev.(*StateTransition)
			if st.Subject == "f" && st.To == Dead && st.Reason == ReasonSuspicionTimeout {
				confirmed = true
			}
		}
	}
	if !confirmed {
		t.Fatal("nobody's own suspicion timer declared f dead")
	}
}

func TestStaleAndUnknownTimersIgnored(t *testing.T) {
	n := New("a", DefaultConfig(), Member, abc, &testRand{1})
	n.Tick(0)
	withoutCounters := func() string {
		snap := string(n.Snapshot())
		return snap[:strings.Index(snap, `"counters"`)]
	}
	before := withoutCounters()
	for _, tok := range []uint64{0, token(timerProbeTimeout, 999), token(timerProbeDeadline, 999), token(timerRelay, 5), suspicionToken(1, 77), suspicionToken(1000, 1), 0xFF << 56} {
		if out := n.TimerFired(tok, 100); len(out) != 0 {
			t.Fatalf("token %x produced %d effects", tok, len(out))
		}
	}
	if after := withoutCounters(); before != after {
		t.Fatalf("stale timers changed the state:\n%s\n%s", before, after)
	}
}

func TestMisdirectedAndMisroutedDropped(t *testing.T) {
	n := New("a", DefaultConfig(), Member, abc, &testRand{1})
	n.Tick(0)
	out := n.Receive("b", &Message{Kind: Ping, From: "b", Seq: 1, Target: "c"}, 1)
	if len(out) != 1 || out[0].Event.Type() != "message_received" {
		t.Fatalf("misdirected ping produced %v", out)
	}
	out = n.Receive("b", &Message{Kind: Ping, From: "c", Seq: 1, Target: "a", Updates: []Update{upd("b", Dead, 9)}}, 1)
	if len(out) != 1 {
		t.Fatalf("misrouted ping produced %d effects", len(out))
	}
	if st, _, _ := n.View("b"); st != Alive {
		t.Fatal("a misrouted message's updates were applied")
	}
	if n.counters.Misdirected != 1 || n.counters.Misrouted != 1 {
		t.Fatalf("counters %+v", n.counters)
	}
	if out := n.SendFailed("b", "partitioned", 2); len(out) != 0 || n.counters.SendFailed != 1 {
		t.Fatal("SendFailed must only count")
	}
}

func TestReceive_EventOrder(t *testing.T) {
	n := New("a", DefaultConfig(), Member, abc, &testRand{1})
	// The first call emits the initial view before anything else.
	out := n.Receive("b", &Message{Kind: Ping, From: "b", Seq: 4, Target: "a", Updates: []Update{upd("a", Suspect, 0)}}, 5)
	var types []string
	for _, e := range out {
		switch e.Kind {
		case EffectEvent:
			types = append(types, e.Event.Type())
		case EffectSend:
			types = append(types, "send:"+e.Msg.Kind.String())
			if len(e.Msg.Updates) == 0 || !reflect.DeepEqual(e.Msg.Updates[0], Update{Member: "a", State: Alive, Incarnation: 1}) {
				t.Fatalf("the ack must carry the refutation, got %+v", e.Msg.Updates)
			}
		}
	}
	want := []string{"state_transition", "state_transition", "state_transition", "message_received",
		"self_incarnation_bump", "state_transition", "message_sent", "send:ack"}
	if !slices.Equal(types, want) {
		t.Fatalf("order %v\nwant  %v", types, want)
	}
}

// A node whose timers were dropped while it was paused concludes its
// probe and its suspicions on its next ticks.
func TestTick_ConcludesOverdueWork(t *testing.T) {
	n := New("a", DefaultConfig(), Member, abc, &testRand{1})
	n.Tick(0) // probe in flight; its timers are never delivered
	gossipTo(n, "c", 1, upd("b", Suspect, 0))
	if !n.probe.active {
		t.Fatal("no probe in flight")
	}
	n.Receive("c", &Message{Kind: PingReq, From: "c", Seq: 3, Target: "b"}, 2)
	out := n.Tick(60 * s)
	var got []string
	for _, e := range out {
		if e.Kind == EffectEvent {
			switch ev := e.Event.(type) {
			case *ProbeTimedOut:
				got = append(got, "timed_out:"+ev.Mode)
			case *StateTransition:
				got = append(got, ev.Subject+":"+ev.To.String()+":"+ev.Reason)
			}
		}
		if e.Kind == EffectSend && e.Msg.Kind == IndirectAck && !e.Msg.Nack {
			t.Fatal("relay must nack")
		}
	}
	if !slices.Contains(got, "b:dead:suspicion_timeout") || !slices.Contains(got, "timed_out:indirect") {
		t.Fatalf("overdue work not concluded: %v", got)
	}
	if len(n.relays) != 0 {
		t.Fatal("overdue relay kept")
	}
}

// Same seed, same everything: two runs give byte-identical traces.
func TestDeterministic(t *testing.T) {
	trace := func() string {
		c := newCluster(t, []string{"a", "b", "c", "d", "e"}, DefaultConfig(), nil)
		c.run(5 * s)
		c.down["c"] = true
		c.run(20 * s)
		c.down["c"] = false
		c.run(40 * s)
		out := ""
		for _, r := range c.log {
			out += r.String() + "\n"
		}
		for _, id := range c.ids {
			out += string(c.nodes[id].Snapshot()) + "\n"
		}
		return out
	}
	if a, b := trace(), trace(); a != b {
		t.Fatal("two identical runs differ")
	}
}
