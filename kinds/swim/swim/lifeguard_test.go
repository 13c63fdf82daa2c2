package swim

import (
	"strings"
	"testing"
)

// TestParseConfig_LifeguardSwitches: every component is on by default;
// lifeguard = false turns all four off; a component's own key overrides
// the shorthand; a value that is not a boolean is an error naming the key.
func TestParseConfig_LifeguardSwitches(t *testing.T) {
	c, errs := ParseConfig(map[string]any{})
	if len(errs) > 0 || !c.Lifeguard() {
		t.Fatalf("default: %+v %v", c, errs)
	}
	c, errs = ParseConfig(map[string]any{"lifeguard": false})
	if len(errs) > 0 || !c.NoAwareness || !c.NoSuspicion || !c.NoNack || !c.NoBuddy {
		t.Fatalf("lifeguard = false: %+v %v", c, errs)
	}
	c, errs = ParseConfig(map[string]any{"lifeguard": false, "lifeguard_nack": true})
	if len(errs) > 0 || !c.NoAwareness || !c.NoSuspicion || c.NoNack || !c.NoBuddy {
		t.Fatalf("lifeguard = false, lifeguard_nack = true: %+v %v", c, errs)
	}
	c, errs = ParseConfig(map[string]any{"lifeguard_suspicion": false})
	if len(errs) > 0 || c.NoAwareness || !c.NoSuspicion || c.NoNack || c.NoBuddy {
		t.Fatalf("lifeguard_suspicion = false: %+v %v", c, errs)
	}
	_, errs = ParseConfig(map[string]any{"lifeguard": "off", "lifeguard_buddy": int64(0), "indirect_checks": "x", "zzz": true})
	var got []string
	for _, e := range errs {
		got = append(got, e.Error())
	}
	want := []string{
		"kind_config.indirect_checks: must be an integer, got a string",
		"kind_config.lifeguard: must be a boolean, got a string",
		"kind_config.lifeguard_buddy: must be a boolean, got an integer",
		"kind_config.zzz: unknown key",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors\n%s\nwant (in key order)\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestLifeguardOff_EachComponent: with a member down, each switch removes
// exactly its component — awareness: the prober's health stays 0;
// suspicion: the first accuser's timeout is the minimum, not the maximum;
// nack: no intermediary sends an indirect_ack; buddy: no message to the
// suspect carries the accusation first.
func TestLifeguardOff_EachComponent(t *testing.T) {
	names := []string{"a", "b", "c", "d", "e", "f"}
	run := func(cfg Config) *cluster {
		c := newCluster(t, names, cfg, nil)
		c.run(2 * s)
		c.down["f"] = true
		c.run(6 * s)
		return c
	}
	nacks := func(c *cluster) int {
		n := 0
		for _, id := range names[:5] {
			for _, r := range c.events(id, "message_sent") {
				if m := r.ev.(*MessageSent); m.Message == IndirectAck {
					n++
				}
			}
		}
		return n
	}
	// deadline is the first suspicion's starting timeout and minimum.
	deadline := func(c *cluster) (int64, int64) {
		for _, id := range names[:5] {
			n := c.nodes[id]
			if idx, ok := n.lookup("f"); ok && n.suspicion(&n.members[idx]) != nil {
				sp := n.suspicion(&n.members[idx])
				if sp.k == 0 && sp.n > 0 {
					t.Fatalf("a confirmation counted with k = 0")
				}
				return sp.max, sp.min
			}
		}
		t.Fatalf("nobody suspects f:\n%s", c.dumpViews())
		return 0, 0
	}
	health := func(c *cluster) int {
		h := 0
		for _, id := range names[:5] {
			h = max(h, c.nodes[id].Health())
		}
		return h
	}

	on := run(DefaultConfig())
	if health(on) == 0 || nacks(on) == 0 {
		t.Fatalf("Lifeguard: health %d, %d nacks", health(on), nacks(on))
	}
	if hi, lo := deadline(on); hi <= lo {
		t.Fatalf("Lifeguard: first suspicion timeout %d, want above the minimum %d", hi, lo)
	}

	cfg := DefaultConfig()
	cfg.NoAwareness = true
	if c := run(cfg); health(c) != 0 {
		t.Errorf("lifeguard_awareness = false: health %d", health(c))
	}
	cfg = DefaultConfig()
	cfg.NoSuspicion = true
	if hi, lo := deadline(run(cfg)); hi != lo {
		t.Errorf("lifeguard_suspicion = false: first timeout %d, want the minimum %d", hi, lo)
	}
	cfg = DefaultConfig()
	cfg.NoNack = true
	if c := run(cfg); nacks(c) != 0 {
		t.Errorf("lifeguard_nack = false: %d nacks, want 0", nacks(c))
	}
	// Buddy: a message to the suspect always carries an update (its
	// accusation) with the buddy system; without it, once the broadcast
	// queue has retired the suspicion, pings to f carry nothing.
	bare := func(c *cluster) (withUpdates, without int) {
		for _, id := range names[:5] {
			for _, r := range c.events(id, "message_sent") {
				if m := r.ev.(*MessageSent); m.Peer == "f" && r.at > 5*s {
					if m.Updates > 0 {
						withUpdates++
					} else {
						without++
					}
				}
			}
		}
		return withUpdates, without
	}
	if _, w := bare(on); w != 0 {
		t.Errorf("Lifeguard: %d messages to the suspect without its accusation", w)
	}
	cfg = DefaultConfig()
	cfg.NoBuddy = true
	if _, w := bare(run(cfg)); w == 0 {
		t.Errorf("lifeguard_buddy = false: every message to the suspect still carried an update")
	}
}
