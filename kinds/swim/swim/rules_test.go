package swim

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
)

// gossipTo delivers updates to n piggybacked on an ack that matches no
// probe, and returns the effects.
func gossipTo(n *Node, from string, now int64, ups ...Update) []Effect {
	return n.Receive(from, &Message{Kind: Ack, From: from, Seq: 1 << 50, Updates: ups}, now)
}

func transitionsIn(effects []Effect) []*StateTransition {
	var out []*StateTransition
	for _, e := range effects {
		if e.Kind == EffectEvent {
			if st, ok := e.Event.(*StateTransition); ok {
				out = append(out, st)
			}
		}
	}
	return out
}

func upd(member string, st State, inc uint64) Update {
	u := Update{Member: member, State: st, Incarnation: inc}
	if st != Alive {
		u.From = "c"
	}
	return u
}

// TestIncarnationRules is the merge table: (current view, update) →
// resulting view and the transition reason, for a member other than self.
func TestIncarnationRules(t *testing.T) {
	cases := []struct {
		before []Update // applied first to reach the starting view
		update Update
		want   string // resulting view
		reason string // "" = no transition
	}{
		{nil, upd("b", Alive, 0), "alive@0", ""},
		{nil, upd("b", Alive, 1), "alive@1", ReasonGossip},
		{[]Update{upd("b", Alive, 2)}, upd("b", Alive, 1), "alive@2", ""},
		{nil, upd("b", Suspect, 0), "suspect@0", ReasonGossip},
		{[]Update{upd("b", Alive, 2)}, upd("b", Suspect, 1), "alive@2", ""},
		{[]Update{upd("b", Suspect, 0)}, upd("b", Alive, 0), "suspect@0", ""},
		{[]Update{upd("b", Suspect, 0)}, upd("b", Alive, 1), "alive@1", ReasonRefuted},
		{[]Update{upd("b", Suspect, 0)}, upd("b", Suspect, 1), "suspect@1", ReasonGossip},
		{[]Update{upd("b", Suspect, 0)}, upd("b", Dead, 0), "dead@0", ReasonGossip},
		{nil, upd("b", Dead, 0), "dead@0", ReasonGossip},
		{[]Update{upd("b", Dead, 0)}, upd("b", Alive, 0), "dead@0", ""},
		{[]Update{upd("b", Dead, 0)}, upd("b", Suspect, 0), "dead@0", ""},
		{[]Update{upd("b", Dead, 0)}, upd("b", Alive, 1), "alive@1", ReasonRefuted},
		{[]Update{upd("b", Dead, 0)}, upd("b", Suspect, 1), "suspect@1", ReasonGossip},
		{[]Update{upd("b", Dead, 0)}, upd("b", Dead, 5), "dead@5", ReasonGossip},
		{[]Update{upd("b", Dead, 5)}, upd("b", Alive, 2), "dead@5", ""},
		{[]Update{upd("b", Dead, 5)}, upd("b", Alive, 5), "dead@5", ""},
		{[]Update{upd("b", Dead, 5)}, upd("b", Alive, 6), "alive@6", ReasonRefuted},
		{nil, upd("zz", Dead, 3), "dead@3", ReasonGossip},
		{nil, upd("zz", Alive, 0), "alive@0", ReasonGossip},
	}
	for i, c := range cases {
		t.Run(fmt.Sprintf("%d_%s@%d", i, c.update.State, c.update.Incarnation), func(t *testing.T) {
			n := New("a", DefaultConfig(), Member, abc, &testRand{1})
			n.Tick(0)
			gossipTo(n, "c", 1, c.before...)
			sts := transitionsIn(gossipTo(n, "c", 2, c.update))
			st, inc, _ := n.View(c.update.Member)
			if got := fmt.Sprintf("%s@%d", st, inc); got != c.want {
				t.Fatalf("view %s, want %s", got, c.want)
			}
			switch {
			case c.reason == "" && len(sts) != 0:
				t.Fatalf("unexpected transition %+v", *sts[0])
			case c.reason != "" && (len(sts) != 1 || sts[0].Reason != c.reason):
				t.Fatalf("transitions %v, want one with reason %s", sts, c.reason)
			}
		})
	}
}

