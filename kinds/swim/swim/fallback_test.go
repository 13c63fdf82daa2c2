package swim

import "testing"

// fallbackNode is node "a" of {a, b} with the fallback probe on, its first
// probe (of b) started at t = 0.
func fallbackNode(t *testing.T, on bool) (*Node, uint64) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.FallbackProbe = on
	n := New("a", cfg, Member, []string{"a", "b"}, &testRand{s: 1})
	n.Tick(0)
	if !n.probe.active {
		t.Fatal("no probe started")
	}
	return n, n.probe.seq
}

func sendEffects(effs []Effect) []Effect {
	var out []Effect
	for _, e := range effs {
		if e.Kind == EffectSend {
			out = append(out, e)
		}
	}
	return out
}

func probeEvents(effs []Effect, typ string) []Event {
	var out []Event
	for _, e := range effs {
		if e.Kind == EffectEvent && e.Event.Type() == typ {
			out = append(out, e.Event)
		}
	}
	return out
}

// At the probe timeout the fallback ping goes over a new stream, bare,
// with the probe's seq; without fallback_probe nothing goes (two members:
// no intermediaries either).
func TestFallbackProbe_SentAtTheTimeoutOverAStream(t *testing.T) {
	n, seq := fallbackNode(t, true)
	effs := n.TimerFired(token(timerProbeTimeout, seq), 500*ms)
	got := sendEffects(effs)
	if len(got) != 1 {
		t.Fatalf("sends at the timeout: %+v, want one fallback ping", got)
	}
	m := got[0]
	if m.To != "b" || m.Transport != StreamOpen || m.Msg.Kind != Ping || m.Msg.Seq != seq || len(m.Msg.Updates) != 0 {
		t.Errorf("fallback send %+v (msg %+v), want a bare ping to b, seq %d, over StreamOpen", m, m.Msg, seq)
	}
	ps := probeEvents(effs, "probe_sent")
	if len(ps) != 1 || ps[0].(*ProbeSent).Mode != ModeFallback {
		t.Errorf("probe_sent at the timeout: %v, want one in mode fallback", ps)
	}
	off, seq := fallbackNode(t, false)
	if got := sendEffects(off.TimerFired(token(timerProbeTimeout, seq), 500*ms)); len(got) != 0 {
		t.Errorf("fallback_probe off sent %+v", got)
	}
}

// A ping that came over a stream is answered on it, bare; one that came
// as a datagram is answered as a datagram.
func TestFallbackProbe_PingOverAStreamIsAnsweredOnIt(t *testing.T) {
	b := New("b", DefaultConfig(), Member, []string{"a", "b"}, &testRand{s: 2})
	got := sendEffects(b.ReceiveStream("a", &Message{Kind: Ping, From: "a", Seq: 9, Target: "b"}, 0))
	if len(got) != 1 || got[0].Transport != StreamReply || got[0].Msg.Kind != Ack || got[0].Msg.Seq != 9 || len(got[0].Msg.Updates) != 0 {
		t.Fatalf("answer to a stream ping: %+v, want a bare ack seq 9 over StreamReply", got)
	}
	got = sendEffects(b.Receive("a", &Message{Kind: Ping, From: "a", Seq: 10, Target: "b"}, 0))
	if len(got) != 1 || got[0].Transport != Packet {
		t.Fatalf("answer to a datagram ping: %+v, want a datagram", got)
	}
}

// The stream's ack counts as the probe's ack before the deadline (no
// suspicion, health −1); after it, it is stale and the target is suspect.
func TestFallbackProbe_AckCountsOnlyBeforeTheDeadline(t *testing.T) {
	n, seq := fallbackNode(t, true)
	n.TimerFired(token(timerProbeTimeout, seq), 500*ms)
	effs := n.ReceiveStream("b", &Message{Kind: Ack, From: "b", Seq: seq}, 900*ms)
	acked := probeEvents(effs, "probe_acked")
	if len(acked) != 1 || acked[0].(*ProbeAcked).Mode != ModeFallback || acked[0].(*ProbeAcked).RTTNs != 900*ms {
		t.Fatalf("probe_acked: %v, want one, mode fallback, rtt 900 ms", acked)
	}
	n.TimerFired(token(timerProbeDeadline, seq), s)
	if st, _, _ := n.View("b"); st != Alive {
		t.Errorf("b is %v after an in-time fallback ack, want alive", st)
	}

	late, seq := fallbackNode(t, true)
	late.TimerFired(token(timerProbeTimeout, seq), 500*ms)
	late.TimerFired(token(timerProbeDeadline, seq), s)
	late.ReceiveStream("b", &Message{Kind: Ack, From: "b", Seq: seq}, s+ms)
	if st, _, _ := late.View("b"); st != Suspect {
		t.Errorf("b is %v after a late fallback ack, want suspect", st)
	}
}

func TestFallbackProbe_ConfigKey(t *testing.T) {
	c, errs := ParseConfig(map[string]any{"fallback_probe": true})
	if len(errs) != 0 || !c.FallbackProbe {
		t.Errorf("fallback_probe = true: %+v %v", c.FallbackProbe, errs)
	}
	if c, _ := ParseConfig(map[string]any{}); c.FallbackProbe {
		t.Error("fallback_probe defaults to true, want false")
	}
	_, errs = ParseConfig(map[string]any{"fallback_probe": "yes"})
	if len(errs) != 1 || errs[0].Field != "kind_config.fallback_probe" {
		t.Errorf("fallback_probe = \"yes\": %v, want one error naming the field", errs)
	}
}
