// Package tui is detsim's terminal stepper (DESIGN §6): a bubbletea
// program over the engine's timeline that steps a run forward and
// backward, continues to breakpoints in either direction, and shows the
// membership matrix, the selected host, the queue, the links and the
// event log, with what the last step changed highlighted.
//
// The engine has one owner at a time: Update never runs it. Every
// operation is a command that takes the Session and hands it back in its
// message together with an immutable frame, which is all View draws.
// Long operations run in chunks so the screen stays responsive and esc
// can stop them. Session is also the headless API `detsim --batch
// --break-on` uses, so breakpoints mean the same thing everywhere, and
// RenderText draws the same panes as plain text. docs/tui.md describes
// the panes, the keys, the breakpoints and the event-log cache.
package tui