// TestIncarnationRules_Self: accusations at or above the node's own
// incarnation are refuted with accused+1; stale ones are not.
func TestIncarnationRules_Self(t *testing.T) {
	cases := []struct {
		start  uint64 // the node's incarnation before
		update Update
		want   uint64
		cause  string
	}{
		{0, upd("a", Suspect, 0), 1, CauseRefuteSuspect},
		{0, upd("a", Dead, 4), 5, CauseRefuteDead},
		{0, upd("a", Alive, 3), 4, CauseRefuteAlive},
		{0, upd("a", Alive, 0), 0, ""},
		{3, upd("a", Suspect, 3), 4, CauseRefuteSuspect},
		{3, upd("a", Suspect, 2), 3, ""},
		{3, upd("a", Dead, 1), 3, ""},
		{3, upd("a", Alive, 3), 3, ""},
	}
	for i, c := range cases {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			n := New("a", DefaultConfig(), Member, abc, &testRand{1})
			n.Tick(0)
			if c.start > 0 {
				gossipTo(n, "c", 1, upd("a", Suspect, c.start-1))
			}
			if n.Incarnation() != c.start {
				t.Fatalf("setup: incarnation %d", n.Incarnation())
			}
			effects := gossipTo(n, "c", 2, c.update)
			if n.Incarnation() != c.want {
				t.Fatalf("incarnation %d, want %d", n.Incarnation(), c.want)
			}
			var bump *SelfIncarnationBump
			for _, e := range effects {
				if b, ok := e.Event.(*SelfIncarnationBump); ok {
					bump = b
				}
			}
			if c.cause == "" {
				if bump != nil {
					t.Fatalf("unexpected bump %+v", *bump)
				}
				return
			}
			if bump == nil || bump.Old != c.start || bump.New != c.want || bump.Cause != c.cause {
				t.Fatalf("bump %+v, want %d -> %d %s", bump, c.start, c.want, c.cause)
			}
			sts := transitionsIn(effects)
			if len(sts) != 1 || sts[0].Subject != "a" || sts[0].From != Alive || sts[0].To != Alive || sts[0].Incarnation != c.want || sts[0].Reason != ReasonRefuted {
				t.Fatalf("self transition %v", sts)
			}
			if st, _, _ := n.View("a"); st != Alive {
				t.Fatal("a node never holds itself non-alive")
			}
		})
	}
}

// Beyond memberlist: one forged update at the top of the incarnation
// range must not kill a member for the rest of the run. A dead (or
// suspect) at 2^64−1 could never be refuted, nor one at 2^64−2 (its
// refutation would be at 2^64−1): all are refused and counted, about
// others and about this node, and the views do not move. An alive at
// 2^64−2 is still taken. (Before: a dead at 2^64−1 about b stood for
// ever, and a's refutation of a suspect at 2^64−2 went to 2^64−1.)
func TestIncarnation_UnrefutableUpdatesRefused(t *testing.T) {
	n := New("a", DefaultConfig(), Member, abc, &testRand{1})
	n.Tick(0)
	refused := []Update{
		upd("b", Dead, math.MaxUint64), upd("b", Suspect, math.MaxUint64), upd("b", Alive, math.MaxUint64),
		upd("b", Dead, math.MaxUint64-1), upd("b", Suspect, math.MaxUint64-1),
		upd("a", Dead, math.MaxUint64), upd("a", Suspect, math.MaxUint64-1),
	}
	for i, u := range refused {
		if sts := transitionsIn(gossipTo(n, "c", int64(i+1), u)); len(sts) != 0 {
			t.Fatalf("%v: transitions %v", u, sts)
		}
	}
	if got := fmt.Sprint(n.View("b")); got != fmt.Sprint(Alive, uint64(0), true) {
		t.Fatalf("b = %s, want alive at 0", got)
	}
	if n.Incarnation() != 0 {
		t.Fatalf("a's incarnation moved to %d", n.Incarnation())
	}
	if n.counters.RefusedMaxIncarnation != uint64(len(refused)) {
		t.Fatalf("refused_max_incarnation = %d, want %d", n.counters.RefusedMaxIncarnation, len(refused))
	}
	if !strings.Contains(string(n.Snapshot()), fmt.Sprintf(`"refused_max_incarnation":%d`, len(refused))) {
		t.Fatalf("the snapshot does not count the refusals: %s", n.Snapshot())
	}
	gossipTo(n, "c", 100, upd("b", Alive, math.MaxUint64-1))
	if got := fmt.Sprint(n.View("b")); got != fmt.Sprint(Alive, uint64(math.MaxUint64-1), true) {
		t.Fatalf("b = %s after an alive at 2^64-2", got)
	}
}

