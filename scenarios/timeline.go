package scenarios

import (
	"cmp"
	"slices"
)

// Scheduled is one instant of a scenario's timeline that a runtime acts
// on: mutation Index (Snapshot false) or snapshot request Index (Snapshot
// true), at virtual time At.
type Scheduled struct {
	At       int64
	Snapshot bool
	Index    int
}

// Timeline lists the scenario's mutations and snapshot requests in the
// order the engine pops them: by time; at one instant mutations before
// snapshot requests; then in declared order. Real-time runtimes (live,
// the kernel testbed) apply them in this order so their runs line up
// with the simulator's.
func (s *Scenario) Timeline() []Scheduled {
	items := make([]Scheduled, 0, len(s.Mutations)+len(s.Snapshots))
	for i, m := range s.Mutations {
		items = append(items, Scheduled{At: m.At, Index: i})
	}
	for i, at := range s.Snapshots {
		items = append(items, Scheduled{At: at, Snapshot: true, Index: i})
	}
	slices.SortStableFunc(items, func(a, b Scheduled) int {
		if c := cmp.Compare(a.At, b.At); c != 0 {
			return c
		}
		if a.Snapshot != b.Snapshot {
			if a.Snapshot {
				return 1
			}
			return -1
		}
		return cmp.Compare(a.Index, b.Index)
	})
	return items
}
