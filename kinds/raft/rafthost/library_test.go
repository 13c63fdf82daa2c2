package rafthost_test

import (
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/detsim/detsim/batch"
	"github.com/detsim/detsim/bundle/verdict"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/kinds/raft/rafthost"
	"github.com/detsim/detsim/scenarios"
)

// loadLibrary reads the raft library's scenario name ("raft/cluster").
func loadLibrary(t testing.TB, name string) *scenarios.Scenario {
	t.Helper()
	lib := hosts.LibraryOf(rafthost.Kind)
	data, err := fs.ReadFile(lib, name+".toml")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenarios.Parse(name+".toml", data, registry(), func(p string) ([]byte, error) { return fs.ReadFile(lib, path.Clean(p)) })
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// verdicts runs sc with its bundle and returns its verdicts.
func verdicts(t testing.TB, sc *scenarios.Scenario) []verdict.Verdict {
	t.Helper()
	r, err := batch.Run(sc, registry(), batch.Config{Out: filepath.Join(t.TempDir(), "b"), Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return r.Verdicts
}

// TestLibrary_EachScenarioFailsExactlyWhatItSays: every raft library
// scenario states its expectation (# expect:) and, in its prose, what
// fails; each run fails exactly those assertions, and a scenario that
// expects to pass passes every one. The planted bugs and the settings
// etcd turned on (PreVote, CheckQuorum) are each caught by the
// assertion that guards what they break.
func TestLibrary_EachScenarioFailsExactlyWhatItSays(t *testing.T) {
	fails := map[string][]string{
		"raft/cluster":                          nil,
		"raft/leader_isolation":                 nil,
		"raft/follower_rejoin":                  nil,
		"raft/follower_rejoin_no_prevote":       {"quiet_after_heal", "puts_commit", "caught_up_after_heal"},
		"raft/asymmetric_leader":                nil,
		"raft/asymmetric_leader_no_checkquorum": {"puts_commit_despite_the_cut"},
		"raft/slow_disk_leader":                 {"quiet_while_slow"},
		"raft/slow_disk_leader_tuned":           nil,
		"raft/rolling_restart":                  nil,
		"raft/disk_loss":                        {"no_panic"},
		"raft/bug_vote_twice":                   {"one_leader_per_term"},
		"raft/bug_apply_before_commit":          {"leaders_complete", "same_entries_applied", "puts_commit_after_the_new_election"},
		"raft/bug_corrupt_entry":                {"logs_match", "same_entries_applied"},
		"raft/bug_ack_before_fsync":             {"leaders_complete"},
		"raft/bug_stale_read":                   {"linearizable"},
		// Clients putting and reading through a leader's isolation.
		"raft/clients":                nil,
		"raft/partitions_base":        nil,
		"raft/read_pauses_base":       nil,
		"raft/read_pauses_base_reuse": nil,
		"raft/stream_catch_up":        nil,
		// The stall the datagram option costs, which the safety assertions
		// cannot see (docs/raft.md, "The transport").
		"raft/datagram_stall": {"caught_up_after_heal"},
		// With the stream transport the cut-off followers catch up.
		"raft/catch_up_after_heal": nil,
		// The bug needs a partition to show: the sweep's job.
		"raft/partitions_base_bug": nil,
	}
	names, err := fs.Glob(hosts.LibraryOf(rafthost.Kind), "raft/*.toml")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range names {
		name := strings.TrimSuffix(file, ".toml")
		want, listed := fails[name]
		if !listed {
			t.Errorf("%s: a library scenario this test does not know", name)
			continue
		}
		sc := loadLibrary(t, name)
		wantExpect := "pass-now"
		if len(want) > 0 {
			wantExpect = "fail-until-fix"
		}
		if sc.Expect != wantExpect {
			t.Errorf("%s: # expect: %s, but it fails %v", name, sc.Expect, want)
		}
		var got []string
		for _, v := range verdicts(t, sc) {
			if v.Outcome == verdict.Fail {
				got = append(got, v.Name)
			}
			if v.Outcome == verdict.Inconclusive {
				t.Errorf("%s: %s is Inconclusive: %s", name, v.Name, v.Reason)
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: fails %v, want %v", name, got, want)
		}
		delete(fails, name)
	}
	for name := range fails {
		t.Errorf("%s: not in the library", name)
	}
}
