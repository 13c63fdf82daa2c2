package rafthost_test

import (
	"context"
	"testing"

	"github.com/detsim/detsim/property"
	"github.com/detsim/detsim/scenarios"
	"github.com/detsim/detsim/sweep"
)

// TestSweep_PartitionsPassAndThePlantedBugFails: random partitions
// (properties/raft_partitions.toml) against etcd's defaults with PreVote
// and CheckQuorum pass every seed; the same space with the planted
// apply-before-commit bug fails most seeds (state_machine_safety); and
// the bug property's space on the correct base fails none, so it is the
// bug the failures find, not the space. Both properties load by name,
// from the kind's library, as `detsim sweep` loads them.
func TestSweep_PartitionsPassAndThePlantedBugFails(t *testing.T) {
	if testing.Short() {
		t.Skip("sweeps 40 seeds of two properties (about 60 s); .ci/run runs it")
	}
	reg := registry()
	const n = 40
	for _, name := range []string{"raft_partitions", "raft_partitions_bug"} {
		p, err := property.Resolve(name, reg)
		if err != nil {
			t.Fatal(err)
		}
		s, err := sweep.Run(context.Background(), p, reg, sweep.Config{Count: n, Workers: 2})
		if err != nil || s.Ran != n || len(s.Errors) > 0 {
			t.Fatalf("%s: ran %d: %v %v", name, s.Ran, err, s.Errors)
		}
		if !s.Met() {
			t.Errorf("%s (expect %s): %d of %d seeds failed: %v", name, p.Expect, len(s.Failed), n, s.Failed)
		}
		t.Logf("%s: %d of %d seeds fail", name, len(s.Failed), n)
	}
	bug, _ := property.Resolve("raft_partitions_bug", reg)
	correct, err := scenarios.Resolve("raft/partitions_base", reg)
	if err != nil {
		t.Fatal(err)
	}
	bug.Base = correct
	s, err := sweep.Run(context.Background(), bug, reg, sweep.Config{Count: n, Workers: 2})
	if err != nil || len(s.Failed) > 0 || len(s.Errors) > 0 {
		t.Errorf("the bug property's space on the correct base: failed %v errors %v (%v)", s.Failed, s.Errors, err)
	}
}
