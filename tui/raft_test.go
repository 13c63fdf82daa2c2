package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// raftStates are screens of the raft kind (issue 24 item 5): the kind's
// own pane (role, term, lead, commit, applied, each member's election
// clock against its randomized timeout, each follower's progress, the
// log's tail) for the leader and for a follower, and the event log's
// gists, just after the election a partition forced.
var raftStates = []kindScreen{
	{"raft_leader", "raft/leader_isolation", []string{"g", "text:11.33s", "enter", "tab", "j", "j"}},
	{"raft_follower", "raft/leader_isolation", []string{"g", "text:11.33s", "enter", "tab", "j"}},
}

// TestGoldenScreensRaft pins the raft screens at 120×40.
func TestGoldenScreensRaft(t *testing.T) { checkKindScreens(t, raftStates) }

// TestGoldenScreensRaft80x24 pins them at 80×24 too (issue 30 item 7):
// the pane is a third of the width there, and the election clock, the
// line a member's next campaign is read from, must still show whole.
func TestGoldenScreensRaft80x24(t *testing.T) {
	for _, st := range raftStates {
		name := fmt.Sprintf("%s_80x24.golden", st.name)
		t.Run(name, func(t *testing.T) {
			m := newTestModel(t, loadScenario(t, st.scenario), 80, 24)
			m = drive(t, m, keys(st.keys...)...)
			got := screenText(m)
			checkScreenShape(t, got, 80, 24)
			if !strings.Contains(got, "election ") && !strings.Contains(got, "quorum check ") {
				t.Errorf("the pane has no election clock:\n%s", got)
			}
			checkGolden(t, name, got+"\n")
		})
	}
}

// TestTeatest_RaftElectionClock drives the real bubbletea runtime at
// 80×24 to a follower of raft/leader_isolation and steps it: its pane
// shows its election clock against its randomized timeout.
func TestTeatest_RaftElectionClock(t *testing.T) {
	m := newTestModel(t, loadScenario(t, "raft/leader_isolation"), 80, 24)
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(80, 24))
	tm.Type("g11.33s")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	waitScreen(t, tm, "the first at or after")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyTab})
	tm.Type("j")
	// The screen is a stream of changed cells: wait for a line that
	// appears whole, then read the final screen.
	waitScreen(t, tm, "lead n3  vote n3")
	tm.Type("q")
	final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(Model)
	if s := screenText(final); !strings.Contains(s, "election ") {
		t.Fatalf("final screen lacks the election clock:\n%s", s)
	}
}
