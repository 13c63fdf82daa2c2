package mlevents

import (
	"encoding/json"
	"maps"
	"slices"

	"github.com/hashicorp/memberlist"
)

// Implementation names the SWIM the witness and memberlistd run, in
// snapshots and manifests.
const Implementation = "hashicorp/memberlist v0.7.0"

// Snapshot is node's tier-2 snapshot: memberlist's own state, in the
// witness's shape rather than kinds/swim/swim's (memberlist has no broadcast
// queue or suspicion timers to show through its API): the implementation,
// the node, its Lifeguard health score and every member it holds, sorted
// by id, with state and incarnation. Like ReadView it takes memberlist's
// locks.
func Snapshot(node string, m *memberlist.Memberlist) []byte {
	type member struct {
		ID          string `json:"id"`
		State       string `json:"state"`
		Incarnation uint64 `json:"incarnation"`
	}
	v := ReadView(m)
	snap := struct {
		Implementation string   `json:"implementation"`
		Node           string   `json:"node"`
		Health         int      `json:"health"`
		Members        []member `json:"members"`
	}{Implementation: Implementation, Node: node, Health: m.GetHealthScore()}
	for _, name := range slices.Sorted(maps.Keys(v)) {
		snap.Members = append(snap.Members, member{name, v[name].State.String(), v[name].Inc})
	}
	data, _ := json.MarshalIndent(snap, "", "  ") // strings and integers: cannot fail
	return append(data, '\n')
}
