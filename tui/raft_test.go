package tui

import "testing"

// raftStates are screens of the raft kind (issue 24 item 5): the kind's
// own pane (role, term, lead, commit, applied, each follower's progress,
// the log's tail) for the leader and for a follower, and the event log's
// gists, just after the election a partition forced.
var raftStates = []kindScreen{
	{"raft_leader", "raft/leader_isolation", []string{"g", "text:11.33s", "enter", "tab", "j", "j"}},
	{"raft_follower", "raft/leader_isolation", []string{"g", "text:11.33s", "enter", "tab", "j"}},
}

// TestGoldenScreensRaft pins the raft screens at 120×40.
func TestGoldenScreensRaft(t *testing.T) { checkKindScreens(t, raftStates) }
