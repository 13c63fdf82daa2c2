package rafthost_test

import (
	"testing"

	"github.com/detsim/detsim/engine"
	"github.com/detsim/detsim/scenarios"
)

// TestClone_ReplaysToTheSameRun: a checkpoint restored at any step runs
// on exactly as the original did (the engine's timeline depends on it).
// etcd's RawNode cannot be copied, so a raft clone replays its host's
// inputs: across elections, a partition, a crash with its disk kept, a
// fresh life and a panic, the digest at the end is the straight run's.
func TestClone_ReplaysToTheSameRun(t *testing.T) {
	checkReplays(t, load(t, five, -1), 1500, 5, func(n int) []int { return []int{n - 1, 3, 1, n / 2} })
}

// checkReplays runs sc straight, then again taking a checkpoint every
// every steps (at least least of them), and restores the checkpoints
// pick chooses of the n taken: each must run on to the straight run's
// digest.
func checkReplays(t *testing.T, sc *scenarios.Scenario, every, least int, pick func(n int) []int) {
	t.Helper()
	want := digest(t, sc)
	e, err := engine.New(sc, registry(), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var cps []*engine.Checkpoint
	for n := 0; !e.Done(); n++ {
		if n%every == 0 {
			cps = append(cps, e.Checkpoint())
		}
		e.Step()
	}
	if got := e.Digest(); got != want {
		t.Fatalf("the run that took checkpoints ended at %s, the straight run at %s", got, want)
	}
	if len(cps) < least {
		t.Fatalf("only %d checkpoints", len(cps))
	}
	for _, i := range pick(len(cps)) {
		e.Restore(cps[i])
		for !e.Done() {
			e.Step()
		}
		if got := e.Digest(); got != want {
			t.Errorf("restored at step %d: ended at %s, want %s", cps[i].Index(), got, want)
		}
	}
}
