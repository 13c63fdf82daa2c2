package swimhost

import (
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/kinds/swim/swim"
)

// initialRun is a node's start-up view as one hosts.Folded record: the
// state_transitions (reason "initial") its first call emits, one per
// member it knows and in id order, that share everything but the
// subject. A 1000-peer run's nodes start with 10⁶ of them, more than half
// its records; a bundle writer that takes folds writes each node's as one
// line, which every reader expands back into the transitions
// (docs/bundle.md, "Folded lines"). The judge and every other reader of
// records are handed the transitions one by one, as before.
type initialRun struct {
	evs []*swim.StateTransition
}

// joins reports whether st continues the run: the next member's initial
// transition, differing from the first only in its subject.
func (r *initialRun) joins(st *swim.StateTransition) bool {
	f := r.evs[0]
	return st.Observer == f.Observer && st.From == f.From && st.To == f.To &&
		st.Incarnation == f.Incarnation && st.Reason == f.Reason
}

func (r *initialRun) Type() string                 { return r.evs[0].Type() }
func (r *initialRun) AppendJSON(dst []byte) []byte { return r.evs[0].AppendJSON(dst) }
func (r *initialRun) Len() int                     { return len(r.evs) }
func (r *initialRun) At(i int) hosts.Event         { return r.evs[i] }
func (r *initialRun) FoldMember() string           { return "subject" }
func (r *initialRun) FoldValue(i int) string       { return r.evs[i].Subject }

// record appends e to the call's actions, folding a node's initial
// transitions into runs.
func (h *host) record(e swim.Event) {
	st, ok := e.(*swim.StateTransition)
	if !ok || st.Reason != swim.ReasonInitial {
		h.acts = append(h.acts, hosts.Record(e))
		return
	}
	if n := len(h.acts); n > 0 {
		if r, ok := h.acts[n-1].Event().(*initialRun); ok && r.joins(st) {
			r.evs = append(r.evs, st)
			return
		}
	}
	r := &initialRun{evs: make([]*swim.StateTransition, 1, max(h.startup, 1))}
	h.startup = 0
	r.evs[0] = st
	h.acts = append(h.acts, hosts.Record(r))
}
