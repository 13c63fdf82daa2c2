package swim

import (
	"bytes"
	"reflect"
	"slices"
	"testing"
)

var abc = []string{"a", "b", "c"}

func TestMemberStart_InitialViewAndSteadyProbing(t *testing.T) {
	c := newCluster(t, abc, DefaultConfig(), nil)
	c.run(0)
	init := c.transitions("a", "")
	_ = init
	var initial []string
	for _, r := range c.events("a", "state_transition") {
		st := r.ev.(*StateTransition)
		if st.Reason == ReasonInitial {
			initial = append(initial, st.Subject+"="+st.To.String())
		}
	}
	if want := []string{"a=alive", "b=alive", "c=alive"}; !slices.Equal(initial, want) {
		t.Fatalf("initial transitions = %v, want %v", initial, want)
	}
	c.run(30 * s)
	if !c.allAlive(abc...) {
		t.Fatalf("views after 30s:\n%s", c.dumpViews())
	}
	if n := len(c.events("", "probe_timed_out")); n != 0 {
		t.Fatalf("%d probe timeouts in a healthy cluster", n)
	}
	acked := len(c.events("a", "probe_acked"))
	if acked < 28 || acked > 31 {
		t.Fatalf("a acked %d probes in 30s, want about one per second", acked)
	}
	for _, n := range c.nodes {
		if d, _ := n.QueueDepth(); d != 0 {
			t.Fatalf("%s queue depth %d with no failures", n.Self(), d)
		}
	}
}

func TestJoiningStart_ConvergesThroughSeeds(t *testing.T) {
	names := []string{"a", "b", "c", "d", "e"}
	cfg := DefaultConfig()
	cfg.Seeds = []string{"a"}
	c := newCluster(t, names, cfg, func(id string) Start {
		if id == "a" {
			return Member
		}
		return Joining
	})
	// a starts as a member knowing everyone; the others know only a.
	if _, _, ok := c.nodes["b"].View("c"); ok {
		t.Fatal("a joining node knows a non-seed before joining")
	}
	if !c.runUntil(10*s, func() bool { return c.allAlive(names...) && c.consistent(names...) }) {
		t.Fatalf("no convergence within 10s:\n%s", c.dumpViews())
	}
	if len(c.events("b", "message_sent")) == 0 || len(c.events("a", "message_received")) == 0 {
		t.Fatal("no traffic")
	}
	joins := 0
	for _, r := range c.events("b", "state_transition") {
		if r.ev.(*StateTransition).Reason == ReasonJoin {
			joins++
		}
	}
	if joins == 0 {
		t.Fatal("b learnt nothing from the join response")
	}
}

func TestJoiningChain_ConvergesTransitively(t *testing.T) {
	names := []string{"a", "b", "c", "d"}
	c := newCluster(t, names, DefaultConfig(), nil)
	// A chain: b joins a, c joins b, d joins c; nobody is a member at start.
	for i, id := range names {
		cfg := DefaultConfig()
		if i > 0 {
			cfg.Seeds = []string{names[i-1]}
		}
		c.nodes[id] = New(id, cfg, Joining, names, c.rands[id])
	}
	if !c.runUntil(20*s, func() bool { return c.allAlive(names...) && c.consistent(names...) }) {
		t.Fatalf("chain did not converge within 20s:\n%s", c.dumpViews())
	}
}

// A Joining node whose seeds name nobody but itself (the first member of
// a cluster, as orch in the reproduction) is joined from the start: it
// sends no join_request and takes part in push/pull like any member.
func TestJoiningSelfSeed_IsJoinedAndPushPulls(t *testing.T) {
	for _, seeds := range [][]string{{"a"}, nil} {
		names := []string{"a", "b", "c"}
		c := newCluster(t, names, DefaultConfig(), nil)
		for _, id := range names {
			cfg := DefaultConfig()
			cfg.PushPullIntervalNs = 30 * s
			cfg.Seeds = []string{"a"}
			if id == "a" {
				cfg.Seeds = seeds
			}
			c.nodes[id] = New(id, cfg, Joining, names, c.rands[id])
		}
		if !c.nodes["a"].joined {
			t.Fatalf("seeds %v: a is not joined at start", seeds)
		}
		if c.nodes["b"].joined {
			t.Fatal("b, with another seed, is joined before any response")
		}
		c.run(35 * s)
		a := c.nodes["a"].counters
		if a.JoinRequests != 0 {
			t.Fatalf("seeds %v: a sent %d join requests with nobody to ask", seeds, a.JoinRequests)
		}
		if a.PushPulls == 0 {
			t.Fatalf("seeds %v: a never pushed or pulled in 35s with a 30s interval", seeds)
		}
		if !c.allAlive(names...) || !c.consistent(names...) {
			t.Fatalf("seeds %v: views after 35s:\n%s", seeds, c.dumpViews())
		}
	}
}

