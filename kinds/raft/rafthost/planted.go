package rafthost

// Planted bugs no scenario can name. The kind_config bugs (config.go's
// Bugs) are library scenarios of their own; these exist only for the
// oracles' tests, which plant them through export_test.go, so a run
// from a scenario file never has them (docs/raft.md, "Assertions").
const (
	// testBugReverseApply applies each batch of committed entries in
	// reverse order: the store passes through states no other member's
	// does (state_machine_safety, alone).
	testBugReverseApply = "reverse_apply"
	// testBugLoseTail loses, at a restart over the disk, every log entry
	// above the HardState's commit, as a storage layer that made only
	// the committed prefix durable would: a member can then win an
	// election without an entry the cluster committed
	// (leader_completeness, alone).
	testBugLoseTail = "lose_tail"
	// testBugStopApplying applies nothing past index stopApplyingAt: the
	// member stays in the cluster, acknowledges appends, and its store
	// falls further behind for good (catches_up_after_heal, alone).
	testBugStopApplying = "stop_applying"
	// testBugUnlockedDraw creates the RawNode outside host.locked, so
	// etcd's first election draw reaches crypto/rand unserved: a
	// determinism failure the run must report (entropy.go).
	testBugUnlockedDraw = "unlocked_draw"
)

// stopApplyingAt is where testBugStopApplying stops.
const stopApplyingAt = 100

// testBugs maps a host id to the test bug planted in it. Only tests
// write it, before a run; hosts read it once, in New.
var testBugs map[string]string
