package sweep

import (
	"context"
	"runtime/debug"
	"testing"

	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/property"
	"github.com/detsim/detsim/scenarios"
)

// TestAgentFaults_CorrectAgentPassesAndThePlantedBugFails: the shipped
// agent properties hold over 200 seeds — the correct agent keeps every
// oracle on every seed of agent_faults, agent_faults_bug fails on at
// least its min_failing_percent — and the bug property's own space on the
// correct agent (its base without kind_config.bug) fails no seed, so
// what fails is the planted bug, not the schedule.
func TestAgentFaults_CorrectAgentPassesAndThePlantedBugFails(t *testing.T) {
	reg := builtin.Registry()
	const n = 200
	for _, name := range []string{"agent_faults", "agent_faults_bug"} {
		p := libraryProperty(t, name, reg)
		s, err := Run(context.Background(), p, reg, Config{Count: n, Workers: 2})
		if err != nil || s.Ran != n || len(s.Errors) > 0 {
			t.Fatalf("%s: ran %d: %v %v", name, s.Ran, err, s.Errors)
		}
		if !s.Met() {
			t.Errorf("%s (expect %s): %d of %d seeds failed: %v", name, p.Expect, len(s.Failed), n, s.Failed)
		}
		t.Logf("%s: %d of %d seeds fail", name, len(s.Failed), n)
	}
	bug, _ := property.LoadLibrary("agent_faults_bug", reg)
	correct, err := scenarios.LoadLibrary("agent/faults_base", reg)
	if err != nil {
		t.Fatal(err)
	}
	bug.Base = correct
	s, err := Run(context.Background(), bug, reg, Config{Count: n, Workers: 2})
	if err != nil || len(s.Failed) > 0 || len(s.Errors) > 0 {
		t.Errorf("the bug property's space on the correct agent: failed %v errors %v (%v)", s.Failed, s.Errors, err)
	}
}

// BenchmarkSweep_AgentFaults is the agent property's cost per seed on 1
// and 2 workers (target: 1 000 seeds < 60 s on 2 cores).
func BenchmarkSweep_AgentFaults(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(400)) // as detsim sweep runs
	reg := builtin.Registry()
	p := libraryProperty(b, "agent_faults", reg)
	benchWorkers(b, p, reg, 0)
}
