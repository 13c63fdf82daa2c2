package scenarios

import (
	"slices"
	"testing"

	"github.com/detsim/detsim/network"
)

// TestTimeline_EngineOrder: by time; at one instant mutations before
// snapshot requests; then declared order (spec §4.1's sequence numbers:
// the engine enqueues mutations before snapshots).
func TestTimeline_EngineOrder(t *testing.T) {
	sc := &Scenario{
		Mutations: []network.Mutation{{At: 50}, {At: 10}, {At: 50}},
		Snapshots: []int64{50, 10, 5},
	}
	want := []Scheduled{
		{At: 5, Snapshot: true, Index: 2},
		{At: 10, Index: 1},
		{At: 10, Snapshot: true, Index: 1},
		{At: 50, Index: 0},
		{At: 50, Index: 2},
		{At: 50, Snapshot: true, Index: 0},
	}
	if got := sc.Timeline(); !slices.Equal(got, want) {
		t.Errorf("Timeline() =\n%v\nwant\n%v", got, want)
	}
}