// The member table stops at max_members: news of one more member is
// refused and counted (a flood of pings carrying made-up members grew a
// node by half a gigabyte before), members already known still change,
// and a snapshot of a node that never met the bound has no such counter.
func TestMaxMembers_RefusesNewsOfMoreMembers(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxMembers = 5
	n := New("a", cfg, Member, abc, &testRand{1})
	n.Tick(0)
	if strings.Contains(string(n.Snapshot()), "refused_members") {
		t.Fatalf("a snapshot with nothing refused names the counter: %s", n.Snapshot())
	}
	for i := range 10 {
		gossipTo(n, "c", int64(i+1), upd(fmt.Sprintf("fake%d", i), Alive, 0))
	}
	if got := len(n.members); got != 5 {
		t.Fatalf("%d members, want the bound 5", got)
	}
	if n.counters.RefusedMembers != 8 {
		t.Fatalf("refused_members = %d, want 8", n.counters.RefusedMembers)
	}
	if sts := transitionsIn(gossipTo(n, "c", 20, upd("b", Suspect, 0))); len(sts) != 1 {
		t.Fatalf("a known member's suspicion was not taken: %v", sts)
	}
	if errs := cfg.Validate([]string{"a", "b", "c", "d", "e", "f"}); !strings.Contains(fmt.Sprint(errs), "max_members") {
		t.Fatalf("six peers under max_members 5 validated: %v", errs)
	}
}

// Beyond memberlist (al8n/memberlist #197): higher failure evidence
// advances the stored incarnation, so a delayed lower-incarnation alive
// never resurrects a dead member.
func TestStaleAliveNeverResurrectsDead_al8n197(t *testing.T) {
	n := New("a", DefaultConfig(), Member, abc, &testRand{1})
	n.Tick(0)
	gossipTo(n, "c", 1, upd("b", Alive, 1), upd("b", Dead, 1), upd("b", Dead, 10))
	for _, inc := range []uint64{0, 1, 2, 9, 10} {
		if sts := transitionsIn(gossipTo(n, "c", 2, upd("b", Alive, inc))); len(sts) != 0 {
			t.Fatalf("alive@%d changed the view: %+v", inc, *sts[0])
		}
		if st, got, _ := n.View("b"); st != Dead || got != 10 {
			t.Fatalf("alive@%d: b is %s@%d", inc, st, got)
		}
	}
	gossipTo(n, "c", 3, upd("b", Alive, 11))
	if st, _, _ := n.View("b"); st != Alive {
		t.Fatal("a newer alive must bring b back")
	}
}

