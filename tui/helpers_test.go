package tui

import (
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/internal/golden"
	"github.com/detsim/detsim/scenarios"
	"github.com/detsim/detsim/tui/screen"
)

// testRegistry is the built-in kinds plus the test-only membership kind.
func testRegistry() *hosts.Registry {
	r := builtin.Registry()
	r.Register(fakeKind)
	return r
}

func loadScenario(t testing.TB, name string) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.Resolve(name, testRegistry())
	if err != nil {
		t.Fatalf("load %s: %v", name, err)
	}
	return sc
}

func newTestModel(t testing.TB, sc *scenarios.Scenario, w, h int) Model {
	t.Helper()
	m, err := NewModel(sc, testRegistry(), Options{Width: w, Height: h})
	if err != nil {
		t.Fatalf("NewModel: %v", err)
	}
	return m
}

// drive feeds msgs to m the way the bubbletea runtime would, running
// every command it returns to completion before the next message, so a
// test sees the final state of each key.
func drive(t testing.TB, m Model, msgs ...tea.Msg) Model {
	t.Helper()
	for _, msg := range msgs {
		queue := []tea.Msg{msg}
		for len(queue) > 0 && len(queue) < 10_000 {
			next, cmd := m.Update(queue[0])
			m = next.(Model)
			queue = queue[1:]
			if cmd != nil {
				if out := cmd(); out != nil {
					if b, ok := out.(tea.BatchMsg); ok {
						for _, c := range b {
							if c != nil {
								queue = append(queue, c())
							}
						}
					} else if _, quit := out.(tea.QuitMsg); !quit {
						queue = append(queue, out)
					}
				}
			}
		}
	}
	return m
}

// keys turns a key spec into key presses: "n", "space", "enter", "esc",
// "tab", "left", "right", "up", "down", "C", or literal text "text:12.5s".
func keys(specs ...string) []tea.Msg {
	var out []tea.Msg
	for _, s := range specs {
		if t, ok := strings.CutPrefix(s, "text:"); ok {
			for _, r := range t {
				out = append(out, tea.KeyPressMsg{Code: r, Text: string(r)})
			}
			continue
		}
		out = append(out, keyPress(s))
	}
	return out
}

// namedKeys are the keys a test names by a word rather than types.
var namedKeys = map[string]rune{
	"enter": tea.KeyEnter, "esc": tea.KeyEscape, "tab": tea.KeyTab, "backspace": tea.KeyBackspace,
	"left": tea.KeyLeft, "right": tea.KeyRight, "up": tea.KeyUp, "down": tea.KeyDown,
	"pgdown": tea.KeyPgDown, "pgup": tea.KeyPgUp,
}

func keyPress(s string) tea.KeyPressMsg {
	if s == "space" {
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	}
	if code, ok := namedKeys[s]; ok {
		return tea.KeyPressMsg{Code: code}
	}
	r := []rune(s)[0]
	return tea.KeyPressMsg{Code: r, Text: s}
}

// screenText is the model's view as plain text.
func screenText(m Model) string { return screen.Plain(m.render()) }

// checkGolden compares got with testdata/name, rewriting it under -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), got)
}
