package rafthost

import "testing"

// Test bugs (planted.go), for the external tests.
const (
	TestBugReverseApply = testBugReverseApply
	TestBugLoseTail     = testBugLoseTail
	TestBugStopApplying = testBugStopApplying
	TestBugUnlockedDraw = testBugUnlockedDraw
)

// PlantForTest plants bug in the hosts named for the rest of t; the
// test must not run in parallel with another that runs raft hosts.
func PlantForTest(t testing.TB, bug string, hosts ...string) {
	old := testBugs
	testBugs = map[string]string{}
	for _, h := range hosts {
		testBugs[h] = bug
	}
	t.Cleanup(func() { testBugs = old })
}

// ObserveEagerlyForTest makes every host look at its node after every
// call and Ready, as it did before observeSoon, for the rest of t.
func ObserveEagerlyForTest(t testing.TB) {
	observeEagerly = true
	t.Cleanup(func() { observeEagerly = false })
}
