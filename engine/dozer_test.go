package engine

import (
	"math"
	"slices"
	"testing"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/rng"
)

// dozyHost is a script host that says nothing is due (hosts.Dozer) from
// each tick until a timer wakes it: its Tick arms a timer timer_ns ahead
// and then dozes, and the timer's Recv makes a tick due at once.
type dozyHost struct {
	*scriptHost
	wake int64
}

func (h *dozyHost) TickDue() int64 { return h.wake }
func (h *dozyHost) Tick(now int64) []hosts.Action {
	h.wake = math.MaxInt64
	return h.scriptHost.Tick(now)
}
func (h *dozyHost) Recv(m hosts.Message, now int64) []hosts.Action {
	if _, ok := m.(*hosts.TimerFired); ok {
		h.wake = now
	}
	return h.scriptHost.Recv(m, now)
}
func (h *dozyHost) Clone() hosts.Host {
	return &dozyHost{h.scriptHost.Clone().(*scriptHost), h.wake}
}

// dozyKind is the script kind whose hosts doze until a call wakes them.
type dozyKind struct{ scriptKindT }

func (dozyKind) Tag() string { return "dozy" }
func (dozyKind) New(id string, cfg map[string]any, st string, peers []string, r *rng.Stream) hosts.Host {
	return &dozyHost{scriptHost: scriptKind.New(id, cfg, st, peers, r).(*scriptHost)}
}

// TestDozer_TickAfterAWakingCall: the engine skips a dozing host's Ticks
// but asks again after every call it makes to the host, so a Recv that
// makes a tick due is followed by that tick. One life, 5 s, a timer 1 s
// after each tick: five ticks, each at the timer's instant (the first at
// the first tick's), and every other tick skipped.
func TestDozer_TickAfterAWakingCall(t *testing.T) {
	sc := meshScenario("dozy", 1, lossyPolicy, 5_000_000_000)
	sc.Peers[0].KindConfig = map[string]any{"timer_ns": int64(1_000_000_000)}
	w := &lines{}
	e, err := New(sc, hosts.NewRegistry(dozyKind{}), Options{Writer: w})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Run(); err != nil {
		t.Fatal(err)
	}
	types := w.types()
	ticks, timers := 0, 0
	for _, typ := range types {
		switch typ {
		case "tick":
			ticks++
		case "timer":
			timers++
		}
	}
	if ticks != 5 || timers != 4 || e.Index() < 45 {
		t.Fatalf("%d ticks and %d timers recorded in %d steps (%v); want 5 ticks, 4 timers and every tick a step", ticks, timers, e.Index(), slices.Compact(types))
	}
}
