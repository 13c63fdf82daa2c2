// Package pane is the part of the host kind contract the stepper's host
// pane reads: a kind that implements Drawer draws its selected host
// itself, one that implements Summarizer gives a line above the
// snapshot tree, and a kind with neither is shown as its snapshot. Both
// are optional interfaces of a hosts.Kind, found by a type assertion;
// they live apart from package hosts so the contract the engine and the
// loader read carries no viewer's types.
package pane

import "github.com/detsim/detsim/hosts"

// Drawer is a kind that draws the selected host for the stepper's host
// pane from its snapshot. Pane must not panic on bytes it cannot read
// (it returns what it can, or nil).
type Drawer interface {
	Pane(in Input) []Line
}

// Summarizer is a kind that renders a snapshot its hosts produced as one
// short line for the stepper's host pane (agent: turn, pending call,
// retries, store length); the stepper shows it when the kind is no
// Drawer. Summary returns "" for bytes it cannot read, and never panics.
type Summarizer interface {
	Summary(snapshot []byte) string
}

// Input is what a kind's stepper pane draws from.
type Input struct {
	// Snapshot is the selected host's snapshot; Before the same host's
	// before the last step (nil when unknown or unchanged).
	Snapshot, Before []byte
	// Inspect is the host's hosts.Inspector output (nil when the host
	// does not implement it).
	Inspect []byte
	// NowNs is the virtual time the stepper stands at.
	NowNs int64
	// Peers are the declared ids, in the order the stepper lists them.
	Peers []string
	// Width is the pane's width in cells; a line longer is clipped.
	Width int
}

// Line is one line of a kind's stepper pane.
type Line struct {
	Cells []Cell
	// Wrap says the line is never cut: the stepper wraps its text (in
	// the first cell's tone) to the pane's width less Indent+1 cells,
	// each piece indented by Indent spaces.
	Wrap   bool
	Indent int
	// JSON, when set instead of Cells, is a JSON object the stepper
	// lays out as key/value columns (a host's counters).
	JSON []byte
	// Member, when set, is the member the line is about: `W` on the line
	// explains how the host came to hold its view of it (causal.Explains).
	// Find is a debugger query ("type=state_transition host=a
	// subject=b to=suspect incarnation=3") for the record that brought
	// what the line shows: `w` on the line searches back for it; Follow
	// says in a few words what that is, for the status line.
	Member, Find, Follow string
}

// Cell is a run of text in one tone.
type Cell struct {
	Text string
	Tone hosts.Tone
}

// Cells is a Line of cells.
func Cells(cells ...Cell) Line { return Line{Cells: cells} }

// Text is a plain cell.
func Text(s string) Cell { return Cell{Text: s} }
