package swim

import (
	"reflect"
	"testing"
)

func TestParseConfig_DisseminationAndInitialIncarnation(t *testing.T) {
	c, errs := ParseConfig(map[string]any{"dissemination": "memberlist", "initial_incarnation": int64(4294967290)})
	if len(errs) != 0 || c.Dissemination != DisseminateMemberlist || c.InitialIncarnation != 4294967290 {
		t.Fatalf("%+v %v", c, errs)
	}
	if c, _ := ParseConfig(map[string]any{"dissemination": "swim"}); c.Dissemination != DisseminateSWIM {
		t.Fatal("swim")
	}
	_, errs = ParseConfig(map[string]any{"dissemination": "gossip", "initial_incarnation": int64(-1)})
	var got []string
	for _, e := range errs {
		got = append(got, e.Error())
	}
	want := []string{
		`kind_config.dissemination: must be "swim" or "memberlist", got "gossip"`,
		"kind_config.initial_incarnation: must be in [0, 9223372036854775807], got -1",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q", got)
	}
	if _, errs := ParseConfig(map[string]any{"dissemination": true}); len(errs) != 1 || errs[0].Field != "kind_config.dissemination" {
		t.Fatalf("%v", errs)
	}
}

func TestInitialIncarnation_StaleAccusationReassertsIt(t *testing.T) {
	cfg := DefaultConfig()
	cfg.InitialIncarnation = 1 << 32
	n := New("a", cfg, Member, abc, &testRand{1})
	n.Tick(0)
	if n.Incarnation() != 1<<32 {
		t.Fatal(n.Incarnation())
	}
	// An accusation at the incarnation the others assumed (0) is stale:
	// the node spreads its own alive instead of refuting.
	gossipTo(n, "c", 1, upd("a", Suspect, 0))
	if n.Incarnation() != 1<<32 {
		t.Fatal("refuted a stale accusation")
	}
	if d, _ := n.QueueDepth(); d != 1 {
		t.Fatalf("alive not queued: %d", d)
	}
	gossipTo(n, "c", 2, upd("a", Suspect, 1<<32))
	if n.Incarnation() != 1<<32+1 {
		t.Fatalf("refutation above 2^32: %d", n.Incarnation())
	}
}

// Under dissemination = memberlist a stale alive does not re-queue the
// accusation, a stale accusation of this node is ignored, and an
// accusation about an unknown member is dropped (memberlist #311, PR #345).
func TestMemberlistDissemination_DropsWhatMemberlistDrops(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Dissemination = DisseminateMemberlist
	n := New("a", cfg, Member, abc, &testRand{1})
	n.Tick(0)
	gossipTo(n, "c", 1, upd("b", Dead, 5))
	for i := range 20 {
		n.Receive("c", &Message{Kind: Ping, From: "c", Seq: uint64(i), Target: "a"}, 2)
	}
	gossipTo(n, "c", 3, upd("b", Alive, 0))
	if d, _ := n.QueueDepth(); d != 0 {
		t.Fatalf("accusation re-queued: depth %d", d)
	}
	// No buddy system on an ack to the dead member.
	out := n.Receive("b", &Message{Kind: Ping, From: "b", Seq: 7, Target: "a"}, 4)
	for _, e := range out {
		if e.Kind == EffectSend && len(e.Msg.Updates) != 0 {
			t.Fatalf("ack to b carries %+v", e.Msg.Updates)
		}
	}
	gossipTo(n, "c", 5, upd("zz", Dead, 1))
	if st, _, _ := n.View("zz"); st != stateNone {
		t.Fatalf("unknown member accused: %s", st)
	}
	gossipTo(n, "c", 6, upd("a", Alive, 3))
	inc := n.Incarnation()
	for i := range 20 {
		n.Receive("c", &Message{Kind: Ping, From: "c", Seq: uint64(100 + i), Target: "a"}, 7)
	}
	gossipTo(n, "c", 8, upd("a", Suspect, 0))
	if d, _ := n.QueueDepth(); d != 0 || n.Incarnation() != inc {
		t.Fatalf("stale accusation handled: depth %d inc %d", d, n.Incarnation())
	}
}

// A restart nobody tells of its death: with the default dissemination the
// buddy system on the first ack brings the refutation; under memberlist's
// the restarted member stays dead in the others' views.
func TestMemberlistDissemination_RestartNeverHearsItsDeath(t *testing.T) {
	for _, mode := range []Dissemination{DisseminateSWIM, DisseminateMemberlist} {
		t.Run(mode.String(), func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Dissemination = mode
			cfg.PushPullIntervalNs = 0
			names := []string{"a", "b", "c", "d"}
			c := newCluster(t, names, cfg, nil)
			c.run(3 * s)
			c.down["d"] = true
			if !c.runUntil(40*s, func() bool { return allDead(c, names[:3], []string{"d"}) }) {
				t.Fatalf("d not declared dead:\n%s", c.dumpViews())
			}
			c.run(c.now + 60*s)
			c.restart("d", cfg, Member)
			back := c.runUntil(c.now+30*s, func() bool { return c.allAlive(names...) })
			if back != (mode == DisseminateSWIM) {
				t.Fatalf("back alive = %v:\n%s", back, c.dumpViews())
			}
		})
	}
}