func TestDeadNodeDetected(t *testing.T) {
	names := []string{"a", "b", "c", "d", "e"}
	c := newCluster(t, names, DefaultConfig(), nil)
	c.run(5 * s)
	c.down["e"] = true
	alive := names[:4]
	ok := c.runUntil(60*s, func() bool {
		for _, o := range alive {
			if st, _, _ := c.nodes[o].View("e"); st != Dead {
				return false
			}
		}
		return true
	})
	if !ok {
		t.Fatalf("e not declared dead by everyone:\n%s", c.dumpViews())
	}
	// Every observer went alive -> suspect -> dead, never back.
	for _, o := range alive {
		var path []string
		for _, st := range c.transitions(o, "e") {
			path = append(path, st.To.String()+"/"+st.Reason)
		}
		if path[0] != "alive/initial" || path[len(path)-1] != "dead/suspicion_timeout" && path[len(path)-1] != "dead/gossip" {
			t.Fatalf("%s's view of e: %v", o, path)
		}
		if slices.Contains(path, "alive/refuted") {
			t.Fatalf("%s saw e come back: %v", o, path)
		}
	}
	if !c.allAlive(alive...) {
		t.Fatalf("a live node was accused:\n%s", c.dumpViews())
	}
}

func TestSuspicionRefuted(t *testing.T) {
	c := newCluster(t, abc, DefaultConfig(), nil)
	c.run(3 * s)
	// Isolate c long enough for a probe of it to fail (one probe
	// interval is enough), but shorter than the suspicion timeout.
	c.isolate("c", true)
	suspected := c.runUntil(10*s, func() bool {
		st, _, _ := c.nodes["a"].View("c")
		st2, _, _ := c.nodes["b"].View("c")
		return st == Suspect || st2 == Suspect
	})
	if !suspected {
		t.Fatalf("c never suspected:\n%s", c.dumpViews())
	}
	c.isolate("c", false)
	if !c.runUntil(c.now+5*s, func() bool { return c.allAlive(abc...) && c.consistent(abc...) }) {
		t.Fatalf("suspicion not refuted:\n%s", c.dumpViews())
	}
	bumps := c.events("c", "self_incarnation_bump")
	if len(bumps) == 0 {
		t.Fatal("c refuted without an incarnation bump")
	}
	b := bumps[0].ev.(*SelfIncarnationBump)
	if b.Old != 0 || b.New != 1 || b.Cause != CauseRefuteSuspect {
		t.Fatalf("bump = %+v", b)
	}
	if got := c.view("a", "c"); got != "alive@1" {
		t.Fatalf("a sees c as %s, want alive@1", got)
	}
	// Somebody saw c go suspect -> alive with reason "refuted".
	refuted := false
	for _, o := range []string{"a", "b"} {
		for _, st := range c.transitions(o, "c") {
			refuted = refuted || (st.From == Suspect && st.To == Alive && st.Reason == ReasonRefuted)
		}
	}
	if !refuted {
		t.Fatal("no suspect -> alive (refuted) transition")
	}
}

// The buddy system: a ping to a member the prober holds suspect carries
// the suspicion, so the suspect hears it from the prober directly.
func TestBuddySystem_PingToSuspectCarriesSuspicion(t *testing.T) {
	cfg := DefaultConfig()
	n := New("a", cfg, Member, abc, &testRand{1})
	n.Tick(0)
	n.Receive("b", &Message{Kind: Ack, From: "b", Seq: 999, Updates: []Update{{Member: "c", State: Suspect, Incarnation: 0, From: "b"}}}, 1)
	// Probe until c is the target.
	for now := int64(1 * s); now < 20*s; now += s {
		for _, e := range n.Tick(now) {
			if e.Kind == EffectSend && e.To == "c" && e.Msg.Kind == Ping {
				if len(e.Msg.Updates) == 0 || !reflect.DeepEqual(e.Msg.Updates[0], Update{Member: "c", State: Suspect, Incarnation: 0, From: "b"}) {
					t.Fatalf("ping to suspect c carries %+v", e.Msg.Updates)
				}
				return
			}
		}
		// Answer whatever probe is in flight so the next one can start.
		n.Receive("b", &Message{Kind: Ack, From: "b", Seq: n.probe.seq}, now+1)
	}
	t.Fatal("c was never probed")
}

