package tui

import (
	"fmt"
	"testing"
)

// raftStates are screens of the raft kind (issue 24 item 5): the kind's
// own pane (term, role, lead, commit, applied, the log's tail, each
// follower's progress) for the leader and for a follower, and the event
// log's gists, after a leader change.
var raftStates = []struct {
	name, scenario string
	keys           []string
}{
	{"raft_leader", "raft/leader_isolation", []string{"g", "text:11.32s", "enter", "tab", "j", "j"}},
	{"raft_follower", "raft/leader_isolation", []string{"g", "text:11.32s", "enter", "tab", "j"}},
}

// TestGoldenScreensRaft pins the raft screens at 120×40.
func TestGoldenScreensRaft(t *testing.T) {
	for _, st := range raftStates {
		name := fmt.Sprintf("%s_120x40.golden", st.name)
		t.Run(name, func(t *testing.T) {
			m := newTestModel(t, loadScenario(t, st.scenario), 120, 40)
			m = drive(t, m, keys(st.keys...)...)
			got := screenText(m)
			checkScreenShape(t, got, 120, 40)
			checkGolden(t, name, got+"\n")
		})
	}
}
