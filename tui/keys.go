package tui

import (
	"slices"

	tea "charm.land/bubbletea/v2"

	"github.com/detsim/detsim/tui/screen"
)

// matches reports whether k is one of the keys of any of ks. The keys
// and their help are one list, screen.KeyMap: the screen draws the help
// from it, the stepper matches key presses against it (as bubbles'
// key.Matches would, by the key's name).
func matches(k tea.KeyPressMsg, ks ...screen.Key) bool {
	name := k.String()
	for _, b := range ks {
		if slices.Contains(b.Keys, name) {
			return true
		}
	}
	return false
}