func TestBoundedGossip_RespectsByteBudget(t *testing.T) {
	names := ids(40)
	cfg := DefaultConfig()
	cfg.MaxMessageBytes = 200
	c := newCluster(t, names, cfg, nil)
	c.keepLog = false
	c.onSend = func(from, to string, m *Message, size int) {
		if m.Kind != JoinResponse && size > cfg.MaxMessageBytes {
			t.Fatalf("%s -> %s %s is %d bytes, budget %d", from, to, m.Kind, size, cfg.MaxMessageBytes)
		}
	}
	c.run(2 * s)
	// Kill a quarter of the cluster at once: lots of news to spread.
	for _, id := range names[:10] {
		c.down[id] = true
	}
	if !c.runUntil(120*s, func() bool { return c.consistent(names[10:]...) && allDead(c, names[10:], names[:10]) }) {
		t.Fatalf("no convergence on the deaths under a 200-byte budget:\n%s", c.dumpViews())
	}
	if c.maxBytes[Ping] > 200 || c.maxBytes[Ping] < 150 {
		t.Fatalf("largest ping %d bytes: budget not used or not respected", c.maxBytes[Ping])
	}
}

func allDead(c *cluster, observers, subjects []string) bool {
	for _, o := range observers {
		for _, s := range subjects {
			if st, _, _ := c.nodes[o].View(s); st != Dead {
				return false
			}
		}
	}
	return true
}

func TestLegacyGossip_QueueNeverShrinks(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Gossip = Legacy
	names := []string{"a", "b", "c", "d"}
	c := newCluster(t, names, cfg, nil)
	c.keepLog = false
	c.run(2 * s)
	prev := 0
	depths := []int{}
	for round := range 6 {
		// Flap d: isolate it until suspected, then heal so it refutes.
		c.isolate("d", true)
		c.run(c.now + 2500*ms)
		c.isolate("d", false)
		c.run(c.now + 3*s)
		d, _ := c.nodes["a"].QueueDepth()
		if d < prev {
			t.Fatalf("round %d: legacy queue shrank from %d to %d", round, prev, d)
		}
		prev = d
		depths = append(depths, d)
	}
	if depths[len(depths)-1] <= depths[0] {
		t.Fatalf("legacy queue did not grow: %v", depths)
	}
	// Every message carries the whole queue (it is far below the cap).
	sent := 0
	c.onSend = func(from, to string, m *Message, size int) {
		if from == "a" {
			d, _ := c.nodes["a"].QueueDepth()
			if len(m.Updates) < d {
				t.Fatalf("legacy message carried %d of %d queued updates", len(m.Updates), d)
			}
			sent++
		}
	}
	c.run(c.now + 2*s)
	if sent == 0 {
		t.Fatal("a sent nothing")
	}
}

func TestLegacyGossip_CappedAtOneDatagram(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Gossip = Legacy
	n := New("a", cfg, Member, abc, &testRand{1})
	n.Tick(0)
	// 7000 refutations by b: every one is kept.
	for i := range uint64(7000) {
		n.Receive("b", &Message{Kind: Ack, From: "b", Seq: 12345, Updates: []Update{{Member: "b", State: Alive, Incarnation: i + 1}}}, 1)
	}
	if d, _ := n.QueueDepth(); d != 7000 {
		t.Fatalf("legacy depth %d, want 7000", d)
	}
	for _, e := range n.Tick(2 * s) {
		if e.Kind == EffectSend {
			b, err := Encode(e.Msg)
			if err != nil {
				t.Fatal(err)
			}
			if len(b) > MaxDatagramBytes || len(b) < MaxDatagramBytes-minUpdateSize-8 {
				t.Fatalf("legacy message %d bytes, want just under %d", len(b), MaxDatagramBytes)
			}
			return
		}
	}
	t.Fatal("no send")
}

// With no update ever queued, the gossip mode must make no difference at
// all: same effects, same events, same bytes.
func TestLegacyAndBounded_IdenticalWithoutUpdates(t *testing.T) {
	run := func(mode GossipMode) []byte {
		cfg := DefaultConfig()
		cfg.Gossip = mode
		c := newCluster(t, []string{"a", "b", "c", "d", "e"}, cfg, nil)
		c.run(30 * s)
		for _, id := range c.ids {
			if d, _ := c.nodes[id].QueueDepth(); d != 0 {
				t.Fatalf("%s: queue depth %d, the premise does not hold", id, d)
			}
		}
		return c.trace()
	}
	bounded, legacy := run(Bounded), run(Legacy)
	if len(bounded) < 10000 {
		t.Fatalf("suspiciously short trace: %d bytes", len(bounded))
	}
	if !bytes.Equal(bounded, legacy) {
		t.Fatal("legacy and bounded differ with no updates queued")
	}
}

