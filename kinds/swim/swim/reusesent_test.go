package swim

import (
	"bytes"
	"fmt"
	"testing"
)

// TestReuseSentUpdates_SameMessages: a cluster under lossy, slow links
// (many updates a message, and calls that send several messages with
// different updates: a ping and its relays, join requests beside a
// probe) sends the same bytes and ends in the same state whether its
// nodes reuse their sent updates' array (as the simulator's swimhost
// sets) or allocate one per message, in either gossip mode. The pump
// encodes a call's sends before its next call, which is what
// ReuseSentUpdates asks of a caller.
func TestReuseSentUpdates_SameMessages(t *testing.T) {
	for _, mode := range []GossipMode{Bounded, Legacy} {
		t.Run(mode.String(), func(t *testing.T) { testReuseSent(t, mode) })
	}
}

func testReuseSent(t *testing.T, mode GossipMode) {
	run := func(reuse bool) (trace, sent []byte, calls int) {
		cfg := DefaultConfig()
		cfg.Gossip = mode
		c := newCluster(t, []string{"orch", "fra", "sgp", "syd"}, cfg, nil)
		for _, n := range c.nodes {
			n.ReuseSentUpdates(reuse)
		}
		c.latency = 120 * ms
		c.nsPerB = 80_000
		c.lossPPM = 50_000
		var last struct {
			from string
			now  int64
		}
		c.onSend = func(from, to string, m *Message, _ int) {
			b, err := Encode(m)
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Updates) > 0 && last.from == from && last.now == c.now {
				calls++ // a second message with updates in one call
			}
			if len(m.Updates) > 0 {
				last.from, last.now = from, c.now
			}
			sent = append(append(append(sent, from+">"+to+" "...), b...), '\n')
		}
		c.run(240 * s)
		return c.trace(), sent, calls
	}
	trace, sent, calls := run(false)
	rtrace, rsent, _ := run(true)
	if calls == 0 {
		t.Fatal("no call sent two messages with updates: the premise does not hold")
	}
	if !bytes.Equal(sent, rsent) {
		t.Fatal("reusing the sent updates' array changed the messages sent")
	}
	if !bytes.Equal(trace, rtrace) {
		t.Fatal("reusing the sent updates' array changed the run")
	}
}

// TestReuseSentUpdates_OneCallSeveralMessages: a probe timeout sends a
// ping_req to each of three intermediaries in one call, each with the
// part of a bounded queue its small budget holds, so the three carry
// different updates. With the sent array reused they must still be
// three messages of their own, encoded after the call returns.
func TestReuseSentUpdates_OneCallSeveralMessages(t *testing.T) {
	ids := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	run := func(reuse bool) (sends [][]string) {
		cfg := DefaultConfig()
		cfg.MaxMessageBytes = 80 // room for about three updates
		n := New("a", cfg, Member, ids, &testRand{3})
		n.ReuseSentUpdates(reuse)
		call := func(effs []Effect) (timers []Effect) {
			var msgs []string
			for _, e := range effs {
				switch e.Kind {
				case EffectSend:
					b, err := Encode(e.Msg)
					if err != nil {
						t.Fatal(err)
					}
					msgs = append(msgs, e.To+" "+string(b))
				case EffectTimer:
					timers = append(timers, e)
				}
			}
			sends = append(sends, msgs)
			return timers
		}
		timers := call(n.Tick(0))
		var news []Update
		for i, id := range ids[1:] {
			news = append(news, Update{Member: id, State: Alive, Incarnation: uint64(i + 1)})
		}
		timers = append(timers, call(n.Receive("b", &Message{Kind: Ack, From: "b", Seq: 999, Updates: news}, 1))...)
		for len(timers) > 0 {
			tm := timers[0]
			timers = append(timers[1:], call(n.TimerFired(tm.Token, tm.At))...)
		}
		return sends
	}
	plain, reused := run(false), run(true)
	several := false
	for _, msgs := range plain {
		several = several || len(msgs) >= 3 && msgs[0][2:] != msgs[1][2:]
	}
	if !several {
		t.Fatalf("no call sent several different messages: the premise does not hold: %q", plain)
	}
	if fmt.Sprint(plain) != fmt.Sprint(reused) {
		t.Fatalf("reusing the sent array changed a call's messages:\n plain  %q\n reused %q", plain, reused)
	}
}
