package screen

import (
	"bytes"

	"github.com/detsim/detsim/engine"
	"github.com/detsim/detsim/hosts"
)

// cell is one observer's view of one subject in the matrix, as the
// kind's Views declare it.
type cell struct {
	state byte // the state's letter ('A'); 0 when the observer does not know the subject
	tone  hosts.Tone
	inc   uint64
}

// HostRow is one host as a frame holds it: the engine's view of it, its
// snapshot parsed once, and what the last step changed.
type HostRow struct {
	idx  int // index in the peer list
	view engine.HostView
	kind hosts.Kind // the host's kind; nil when not registered
	self string     // the id the host's views name as its own; "" when its kind has no views
	kv   []kv       // a snapshot without views, flattened
	// cells is the host's views indexed by peer index (nil without).
	cells []cell
	// changed marks cells (views) or kv entries (other kinds) that differ
	// from the state before the last step; nil when nothing is known.
	changed   []bool
	kvChanged []bool
	// before is the host's snapshot before the last step when it
	// differs (the kind's pane marks what changed), else nil.
	before []byte
	// stateChanged: the engine-level state (running/killed/halted) moved.
	stateChanged bool
}

// Self is the id the host's views name as its own, "" when its kind
// declares no views (hosts.Lanes).
func (r *HostRow) Self() string { return r.self }

// Cell is the host's view of the subject at display position j: the
// state's letter ('A') and the version, state 0 when it does not know
// it (or its kind declares no views).
func (r *HostRow) Cell(j int) (state byte, inc uint64) {
	if j < 0 || j >= len(r.cells) {
		return 0, 0
	}
	return r.cells[j].state, r.cells[j].inc
}

// parseRow builds a row from a host view; peerIdx maps ids to indices.
// A host whose kind declares views has cells; any other, its snapshot
// flattened.
func parseRow(idx int, v engine.HostView, peerIdx func(id string) (int, bool), npeers int, kinds *hosts.Registry) *HostRow {
	r := &HostRow{idx: idx, view: v}
	if kinds != nil {
		r.kind, _ = kinds.Lookup(v.Kind)
	}
	if len(v.Snapshot) == 0 {
		return r
	}
	if vs := hosts.ViewsOf(r.kind); vs != nil && vs.Of != nil {
		if self, views, ok := vs.Of(v.Snapshot); ok {
			r.self = self
			r.cells = make([]cell, npeers)
			for _, m := range views {
				if i, ok := peerIdx(m.Member); ok {
					st, _ := vs.StateNamed(m.State)
					r.cells[i] = cell{state: st.Letter, tone: st.Tone, inc: m.Version}
				}
			}
			return r
		}
	}
	r.kv, _ = flattenJSON(v.Snapshot)
	return r
}

// diffRow marks what changed in cur relative to the same host before the
// last step.
func diffRow(cur, before *HostRow) {
	if before == nil {
		return
	}
	v, b := cur.view, before.view
	cur.stateChanged = v.State != b.State || v.TickHalted != b.TickHalted || v.RecvHalted != b.RecvHalted || v.Lives != b.Lives || v.Paused != b.Paused
	if bytes.Equal(v.Snapshot, b.Snapshot) {
		return
	}
	cur.before = b.Snapshot
	if cur.cells != nil && before.cells != nil {
		cur.changed = make([]bool, len(cur.cells))
		for i := range cur.cells {
			cur.changed[i] = cur.cells[i] != before.cells[i]
		}
		return
	}
	if cur.kv != nil {
		old := make(map[string]string, len(before.kv))
		for _, e := range before.kv {
			old[e.k] = e.v
		}
		cur.kvChanged = make([]bool, len(cur.kv))
		for i, e := range cur.kv {
			ov, ok := old[e.k]
			cur.kvChanged[i] = !ok || ov != e.v
		}
	}
}