func TestClone_Independent(t *testing.T) {
	c := newCluster(t, abc, DefaultConfig(), nil)
	c.run(3 * s)
	c.isolate("c", true)
	c.runUntil(10*s, func() bool { st, _, _ := c.nodes["a"].View("c"); return st == Suspect })
	orig := c.nodes["a"]
	r := *c.rands["a"]
	cl := orig.Clone(&r)
	before := orig.Snapshot()
	if !bytes.Equal(before, cl.Snapshot()) {
		t.Fatal("clone snapshot differs")
	}
	// Drive the clone hard; the original must not change.
	for i := range int64(50) {
		cl.Tick(c.now + i*s)
		cl.Receive("b", &Message{Kind: Ping, From: "b", Seq: 1, Target: "a", Updates: []Update{{Member: "a", State: Suspect, Incarnation: uint64(i), From: "b"}, {Member: "zz", State: Dead, Incarnation: 4, From: "b"}}}, c.now+i*s)
	}
	if !bytes.Equal(before, orig.Snapshot()) {
		t.Fatal("driving the clone changed the original")
	}
	// And the original and a fresh clone replay identically.
	r1, r2 := *c.rands["a"], *c.rands["a"]
	x, y := orig.Clone(&r1), orig.Clone(&r2)
	for i := range int64(20) {
		ex := traceOf(x.Tick(c.now + i*s))
		ey := traceOf(y.Tick(c.now + i*s))
		if ex != ey {
			t.Fatalf("clones diverged at step %d:\n%s\n%s", i, ex, ey)
		}
	}
}

func traceOf(effects []Effect) string {
	out := ""
	for _, e := range effects {
		switch e.Kind {
		case EffectEvent:
			out += string(e.Event.AppendJSON(nil)) + "\n"
		case EffectSend:
			b, _ := Encode(e.Msg)
			out += e.To + " " + string(b) + "\n"
		case EffectTimer:
			out += "timer\n"
		}
	}
	return out
}

// Under the same lossy, slow links, legacy gossip keeps every update, so
// messages grow and serialise for longer, which loses more probes and makes
// more refutations: the feedback of spec §0. Nothing in the library
// special-cases it; this only checks that the mechanism is there. The
// simulator's reproduction scenario is the real test.
func TestLegacyGossip_AmplifiesUnderConstrainedBandwidth(t *testing.T) {
	type result struct{ refutes, maxPing int }
	run := func(mode GossipMode) result {
		cfg := DefaultConfig()
		cfg.Gossip = mode
		c := newCluster(t, []string{"orch", "fra", "sgp"}, cfg, nil)
		c.latency = 120 * ms
		c.nsPerB = 80_000 // 100 kbit/s
		c.lossPPM = 50_000
		c.run(420 * s)
		return result{len(c.events("", "self_incarnation_bump")), c.maxBytes[Ping]}
	}
	bounded, legacy := run(Bounded), run(Legacy)
	t.Logf("bounded %+v, legacy %+v", bounded, legacy)
	if bounded.maxPing > DefaultConfig().MaxMessageBytes {
		t.Fatalf("bounded ping of %d bytes", bounded.maxPing)
	}
	if legacy.maxPing <= DefaultConfig().MaxMessageBytes || legacy.refutes < 2*bounded.refutes {
		t.Fatalf("legacy did not amplify: bounded %+v, legacy %+v", bounded, legacy)
	}
}

// TestPushPull_RepairsWhatGossipLost: along a chain of six joins, a join's
// alive update can retire after its few retransmissions before it reaches
// every member. Without push/pull the chain never converges; with
// memberlist's 30 s default it converges within two intervals.
func TestPushPull_RepairsWhatGossipLost(t *testing.T) {
	names := []string{"a", "b", "c", "d", "e", "f"}
	build := func(pushPull int64) *cluster {
		c := newCluster(t, names, DefaultConfig(), nil)
		for i, id := range names {
			cfg := DefaultConfig()
			cfg.PushPullIntervalNs = pushPull
			if i > 0 {
				cfg.Seeds = []string{names[i-1]}
			}
			c.nodes[id] = New(id, cfg, Joining, names, c.rands[id])
		}
		return c
	}
	converged := func(c *cluster) func() bool {
		return func() bool { return c.allAlive(names...) && c.consistent(names...) }
	}
	if c := build(0); c.runUntil(120*s, converged(c)) {
		t.Fatal("the chain converged without push/pull: the test no longer shows what push/pull repairs")
	}
	c := build(30 * s)
	if !c.runUntil(70*s, converged(c)) {
		t.Fatalf("chain did not converge within 70s with push/pull:\n%s", c.dumpViews())
	}
	pulls := uint64(0)
	for _, id := range names {
		pulls += c.nodes[id].counters.PushPulls
	}
	if pulls == 0 {
		t.Fatal("converged without a single push/pull")
	}
}
