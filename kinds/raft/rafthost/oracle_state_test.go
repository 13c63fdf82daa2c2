package rafthost_test

import (
	"io/fs"
	"path"
	"strings"
	"testing"

	"github.com/detsim/detsim/bundle/verdict"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/kinds/raft/rafthost"
	"github.com/detsim/detsim/scenarios"
)

// extendLibrary parses src, a scenario that may extend the library's
// scenarios, as if it were the library's raft/<name>.toml.
func extendLibrary(t testing.TB, name, src string) *scenarios.Scenario {
	t.Helper()
	lib := hosts.LibraryOf(rafthost.Kind)
	sc, err := scenarios.Parse("raft/"+name+".toml", []byte(src), registry(), func(p string) ([]byte, error) { return fs.ReadFile(lib, path.Clean(p)) })
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// outcomes runs sc and returns each assertion's outcome by name, and
// the reasons, for a failure's message.
func outcomes(t testing.TB, sc *scenarios.Scenario) (map[string]verdict.Outcome, string) {
	t.Helper()
	got := map[string]verdict.Outcome{}
	var why strings.Builder
	for _, v := range verdicts(t, sc) {
		got[v.Name] = v.Outcome
		why.WriteString("\n  " + v.Name + ": " + string(v.Outcome) + ": " + v.Reason)
	}
	return got, why.String()
}

// catchesAlone runs the library scenario base with extra, first as it
// is, when every raft assertion passes, then with bug planted at peer,
// when the assertion named name alone fails, for reasons that say each
// of wants.
func catchesAlone(t *testing.T, base, extra, bug, peer, name string, wants ...string) {
	t.Helper()
	got, why := outcomes(t, extendLibrary(t, base, extra))
	failsAlone(t, got, why, "")
	rafthost.PlantForTest(t, bug, peer)
	got, why = outcomes(t, extendLibrary(t, base, extra))
	failsAlone(t, got, why, name)
	for _, want := range wants {
		if !strings.Contains(why, want) {
			t.Errorf("the reason does not say %q:%s", want, why)
		}
	}
}

// failsAlone checks that exactly the assertion named fails (none, for
// ""), and every other passes.
func failsAlone(t *testing.T, got map[string]verdict.Outcome, why, name string) {
	t.Helper()
	for n, o := range got {
		want := verdict.Pass
		if n == name {
			want = verdict.Fail
		}
		if o != want {
			t.Errorf("%s is %s, want %s:%s", n, o, want, why)
		}
	}
	if _, ok := got[name]; !ok && name != "" {
		t.Errorf("no assertion %s:%s", name, why)
	}
}

// denseCluster is raft/cluster.toml under a load dense enough that
// committed entries reach the state machine in batches of several.
const denseCluster = `
name = "raft_dense"
duration_ns = 4_000_000_000

[base]
extends = "cluster.toml"

[[peers]]
id = "n3"
kind = "raft"
kind_config = { load = { from_ns = 1_000_000_000, every_ns = 1_000_000, keys = 4 } }
`

// denseRejoin is denseCluster with n2 cut off from 1.5 s to 2.5 s: on
// its return the leader catches it up, and n2 applies hundreds of
// committed entries in one batch. Over streams a connected follower
// learns the commit an entry or two at a time, so only a batch like
// this one gives a planted reverse apply something to reverse.
const denseRejoin = denseCluster + `
[[mutations]]
at_ns = 1_500_000_000
kind = "Partition"
peers_a = ["n2"]
peers_b = ["n1", "n3", "n4", "n5"]

[[mutations]]
at_ns = 2_500_000_000
kind = "Heal"
`

// lostTail is five members where n3, with committed entries in its log
// above its HardState's commit, crashes at 6 s while n4 and n5 are cut
// off; at 6.5 s the cut heals, n1 and n2 (which hold every committed
// entry) die, and n3 restarts on its disk, whose log is the longest of
// the three left: it becomes leader. n4's and n5's disks are slow from
// then on, so the new leader cannot commit before the end: nothing is
// applied that contradicts what n1 applied, and only the election shows
// the lost entries.
const lostTail = `
name = "raft_lost_tail"
duration_ns = 10_000_000_000

[base]
extends = "cluster.toml"

[[peers]]
id = "n3"
kind = "raft"
kind_config = { load = { from_ns = 1_000_000_000, until_ns = 6_000_000_000, every_ns = 5_000_000 } }

[[peers]]
id = "n4"
kind = "raft"
kind_config = { slow_disk = [{ from_ns = 6_400_000_000, fsync_ns = 1_500_000_000 }] }

[[peers]]
id = "n5"
kind = "raft"
kind_config = { slow_disk = [{ from_ns = 6_400_000_000, fsync_ns = 1_500_000_000 }] }

[[mutations]]
at_ns = 3_000_000_000
kind = "Partition"
peers_a = ["n4", "n5"]
peers_b = ["n1", "n2", "n3"]

[[mutations]]
at_ns = 6_000_000_000
kind = "PeerKill"
peer = "n3"

[[mutations]]
at_ns = 6_500_000_000
kind = "PeerKill"
peer = "n1"

[[mutations]]
at_ns = 6_500_000_000
kind = "PeerKill"
peer = "n2"

[[mutations]]
at_ns = 6_500_000_000
kind = "Heal"

[[mutations]]
at_ns = 6_500_000_000
kind = "PeerResurrect"
peer = "n3"
preserve_state = true
`

// TestStateMachineSafety_AloneCatchesReverseApply: a member that
// applies each committed batch in reverse (a test-only planted bug)
// holds, after some index, another store than the others held after it;
// state_machine_safety fails, citing the two applies, and no other raft
// assertion does. The same run without the bug passes every one.
func TestStateMachineSafety_AloneCatchesReverseApply(t *testing.T) {
	catchesAlone(t, "dense", denseRejoin, rafthost.TestBugReverseApply, "n2", "same_entries_applied", "n2's store after applying index")
}

// TestLeaderCompleteness_AloneCatchesALostTail: a member whose restart
// loses the log entries above its HardState's commit (a test-only
// planted bug), some of them committed, wins the next election;
// leader_completeness, reading the log the member's recovered disk
// holds, fails, and no other raft assertion does (the new leader cannot
// commit before the end). The same run without the bug passes.
func TestLeaderCompleteness_AloneCatchesALostTail(t *testing.T) {
	catchesAlone(t, "lost_tail", lostTail, rafthost.TestBugLoseTail, "n3", "leaders_complete", "n3 became leader of term 2 with its log ending at index")
}
