// Package screen draws detsim's stepper screen (DESIGN §6, docs/tui.md):
// it extracts a frame of a debugger.Session at a step (the host rows,
// queue, links and log window, with what the step changed marked), lays
// the panes out for a terminal's size (the membership matrix or host
// list, the selected host, the queue, the links, the event log, the
// record), and draws them, the header, the footer with its key help and
// the overlays (help, breakpoints, verdicts) as lines of styled text.
//
// It is the stepper without the program around it: package tui, the
// interactive bubbletea stepper, keeps a Screen, moves its cursors with
// the keys and shows what Render draws; RenderText draws the same screen
// once, as plain text, for `detsim --batch --break-on`, whose headless
// path so never links bubbletea or bubbles. The package draws with
// lipgloss and x/ansi only (a test holds it to that), and the key list
// (KeyMap) is here, so the help it draws and the keys the stepper
// matches are one list.
//
// Like tui it is outside the determinism fence (internal/detlint skips
// packages under tui/): it only reads a run, and nothing it draws is
// read back by one.
package screen
