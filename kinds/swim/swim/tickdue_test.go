package swim

import (
	"fmt"
	"math"
	"reflect"
	"testing"
)

// dutyNames name the duties in failure messages.
var dutyNames = [numDuties]string{
	dutyProbeTimeout:  "probe timeout",
	dutyProbeDeadline: "probe deadline",
	dutyRelays:        "relay deadline",
	dutySuspicions:    "suspicion expiry",
	dutyJoin:          "join request",
	dutyPushPull:      "push/pull",
	dutyProbe:         "next probe",
}

// TestTickDue_NoTickBeforeItDoesAnything: the simulator skips every Tick
// before TickDue (hosts.Dozer), so a TickDue later than Tick's next work
// would lose that work without a trace. In lossy clusters whose nodes
// pause (losing their timers, so Tick must conclude what the timers
// would have), rejoin and push/pull, under both queues and both
// disseminations, after every call a node answers, a Tick at
// TickDue()−1 emits nothing and changes nothing. Every duty fires when
// a deadline has passed (now ≥ its time), so a Tick that does nothing
// then does nothing at any earlier time either.
//
// The states must also be ones that would catch an omission: for every
// duty, a TickDue that left it out (the minimum over the others) lets a
// Tick that does something be skipped on some sampled state. So the
// test fails when TickDue forgets the probe timeout, the push/pull, a
// suspicion's expiry or any other of Tick's deadlines.
func TestTickDue_NoTickBeforeItDoesAnything(t *testing.T) {
	names := []string{"a", "b", "c", "d", "e"}
	bounded := DefaultConfig()
	bounded.PushPullIntervalNs = 1700 * ms // off the probe's beat
	legacy := bounded
	legacy.Gossip = Legacy
	legacy.Dissemination = DisseminateMemberlist
	noNack := bounded
	noNack.NoNack = true
	noNack.SuspicionMult = 2
	joining := bounded
	joining.Seeds = []string{"a"}
	joinAfterA := func(id string) Start {
		if id == "a" {
			return Member
		}
		return Joining
	}
	setups := []struct {
		name  string
		cfg   Config
		start func(string) Start
	}{
		{"bounded", bounded, nil},
		{"legacy, memberlist", legacy, nil},
		{"no nacks, short suspicion", noNack, nil},
		{"joining through a", joining, joinAfterA},
	}
	var caught [numDuties]int
	samples := 0
	for _, su := range setups {
		c := newCluster(t, names, su.cfg, su.start)
		c.keepLog = false
		c.lossPPM = 150_000
		c.timerLossPPM = 100_000
		c.lossRand = testRand{s: 99}
		c.afterCall = func(id string) {
			n, r := c.nodes[id], c.rands[id]
			samples++
			due := n.TickDue()
			if what := tickBefore(n, r, c.now, due); what != "" {
				t.Fatalf("%s: %s at %d: TickDue %d, but a Tick at %d did something: %s",
					su.name, id, c.now, due, due-1, what)
			}
			for d := range numDuties {
				if without := tickDueWithout(n, d); without != due && tickBefore(n, r, c.now, without) != "" {
					caught[d]++
				}
			}
		}
		// The seed away at first: joiners repeat their requests.
		c.down["a"] = true
		c.run(4 * s)
		c.down["a"] = false
		c.run(20 * s)
		// e paused: its ticks, deliveries and timers are lost; it
		// resumes with overdue probes, relays and suspicions.
		c.down["e"] = true
		c.run(35 * s)
		c.down["e"] = false
		c.isolate("d", true)
		c.run(50 * s)
		c.isolate("d", false)
		c.restart("b", su.cfg, Joining)
		c.run(80 * s)
	}
	t.Logf("%d samples; states on which a TickDue without the duty is caught: %v", samples, caught)
	for d := range numDuties {
		if caught[d] == 0 {
			t.Errorf("no sampled state catches a TickDue without the %s: the test does not exercise it", dutyNames[d])
		}
	}
}

// tickBefore ticks a copy of n at due−1, the last instant at which due
// says nothing is due, and says what that Tick did ("" for nothing).
// now is n's last call: due at or before it claims nothing.
func tickBefore(n *Node, r *testRand, now, due int64) string {
	if due == math.MinInt64 || due-1 < now {
		return ""
	}
	ra, rb := *r, *r
	ticked, kept := n.Clone(&ra), n.Clone(&rb)
	if effects := ticked.Tick(due - 1); len(effects) > 0 {
		e := effects[0]
		return fmt.Sprintf("%d effects, the first of kind %d (%T to %q)", len(effects), e.Kind, e.Event, e.To)
	}
	// What a call leaves in the node's buffers means nothing to the next.
	for _, m := range []*Node{ticked, kept} {
		m.out, m.sent, m.scratch = nil, nil, nil
		m.queue.picked, m.queue.rest = nil, nil
	}
	if !reflect.DeepEqual(ticked, kept) {
		return "no effects, but its state changed"
	}
	return ""
}

// tickDueWithout is TickDue as it would be without duty skip.
func tickDueWithout(n *Node, skip duty) int64 {
	if !n.started {
		return math.MinInt64
	}
	next := int64(math.MaxInt64)
	for d := range numDuties {
		if at, ok := n.due(d); ok && d != skip {
			next = min(next, at)
		}
	}
	return next
}
