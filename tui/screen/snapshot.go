package screen

import (
	"bytes"
	"encoding/json"

	"github.com/detsim/detsim/engine"
)

// swimSnap is the part of a SWIM host's introspection JSON the stepper
// shows (hosts/swim/snapshot.go writes it; docs/swim.md describes it).
type swimSnap struct {
	Self           string       `json:"self"`
	Incarnation    uint64       `json:"incarnation"`
	Health         int64        `json:"health"`
	HealthMax      int64        `json:"health_max"`
	Gossip         string       `json:"gossip"`
	Joined         bool         `json:"joined"`
	Members        []swimMember `json:"members"`
	BroadcastQueue struct {
		Depth     int64 `json:"depth"`
		Bytes     int64 `json:"bytes"`
		Oversized int64 `json:"oversized"`
	} `json:"broadcast_queue"`
	Probe struct {
		Round       uint64 `json:"round"`
		Position    int64  `json:"position"`
		RoundLength int64  `json:"round_length"`
		NextProbeNs int64  `json:"next_probe_ns"`
		Target      string `json:"target"`
		Seq         uint64 `json:"seq"`
	} `json:"probe"`
	Counters json.RawMessage `json:"counters"`
}

type swimMember struct {
	ID                  string   `json:"id"`
	State               string   `json:"state"`
	Incarnation         uint64   `json:"incarnation"`
	SuspicionDeadlineNs *int64   `json:"suspicion_deadline_ns"`
	Confirmations       int64    `json:"confirmations"`
	Accusers            []string `json:"accusers"`
}

// cell is one observer's view of one subject in the membership matrix.
type cell struct {
	state byte // 'A', 'S', 'D'; 0 when the observer does not know the subject
	inc   uint64
}

func stateLetter(s string) byte {
	switch s {
	case "alive":
		return 'A'
	case "suspect":
		return 'S'
	case "dead":
		return 'D'
	}
	return 0
}

// HostRow is one host as a frame holds it: the engine's view of it, its
// snapshot parsed once, and what the last step changed.
type HostRow struct {
	idx  int // index in the peer list
	view engine.HostView
	swim *swimSnap // nil unless the snapshot has SWIM's shape
	kv   []kv      // any other snapshot, flattened
	// cells is the SWIM view indexed by peer index (nil for non-SWIM).
	cells []cell
	// changed marks cells (SWIM) or kv entries (other kinds) that differ
	// from the state before the last step; nil when nothing is known.
	changed   []bool
	kvChanged []bool
	// stateChanged: the engine-level state (running/killed/halted) moved.
	stateChanged bool
}

// Self is the id the host's SWIM snapshot names as its own, "" when the
// snapshot does not have SWIM's shape.
func (r *HostRow) Self() string {
	if r.swim == nil {
		return ""
	}
	return r.swim.Self
}

// Cell is the host's view of the subject at display position j: 'A',
// 'S' or 'D' and the incarnation, state 0 when it does not know it (or
// its snapshot is not SWIM's).
func (r *HostRow) Cell(j int) (state byte, inc uint64) {
	if j < 0 || j >= len(r.cells) {
		return 0, 0
	}
	return r.cells[j].state, r.cells[j].inc
}

// parseRow builds a row from a host view; peerIdx maps ids to indices.
func parseRow(idx int, v engine.HostView, peerIdx func(id string) (int, bool), npeers int) *HostRow {
	r := &HostRow{idx: idx, view: v}
	if len(v.Snapshot) == 0 {
		return r
	}
	if bytes.Contains(v.Snapshot, []byte(`"members"`)) {
		var s swimSnap
		if err := json.Unmarshal(v.Snapshot, &s); err == nil && s.Self != "" && s.Members != nil {
			r.swim = &s
			r.cells = make([]cell, npeers)
			for _, m := range s.Members {
				if i, ok := peerIdx(m.ID); ok {
					r.cells[i] = cell{state: stateLetter(m.State), inc: m.Incarnation}
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
