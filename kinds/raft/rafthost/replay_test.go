package rafthost_test

import (
	"testing"

	"github.com/detsim/detsim/engine"
)

// TestClone_ReplaysToTheSameRun: a checkpoint restored at any step runs
// on exactly as the original did (the engine's timeline depends on it).
// etcd's RawNode cannot be copied, so a raft clone replays its host's
// inputs: across elections, a partition, a crash with its disk kept, a
// fresh life and a panic, the digest at the end is the straight run's.
func TestClone_ReplaysToTheSameRun(t *testing.T) {
	sc := load(t, five, -1)
	want := digest(t, sc)
	e, err := engine.New(sc, registry(), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var cps []*engine.Checkpoint
	for n := 0; !e.Done(); n++ {
		if n%1500 == 0 {
			cps = append(cps, e.Checkpoint())
		}
		e.Step()
	}
	if got := e.Digest(); got != want {
		t.Fatalf("the run that took checkpoints ended at %s, the straight run at %s", got, want)
	}
	if len(cps) < 5 {
		t.Fatalf("only %d checkpoints", len(cps))
	}
	for _, i := range []int{len(cps) - 1, 3, 1, len(cps) / 2} {
		e.Restore(cps[i])
		for !e.Done() {
			e.Step()
		}
		if got := e.Digest(); got != want {
			t.Errorf("restored at step %d: ended at %s, want %s", cps[i].Index(), got, want)
		}
	}
}
