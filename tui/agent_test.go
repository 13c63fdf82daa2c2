package tui

import (
	"fmt"
	"testing"
)

// kindScreen is a screen of a scenario after keys, pinned at 120×40.
type kindScreen struct {
	name, scenario string
	keys           []string
}

// checkKindScreens pins each screen as <name>_120x40.golden.
func checkKindScreens(t *testing.T, screens []kindScreen) {
	checkKindScreensAt(t, screens, 120, 40, nil)
}

// checkKindScreensAt pins each screen at w×h as <name>_<w>x<h>.golden,
// after check (when not nil) has looked at it.
func checkKindScreensAt(t *testing.T, screens []kindScreen, w, h int, check func(t *testing.T, got string)) {
	for _, st := range screens {
		name := fmt.Sprintf("%s_%dx%d.golden", st.name, w, h)
		t.Run(name, func(t *testing.T) {
			m := newTestModel(t, loadScenario(t, st.scenario), w, h)
			m = drive(t, m, keys(st.keys...)...)
			got := screenText(m)
			checkScreenShape(t, got, w, h)
			if check != nil {
				check(t, got)
			}
			checkGolden(t, name, got+"\n")
		})
	}
}

// agentStates are screens of the agent family (issue 15 item 8): the
// host pane's kind summary and snapshot tree for the agent mid-call, and
// for the provider and a tool when selected.
var agentStates = []kindScreen{
	{"agent_stall_call", "agent/stall", []string{"g", "text:1s", "enter"}},
	{"agent_stall_provider", "agent/stall", []string{"g", "text:1s", "enter", "tab", "j"}},
	{"agent_stall_tool", "agent/stall", []string{"g", "text:1s", "enter", "tab", "j", "j"}},
}

// TestGoldenScreensAgent pins the agent screens at 120×40.
func TestGoldenScreensAgent(t *testing.T) { checkKindScreens(t, agentStates) }
