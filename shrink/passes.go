package shrink

import (
	"fmt"
	"maps"
	"slices"

	"github.com/detsim/detsim/internal/vtime"
)

// passes lists the passes of one round, cheapest-to-run first: dropping
// the other assertions costs nothing, and a shorter run makes every later
// candidate cheaper.
func (s *shrinker) passes() []func() bool {
	return []func() bool{
		s.otherAssertions, s.duration, s.peers, s.mutations, s.links,
		s.linkFields, s.snapshots, s.peerFields, s.noise,
	}
}

// chunks removes entries of t[key] delta-debugging style: the whole list,
// then halves, quarters, … single entries, keeping each removal that
// still fails. edit builds the candidate without entries [lo, hi).
func (s *shrinker) chunks(pass, key string, edit func(t tree, lo, hi int) (tree, bool)) bool {
	changed := false
	for size := len(list(s.tree, key)); size >= 1 && !s.out(); size /= 2 {
		for lo := 0; lo < len(list(s.tree, key)) && !s.out(); {
			hi := min(lo+size, len(list(s.tree, key)))
			desc := "removed " + describeEntries(s.tree, key, lo, hi)
			if cand, ok := edit(s.tree, lo, hi); ok && s.try(pass, desc, cand) {
				changed = true
				continue // the next entries moved down to lo
			}
			lo = hi
		}
	}
	return changed
}

func (s *shrinker) removeEntries(key string) func(tree, int, int) (tree, bool) {
	return func(t tree, lo, hi int) (tree, bool) { return removeAt(t, key, lo, hi, s.target) }
}

func (s *shrinker) otherAssertions() bool {
	return s.chunks("assertions", "assertions", s.removeEntries("assertions"))
}

func (s *shrinker) mutations() bool {
	return s.chunks("mutations", "mutations", s.removeEntries("mutations"))
}

func (s *shrinker) snapshots() bool {
	return s.chunks("snapshots", "snapshots", s.removeEntries("snapshots"))
}

func (s *shrinker) peers() bool {
	return s.chunks("peers", "peers", func(t tree, lo, hi int) (tree, bool) {
		var ids []string
		for i := lo; i < hi; i++ {
			ids = append(ids, str(table(t, "peers", i)["id"]))
		}
		return removePeers(t, ids, s.target)
	})
}

// links first tries the full mesh of [default_link] instead of declared
// links, then removes declared links.
func (s *shrinker) links() bool {
	if _, has := s.tree["links"]; !has {
		return false
	}
	mesh := clone(s.tree).(tree)
	delete(mesh, "links")
	if s.try("links", "replaced every [[links]] entry by the full mesh of [default_link]", mesh) {
		return true
	}
	return s.chunks("links", "links", s.removeEntries("links"))
}

// linkFields removes each per-link override, so the link falls back to
// [default_link].
func (s *shrinker) linkFields() bool {
	changed := false
	for i := 0; i < len(list(s.tree, "links")) && !s.out(); i++ {
		l := table(s.tree, "links", i)
		for _, k := range slices.Sorted(maps.Keys(l)) {
			if k == "from" || k == "to" {
				continue
			}
			c := clone(s.tree).(tree)
			delete(table(c, "links", i), k)
			changed = s.try("links", fmt.Sprintf("%s→%s: dropped the %s override", str(l["from"]), str(l["to"]), k), c) || changed
		}
	}
	return changed
}

// peerFields removes each kind_config key and tick override of each peer,
// so it falls back to the kind's default.
func (s *shrinker) peerFields() bool {
	changed := false
	for i := 0; i < len(list(s.tree, "peers")) && !s.out(); i++ {
		p := table(s.tree, "peers", i)
		id := str(p["id"])
		if _, ok := p["tick_period_ns_override"]; ok {
			c := clone(s.tree).(tree)
			delete(table(c, "peers", i), "tick_period_ns_override")
			changed = s.try("peers", id+": dropped tick_period_ns_override", c) || changed
		}
		kc, _ := p["kind_config"].(map[string]any)
		for _, k := range slices.Sorted(maps.Keys(kc)) {
			c := clone(s.tree).(tree)
			ckc := table(c, "peers", i)["kind_config"].(map[string]any)
			delete(ckc, k)
			if len(ckc) == 0 {
				delete(table(c, "peers", i), "kind_config")
			}
			changed = s.try("kind_config", fmt.Sprintf("%s: dropped kind_config.%s", id, k), c) || changed
		}
	}
	return changed
}

// noiseKeys are the link fields noise lowers: randomness the failure may
// not need.
var noiseKeys = []string{"loss_prob_ppm", "jitter_stddev_ns", "reorder_prob_ppm"}

// noise lowers loss, jitter and reordering in [default_link] and every
// link: to 0 if the failure survives that, else halving while it does.
func (s *shrinker) noise() bool {
	changed := false
	lower := func(where string, get func(t tree) map[string]any) {
		for _, k := range noiseKeys {
			for !s.out() {
				v, ok := integer(get(s.tree)[k])
				if !ok || v == 0 {
					break
				}
				zero := clone(s.tree).(tree)
				get(zero)[k] = int64(0)
				if s.try("noise", fmt.Sprintf("%s.%s %d → 0", where, k, v), zero) {
					changed = true
					break
				}
				half := clone(s.tree).(tree)
				get(half)[k] = v / 2
				if v/2 == 0 || !s.try("noise", fmt.Sprintf("%s.%s %d → %d", where, k, v, v/2), half) {
					break
				}
				changed = true
			}
		}
	}
	lower("default_link", func(t tree) map[string]any { return t["default_link"].(map[string]any) })
	for i := 0; i < len(list(s.tree, "links")) && !s.out(); i++ {
		l := table(s.tree, "links", i)
		lower(str(l["from"])+"→"+str(l["to"]), func(t tree) map[string]any { return table(t, "links", i) })
	}
	return changed
}

// duration shortens the run: first to just past the moment the assertion
// failed, rounded up, then by bisection between a length known not to
// fail and one known to.
func (s *shrinker) duration() bool {
	d, _ := integer(s.tree["duration_ns"])
	unit := int64(1_000_000) // 1 ms
	if d >= 10_000_000_000 {
		unit = 1_000_000_000 // 1 s
	}
	roundUp := func(x int64) int64 { return (x + unit - 1) / unit * unit }
	try := func(to int64) bool {
		return s.try("duration", fmt.Sprintf("%s → %s", vtime.Compact(d), vtime.Compact(to)), setDuration(s.tree, to, s.reg))
	}
	lo, hi := int64(0), d
	if g := roundUp(s.failAt + 1); g < d {
		if try(g) {
			return true
		}
		lo = g
	}
	changed := false
	for hi-lo > unit && !s.out() {
		mid := roundUp(lo + (hi-lo)/2)
		if mid >= hi || mid <= lo {
			break
		}
		if try(mid) {
			hi, changed = mid, true
			d = mid
		} else {
			lo = mid
		}
	}
	return changed
}