// A stale alive about a member held dead re-queues the accusation once it
// has stopped circulating (memberlist #311 / PR #345), and the re-queued
// accusation goes out on the next message.
func TestStaleAliveReassertsAccusation(t *testing.T) {
	n := New("a", DefaultConfig(), Member, abc, &testRand{1})
	n.Tick(0)
	gossipTo(n, "c", 1, upd("b", Dead, 5))
	// Drain the queue by sending.
	for i := range 20 {
		n.Receive("c", &Message{Kind: Ping, From: "c", Seq: uint64(i), Target: "a"}, 2)
	}
	if d, _ := n.QueueDepth(); d != 0 {
		t.Fatalf("queue not drained: %d", d)
	}
	effects := gossipTo(n, "c", 3, upd("b", Alive, 0))
	if d, _ := n.QueueDepth(); d != 1 {
		t.Fatalf("accusation not re-queued: depth %d", d)
	}
	_ = effects
	out := n.Receive("c", &Message{Kind: Ping, From: "c", Seq: 99, Target: "a"}, 4)
	for _, e := range out {
		if e.Kind == EffectSend {
			if len(e.Msg.Updates) != 1 || !reflect.DeepEqual(e.Msg.Updates[0], upd("b", Dead, 5)) {
				t.Fatalf("ack carries %+v", e.Msg.Updates)
			}
			return
		}
	}
	t.Fatal("no ack")
}

// Beyond memberlist (#311): a node declared dead while it was down, whose
// death notices have long stopped circulating, restarts and still learns
// of the accusation and refutes it — through the join response when it
// rejoins, or through the buddy system when it restarts as a member.
func TestRestartAfterMissedAccusation_Refutes_memberlist311(t *testing.T) {
	for _, st := range []Start{Joining, Member} {
		t.Run(fmt.Sprint(map[Start]string{Joining: "joining", Member: "member"}[st]), func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Seeds = []string{"a"}
			names := []string{"a", "b", "c", "d"}
			c := newCluster(t, names, cfg, nil)
			c.run(3 * s)
			c.down["d"] = true
			if !c.runUntil(40*s, func() bool { return allDead(c, names[:3], []string{"d"}) }) {
				t.Fatalf("d not declared dead:\n%s", c.dumpViews())
			}
			// Long enough that no queue still carries the death.
			c.run(c.now + 60*s)
			for _, id := range names[:3] {
				if d, _ := c.nodes[id].QueueDepth(); d != 0 {
					t.Fatalf("%s still gossips (%d queued)", id, d)
				}
			}
			c.restart("d", cfg, st)
			if !c.runUntil(c.now+10*s, func() bool { return c.allAlive(names...) && c.consistent(names...) }) {
				t.Fatalf("d never refuted its death:\n%s", c.dumpViews())
			}
			bumps := c.events("d", "self_incarnation_bump")
			if len(bumps) == 0 || bumps[0].ev.(*SelfIncarnationBump).Cause != CauseRefuteDead {
				t.Fatalf("d's bumps: %v", bumps)
			}
		})
	}
}

// Two halves of a healed partition that declared each other dead find
// each other again (the reconnect ping carries the death notice).
func TestPartitionHeal_Reconverges(t *testing.T) {
	names := []string{"a", "b", "c", "d"}
	c := newCluster(t, names, DefaultConfig(), nil)
	c.run(3 * s)
	for _, x := range []string{"a", "b"} {
		for _, y := range []string{"c", "d"} {
			c.partition(x, y, true)
		}
	}
	if !c.runUntil(60*s, func() bool {
		return allDead(c, []string{"a", "b"}, []string{"c", "d"}) && allDead(c, []string{"c", "d"}, []string{"a", "b"})
	}) {
		t.Fatalf("halves did not declare each other dead:\n%s", c.dumpViews())
	}
	c.cut = map[[2]string]bool{}
	if !c.runUntil(c.now+20*s, func() bool { return c.allAlive(names...) && c.consistent(names...) }) {
		t.Fatalf("no reconvergence after heal:\n%s", c.dumpViews())
	}
}
