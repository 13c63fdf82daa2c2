package engine

import (
	"math"
	"slices"
	"strconv"
	"testing"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/network"
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

// alignedHost is dozyHost that makes an entry of another host fall on
// the instant of one of its snoozed ticks: each tick it makes tells its
// partner the instant of its tick a second later, and the partner arms a
// timer the link's latency before that instant and then sends to its
// own partner, whose delivery lands on that instant. It was queued
// before the tick there was (the latency is longer than a tick period),
// so it goes first: the order a snoozed tick's sequence number must keep.
type alignedHost struct {
	*dozyHost
	partner string
}

// alignedLatency is the link's latency in TestDozer_SnoozedTicksKeepTheOrder.
const alignedLatency = 150_000_000

func (h *alignedHost) Tick(now int64) []hosts.Action {
	return append(h.dozyHost.Tick(now), hosts.Send(h.partner, strconv.FormatInt(now+1_000_000_000, 10)))
}
func (h *alignedHost) Recv(m hosts.Message, now int64) []hosts.Action {
	acts := h.dozyHost.Recv(m, now)
	switch m := m.(type) {
	case *hosts.Delivery:
		if at, err := strconv.ParseInt(m.Payload.(string), 10, 64); err == nil {
			acts = append(acts, hosts.Timer(at-alignedLatency, uint64(at)))
		}
	case *hosts.TimerFired:
		if m.Token > 1_000_000 { // an instant, not a tick count
			acts = append(acts, hosts.Send(h.partner, "hi"))
		}
	}
	return acts
}
func (h *alignedHost) Clone() hosts.Host {
	return &alignedHost{h.dozyHost.Clone().(*dozyHost), h.partner}
}

type alignedKind struct{ dozyKind }

func (alignedKind) New(id string, cfg map[string]any, st string, peers []string, r *rng.Stream) hosts.Host {
	h := &alignedHost{dozyHost: dozyKind{}.New(id, cfg, st, peers, r).(*dozyHost)}
	h.partner, _ = cfg["partner"].(string)
	return h
}

// wakefulHost is alignedHost without TickDue: the engine calls every
// Tick, and the ones before the wake-up do nothing.
type wakefulHost struct{ h *alignedHost }

func (w wakefulHost) ID() string       { return w.h.ID() }
func (w wakefulHost) Kind() string     { return w.h.Kind() }
func (w wakefulHost) Snapshot() []byte { return w.h.Snapshot() }
func (w wakefulHost) Clone() hosts.Host {
	return wakefulHost{w.h.Clone().(*alignedHost)}
}
func (w wakefulHost) Recv(m hosts.Message, now int64) []hosts.Action { return w.h.Recv(m, now) }
func (w wakefulHost) Tick(now int64) []hosts.Action {
	if now < w.h.wake {
		return nil
	}
	return w.h.Tick(now)
}

type wakefulKind struct{ dozyKind }

func (wakefulKind) New(id string, cfg map[string]any, st string, peers []string, r *rng.Stream) hosts.Host {
	return wakefulHost{alignedKind{}.New(id, cfg, st, peers, r).(*alignedHost)}
}

// TestDozer_SnoozedTicksKeepTheOrder: a dozing host's ticks are stepped
// in place at the head of the queue (Engine.snooze) rather than popped
// and pushed again, and the run is the one in which every Tick is
// called: the same steps (index, time, kind, host, records) and the
// same records. Timers and deliveries fall on the instants of snoozed
// ticks, queued both before the snoozed chain began (a timer armed on a
// tick) and during it (alignedHost's deliveries), so both orders of a
// tie are exercised.
func TestDozer_SnoozedTicksKeepTheOrder(t *testing.T) {
	run := func(k hosts.Kind) ([]StepInfo, string) {
		sc := meshScenario("dozy", 3, network.Policy{LatencyNs: alignedLatency, BandwidthBps: 1 << 40}, 20_000_000_000)
		for i := range sc.Peers {
			sc.Peers[i].KindConfig = map[string]any{"timer_ns": int64(1_000_000_000), "partner": sc.Peers[(i+1)%3].ID}
		}
		w := &lines{}
		e, err := New(sc, hosts.NewRegistry(k), Options{Writer: w})
		if err != nil {
			t.Fatal(err)
		}
		var steps []StepInfo
		for !e.Done() {
			steps = append(steps, e.Step())
		}
		return steps, w.buf.String()
	}
	dozed, dozedRecords := run(alignedKind{})
	called, calledRecords := run(wakefulKind{})
	if len(dozed) < 500 {
		t.Fatalf("only %d steps", len(dozed))
	}
	if !slices.Equal(dozed, called) {
		for i := range min(len(dozed), len(called)) {
			if dozed[i] != called[i] {
				t.Fatalf("step %d: %+v with dozing ticks, %+v with every tick called", i, dozed[i], called[i])
			}
		}
		t.Fatalf("%d steps with dozing ticks, %d with every tick called", len(dozed), len(called))
	}
	if dozedRecords != calledRecords {
		t.Fatal("the records differ")
	}
}
