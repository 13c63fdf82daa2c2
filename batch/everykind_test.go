package batch

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/scenarios"
)

// TestEveryKind_FailsOnARealSWIMRun: each assertion kind, besides its
// planted-fault tests in bundle/verdict, must catch something in a real
// SWIM run end to end. The scenarios under testdata/fail are built so
// that a correct cluster violates each named assertion. dead_race.toml is
// the one that took finding: a correct SWIM staples the accusation onto
// every message to the accused and the refutation rides the ack, so an
// observer only declares a peer it probes successfully dead when a third
// party's death certificate overtakes a refutation still in flight.
func TestEveryKind_FailsOnARealSWIMRun(t *testing.T) { // and the agent oracles on real agent runs
	cases := []struct{ file, assertion, kind string }{
		{"kill.toml", "alive_at_30s", "all_alive_at"},
		{"kill.toml", "alive_throughout", "all_alive_throughout"},
		{"split.toml", "converges", "convergence_after"},
		{"partial_partition.toml", "y_no_flap", "no_flap_while_probes_ok"},
		{"dead_race.toml", "y_no_dead", "no_dead_when_probes_ok"},
		{"partial_partition.toml", "y_incarnation_bounded", "self_incarnation_bounded"},
		{"kill.toml", "tiny_pings", "message_size_bounded"},
		{"kill.toml", "back_within_1ms", "dead_peer_resurrects_within"},
		{"kill.toml", "no_drops", "event_count"},
		{"partial_partition.toml", "transition_rate", "event_rate"},
		// The agent oracles, each on a real agent run with its planted bug
		// (kinds/agent/agent TestOracles_CatchPlantedFaults has the passing side).
		{"agent_drop_timeout_outcome.toml", "oracle", "effect_outcome_once"},
		{"agent_slow_cancel.toml", "oracle", "cancel_settles_within"},
		{"agent_accept_truncated.toml", "oracle", "no_torn_success"},
		{"agent_ack_before_write.toml", "oracle", "no_lost_ack"},
		{"agent_drop_cancelled_results.toml", "oracle", "tool_result_matched"},
		{"agent_no_output_cap.toml", "oracle", "output_bounded"},
		{"agent_retry_after_content.toml", "oracle", "retry_budget"},
		{"agent_ignore_retry_after.toml", "oracle", "retry_budget"},
		// The bugs that lie: caught by a claim checked against a fact
		// (docs/assertions.md, "Claims against facts").
		{"agent_unrecorded_retry.toml", "oracle", "effect_outcome_once"},
		{"agent_cancel_untold.toml", "oracle", "no_commit_after_settle"},
		{"agent_timeout_untold.toml", "oracle", "no_commit_after_settle"},
		{"agent_ignore_cancel.toml", "oracle", "cancel_settles_within"},
		{"agent_misreport_output.toml", "oracle", "output_bounded"},
		{"agent_no_response_cap.toml", "oracle", "response_bounded"},
		{"agent_skip_bad_events.toml", "oracle", "no_torn_success"},
		{"agent_lenient_tool_input.toml", "oracle", "no_torn_success"},
		{"agent_repeat_turn_end.toml", "oracle", "turn_outcome_once"},
		// What the edge saw: judged from the provider's and the tools'
		// records (docs/assertions.md).
		{"agent_repeat_answered_turn.toml", "oracle", "turn_not_repeated"},
		{"agent_repeat_answered_turn.toml", "twice", "tool_run_once"},
		{"agent_drop_tool_result.toml", "oracle", "tool_result_returned"},
		{"agent_timeout_untold_hang.toml", "oracle", "tool_deadline_kept"},
		{"agent_ignore_cancel_work.toml", "oracle", "no_work_after_cancel"},
		// The raft oracles, each on a raft library scenario: a planted
		// bug, or a setting etcd turns on turned off (kinds/raft/rafthost
		// TestLibrary_EachScenarioFailsExactlyWhatItSays has the rest).
		{"raft/bug_vote_twice", "one_leader_per_term", "election_safety"},
		{"raft/bug_corrupt_entry", "logs_match", "log_matching"},
		{"raft/bug_ack_before_fsync", "leaders_complete", "leader_completeness"},
		{"raft/bug_apply_before_commit", "same_entries_applied", "state_machine_safety"},
		{"raft/follower_rejoin_no_prevote", "puts_commit", "proposal_commits_within"},
		{"raft/follower_rejoin_no_prevote", "quiet_after_heal", "no_leader_change"},
		{"raft/disk_loss", "no_panic", "no_raft_panic"},
		{"raft/datagram_stall", "caught_up_after_heal", "catches_up_after_heal"},
		{"raft/bug_stale_read", "linearizable", "linearizable"},
	}
	covered := map[string]bool{}
	for _, c := range cases {
		t.Run(c.kind, func(t *testing.T) {
			var sc *scenarios.Scenario
			if strings.HasSuffix(c.file, ".toml") {
				sc = loadFile(t, filepath.Join("testdata", "fail", c.file))
			} else {
				var err error
				if sc, err = scenarios.LoadLibrary(c.file, builtin.Registry()); err != nil {
					t.Fatal(err)
				}
			}
			// Post-run, as detsim --batch judges it (runPostRun also
			// checks the streaming side agrees).
			for _, v := range runPostRun(t, sc) {
				if v.Name != c.assertion {
					continue
				}
				if v.Kind != c.kind || v.Outcome != "Fail" {
					t.Fatalf("%s (%s): %s: %s", v.Name, v.Kind, v.Outcome, v.Reason)
				}
				if len(v.Evidence) == 0 {
					t.Fatalf("%s failed without evidence", v.Name)
				}
				return
			}
			t.Fatalf("%s has no assertion %s", c.file, c.assertion)
		})
		covered[c.kind] = true
	}
	for _, k := range scenarios.AssertionKinds(builtin.Registry()) {
		if !covered[k.Kind] {
			t.Errorf("no real SWIM scenario fails %s", k.Kind)
		}
	}
}
