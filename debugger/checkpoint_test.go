package debugger

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/detsim/detsim/engine"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/scenarios"
)

// swimMesh is n SWIM members on a clean full mesh for dur.
func swimMesh(n int, dur int64) *scenarios.Scenario {
	sc := &scenarios.Scenario{Name: "swim_mesh", Seed: 3, DurationNs: dur, TickPeriodNs: 200_000_000, FullMesh: true}
	sc.DefaultLink.BandwidthBps = 1 << 40
	for i := 0; i < n; i++ {
		sc.Peers = append(sc.Peers, scenarios.Peer{ID: fmt.Sprintf("n%03d", i), Kind: "swim", InitialState: "member", KindConfig: map[string]any{}})
	}
	return sc
}

func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// The checkpoint estimate the byte budget relies on is honest: on a SWIM
// mesh of 300 members it is within a quarter of the heap three
// checkpoints actually take.
func TestCheckpointEstimate_MatchesTheHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 300 SWIM nodes")
	}
	s := newSession(t, swimMesh(300, 20_000_000_000))
	e := s.Timeline().Engine()
	for e.Index() < 40_000 && !e.Done() {
		e.Step()
	}
	// The first checkpoint stops the engine recycling its wire slabs,
	// which frees them: take it before measuring.
	first := e.Checkpoint()
	h0 := liveHeap()
	var cps []*engine.Checkpoint
	var h uint64
	for range 3 {
		cps = append(cps, e.Checkpoint())
		h = liveHeap() // collect between checkpoints: each one's own garbage goes
	}
	got := float64(h-h0) / 3
	est := float64(cps[0].Bytes())
	runtime.KeepAlive(cps)
	runtime.KeepAlive(first)
	if est < 0.75*got || est > 1.25*got {
		t.Fatalf("estimate %.1f MB, heap per checkpoint %.1f MB", est/1e6, got/1e6)
	}
}

// A headless session with no checkpoint budget keeps none, and landing
// back still works (from the seed); Reseed keeps the budget.
func TestSession_NoCheckpointMemKeepsNone(t *testing.T) {
	s := newSession(t, library(t, "reference/echo_parity"))
	s.SetCheckpointBudget(0)
	hit := s.Continue([]Breakpoint{{Kind: BreakStep, N: 5000}})
	if hit.Step != 5000 || s.Timeline().Checkpoints() != 0 {
		t.Fatalf("hit %+v, %d checkpoints", hit, s.Timeline().Checkpoints())
	}
	d := s.Timeline().Engine().Digest()
	if _, err := s.Timeline().Goto(4999); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Timeline().Goto(5000); err != nil || s.Timeline().Engine().Digest() != d {
		t.Fatalf("back and forth from the seed: %v", err)
	}
	r, err := s.Reseed(9)
	if err != nil {
		t.Fatal(err)
	}
	r.Continue([]Breakpoint{{Kind: BreakStep, N: 5000}})
	if u := r.Timeline().CheckpointUse(); u.Budget != 0 || u.Count != 0 {
		t.Fatalf("reseeded session: %+v", u)
	}
	_ = builtin.Registry
}
