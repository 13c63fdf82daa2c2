// Package tui is detsim's terminal stepper (DESIGN §6): a bubbletea
// program over a debugger.Session that steps a run forward and backward,
// continues to breakpoints in either direction, and shows the membership
// matrix, the selected host, the queue, the links and the event log, with
// what the last step changed highlighted.
//
// The session has one owner at a time: Update never runs it. Every
// operation is a command that takes the session and hands it back in its
// message together with an immutable frame, which is all View draws.
// Long operations run in chunks so the screen stays responsive and esc
// can stop them. Breakpoints, continue, reverse-continue and go-to are
// the headless debugger's (package debugger), which `detsim --batch
// --break-on` drives too.
//
// Everything the stepper draws is package screen's (tui/screen): the
// frame, the layout, the panes, the overlays, the help and the key list
// it matches key presses against. This package is the program around
// it: keys, jobs, prompts, the picture key. screen.RenderText draws the
// same screen as plain text for --break-on without this package, so
// that path links no bubbletea. docs/tui.md describes the panes, the
// keys, the breakpoints and the event-log cache.
package tui
