package swimhost

import (
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/kinds/swim/swim"
)

// StartView makes host a swim.ViewOutput: a node's start-up view comes
// whole, and each run of members that start alike becomes one
// hosts.Folded record (initialRun) rather than one state_transition per
// member. A 1000-peer run's nodes start with 10⁶ of them, more than half
// its records; a bundle writer that takes folds writes each run as one
// line, which every reader expands back into the transitions
// (docs/bundle.md, "Folded lines"), and the judge and every other reader
// of records are handed the transitions one by one, as before.
func (h *host) StartView(v swim.StartView) {
	for _, r := range v.Runs {
		h.acts = append(h.acts, hosts.Record(&initialRun{view: v, run: r}))
	}
}

// initialRun is one run of a node's initial transitions (reason
// "initial"): members in id order that start in the same state and
// incarnation, so their transitions differ only in their subject.
type initialRun struct {
	view swim.StartView
	run  swim.StartRun
	cur  swim.StateTransition // At's value, reused from call to call
}

func (r *initialRun) Type() string                 { return (*swim.StateTransition)(nil).Type() }
func (r *initialRun) AppendJSON(dst []byte) []byte { return r.At(0).AppendJSON(dst) }
func (r *initialRun) Len() int                     { return r.run.To - r.run.From }
func (r *initialRun) FoldMember() string           { return "subject" }
func (r *initialRun) FoldValue(i int) string       { return r.view.Subject(r.run.From + i) }

// At is the run's i-th transition. The value is reused by the next call
// (hosts.Folded).
func (r *initialRun) At(i int) hosts.Event {
	r.view.Transition(r.run, r.run.From+i, &r.cur)
	return &r.cur
}
