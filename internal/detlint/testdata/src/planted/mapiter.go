package planted

import (
	"maps"
	"slices"
)

func keys(m map[string]int) []string {
	var out []string
	for k := range maps.Keys(m) { // want `detlint\(mapiter\): maps.Keys yields in random order \(pass it directly to slices.Sorted`
		out = append(out, k)
	}
	vals := slices.Collect(maps.Values(m)) // want `detlint\(mapiter\): maps.Values`
	slices.Sort(vals)
	all := maps.All(m) // want `detlint\(mapiter\): maps.All`
	_ = all
	return out
}
