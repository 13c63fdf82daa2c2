package agent

import (
	"slices"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/hosts/kindcfg"
	"github.com/detsim/detsim/rng"
)

// FaultStoreWrite is the harness fault of the agent's catalog: the
// session store fails some write attempts (store_fail_writes).
const FaultStoreWrite = "store_write_fail"

// Catalog is the agent's fault catalog for seeded fault schedules
// (docs/sweeps.md, [space.faults]): one place, the session store, unless
// the config already schedules store failures. store_write_fail makes 1
// to 3 distinct write attempts among the first 24 fail; with
// store_write_retries (default 3) most are retried through, and a run of
// consecutive failures ends the episode failed (store_unavailable).
var Catalog = &hosts.FaultCatalog{
	Kinds:  []string{FaultStoreWrite},
	Places: func(map[string]any) int { return 1 },
	Fits: func(config map[string]any, place int, kind string) bool {
		_, has := config["store_fail_writes"]
		return place == 0 && kind == FaultStoreWrite && !has
	},
	Apply: func(config map[string]any, _ int, _ string, r *rng.Stream) map[string]any {
		out := kindcfg.Clone(config)
		n := 1 + int(r.Below(3))
		var ws []int64
		for len(ws) < n {
			w := 1 + int64(r.Below(24))
			if !slices.Contains(ws, w) {
				ws = append(ws, w)
			}
		}
		slices.Sort(ws)
		list := make([]any, len(ws))
		for i, w := range ws {
			list[i] = w
		}
		out["store_fail_writes"] = list
		return out
	},
}
