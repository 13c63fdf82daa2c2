package tui

import (
	"charm.land/bubbles/v2/help"

	"github.com/detsim/detsim/tui/screen"
)

// The stepper's keys are bubbles key bindings in two help.KeyMaps, the
// stepper's (screen.KeyMap) and the breakpoints list's
// (screen.BreakpointKeys): key presses are matched with key.Matches, and
// the screen draws the help from the same bindings, laid out as the help
// model lays a KeyMap out.
var (
	_ help.KeyMap = screen.KeyMap{}
	_ help.KeyMap = screen.BreakpointKeys{}
)
