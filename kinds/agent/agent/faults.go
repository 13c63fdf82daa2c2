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
// the config already schedules store failures. store_write_fail draws
// one of four shapes, evenly: 1, 2 or 3 distinct write attempts among
// the first 24 fail (store_write_retries, default 3, retries most of them
// through), or the store is exhausted: store_write_retries + 1
// consecutive attempts from one among the first 24 fail, so one record
// is refused through every retry and the episode stops
// (store_unavailable) with every effect still settled and reported.
var Catalog = &hosts.FaultCatalog{
	Kinds:  []string{FaultStoreWrite},
	Places: func(map[string]any) int { return 1 },
	Fits: func(config map[string]any, place int, kind string) bool {
		_, has := config["store_fail_writes"]
		return place == 0 && kind == FaultStoreWrite && !has
	},
	Apply: func(config map[string]any, _ int, _ string, r *rng.Stream) map[string]any {
		out := kindcfg.Clone(config)
		var ws []int64
		if n := int(r.Below(4)); n < 3 {
			for len(ws) < n+1 {
				w := 1 + int64(r.Below(24))
				if !slices.Contains(ws, w) {
					ws = append(ws, w)
				}
			}
		} else {
			cfg, _ := parse(config, nil)
			first := 1 + int64(r.Below(24))
			for w := first; w <= first+cfg.storeWriteRetries; w++ {
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
