package rafthost_test

import (
	"strings"
	"testing"

	"github.com/detsim/detsim/bundle/verdict"
	"github.com/detsim/detsim/kinds/raft/rafthost"
)

// healedCluster is raft/cluster.toml with n5 cut off from 5 s to 10 s
// and catching up judged, 2 s after the heal.
const healedCluster = `
name = "raft_healed"
duration_ns = 15_000_000_000

[base]
extends = "cluster.toml"

[[mutations]]
at_ns = 5_000_000_000
kind = "Partition"
peers_a = ["n5"]
peers_b = ["n1", "n2", "n3", "n4"]

[[mutations]]
at_ns = 10_000_000_000
kind = "Heal"

[[assertions]]
name = "caught_up"
kind = "catches_up_after_heal"
within_ns = 2_000_000_000
`

// TestCatchesUp_AloneCatchesAMemberThatStopsApplying: a member that
// stops applying (a test-only planted bug) while it stays in the
// cluster, acknowledging appends, breaks no safety property and no
// client's put (the others apply them); catches_up_after_heal alone
// fails, naming it and how far behind it ended. The same run without
// the bug passes, its partitioned follower caught up after the heal.
func TestCatchesUp_AloneCatchesAMemberThatStopsApplying(t *testing.T) {
	catchesAlone(t, "healed", healedCluster, rafthost.TestBugStopApplying, "n2", "caught_up",
		"n2, connected to a quorum, had applied only up to index 100", "at the end n2 had applied up to index 100")
}

// TestCatchesUp_ASplitTooLateToJudgeIsInconclusive: a 2|2|1 split
// 0.7 s before the end, under load from every member, leaves puts that
// are never applied. Neither liveness assertion can judge them in time:
// both are Inconclusive, never Pass, and say how many puts from which
// clients were never applied.
func TestCatchesUp_ASplitTooLateToJudgeIsInconclusive(t *testing.T) {
	sc := extendLibrary(t, "late_split", `
name = "raft_late_split"

[base]
extends = "partitions_base.toml"

[[mutations]]
at_ns = 29_300_000_000
kind = "Partition"
peers_a = ["n1", "n2"]
peers_b = ["n3", "n4", "n5"]

[[mutations]]
at_ns = 29_300_000_000
kind = "Partition"
peers_a = ["n3", "n4"]
peers_b = ["n5"]

[[assertions]]
name = "puts_commit"
kind = "proposal_commits_within"
after_ns = 1_000_000_000
within_ns = 1_000_000_000

[[assertions]]
name = "caught_up"
kind = "catches_up_after_heal"
within_ns = 1_000_000_000
`)
	for _, v := range verdicts(t, sc) {
		switch v.Name {
		case "puts_commit", "caught_up":
			if v.Outcome != verdict.Inconclusive || !strings.Contains(v.Reason, "never applied") || !strings.Contains(v.Reason, "n1 ") {
				t.Errorf("%s: %s: %s, want Inconclusive counting the puts never applied", v.Name, v.Outcome, v.Reason)
			}
			t.Logf("%s: %s: %s", v.Name, v.Outcome, v.Reason)
		}
	}
}
