package scenarios

import (
	"maps"
	"slices"

	"github.com/detsim/detsim/hosts"
)

// listKeys names the [[arrays]] whose entries a child merges into its
// parent's by key (DESIGN §4 "Scenario format"); every other array, the
// [[mutations]] and [[snapshots]] included, is a leaf the child replaces.
var listKeys = map[string]func(entry map[string]any) (string, bool){
	"peers": func(e map[string]any) (string, bool) {
		id, ok := e["id"].(string)
		return id, ok
	},
	"links": func(e map[string]any) (string, bool) {
		from, ok1 := e["from"].(string)
		to, ok2 := e["to"].(string)
		return from + "\x00" + to, ok1 && ok2
	},
	"assertions": func(e map[string]any) (string, bool) {
		name, ok := e["name"].(string)
		return name, ok
	},
}

// mergeScenario merges a child scenario tree over its parent's: tables
// merge deeply with the child winning at the leaf, and the lists named in
// listKeys merge entry by entry.
func mergeScenario(parent, child map[string]any) map[string]any {
	out := deepMerge(parent, child)
	for _, k := range slices.Sorted(maps.Keys(listKeys)) {
		p, okP := parent[k].([]any)
		c, okC := child[k].([]any)
		if okP && okC {
			out[k] = mergeList(p, c, listKeys[k])
		}
	}
	return out
}

// mergeList merges child entries into the parent's last entry with the
// same key, and appends the rest in order. A key that a child lists twice
// merges only once; the second entry is appended, so that within one file
// a later entry still comes later (and a duplicate peer id or assertion
// name still reaches validation).
func mergeList(parent, child []any, key func(map[string]any) (string, bool)) []any {
	out := make([]any, len(parent), len(parent)+len(child))
	last := make(map[string]int, len(parent))
	for i, e := range parent {
		out[i] = clone(e)
		if t, ok := e.(map[string]any); ok {
			if k, ok := key(t); ok {
				last[k] = i
			}
		}
	}
	used := make(map[string]bool, len(child))
	for _, e := range child {
		t, isTable := e.(map[string]any)
		if !isTable {
			out = append(out, clone(e))
			continue
		}
		k, hasKey := key(t)
		if i, found := last[k]; hasKey && found && !used[k] {
			if pt, ok := out[i].(map[string]any); ok {
				out[i] = deepMerge(pt, t)
			} else {
				out[i] = clone(t)
			}
			used[k] = true
			continue
		}
		if hasKey {
			used[k] = true
		}
		out = append(out, clone(t))
	}
	return out
}

// deepMerge returns a new table: parent's keys, with child's merged over
// them — recursively where both sides are tables, replaced otherwise.
func deepMerge(parent, child map[string]any) map[string]any {
	out := clone(parent).(map[string]any)
	for _, k := range slices.Sorted(maps.Keys(child)) {
		pt, okP := out[k].(map[string]any)
		ct, okC := child[k].(map[string]any)
		if okP && okC {
			out[k] = deepMerge(pt, ct)
			continue
		}
		out[k] = clone(child[k])
	}
	return out
}

// CloneTree deep-copies a decoded TOML value (a tree DecodeTree returned,
// or any part of one): hosts.CloneTree, which copies kind_configs too.
func CloneTree(v any) any { return hosts.CloneTree(v) }

// clone deep-copies a decoded TOML value.
func clone(v any) any { return hosts.CloneTree(v) }

// chainLimits are the bounds on keyed lists that extends merge. They are
// checked while the chain is read, child first, so a chain whose files
// each stay under a bound but together pass it is refused at the file
// where that becomes certain: the rest of the chain is never read, and
// nothing is merged or validated (issue 9). Validation checks the
// merged list exactly afterwards.
var chainLimits = [...]struct {
	key  string
	max  int
	what string
}{
	{"peers", MaxPeers, "peers"},
	{"links", MaxLinkEntries, "[[links]] entries"},
}

// listCount is a lower bound on the length of one merged list, over the
// files of a chain read so far. A merged list is at least as long as any
// one file's list (a child's entries merge at most once each into the
// parent's), and holds at least one entry per distinct key plus every
// entry without a key (those are only ever appended).
type listCount struct {
	keys    map[string]bool
	unkeyed int
	longest int // the longest single file's list
}

func (lc *listCount) add(list []any, key func(map[string]any) (string, bool)) int {
	if lc.keys == nil {
		lc.keys = map[string]bool{}
	}
	lc.longest = max(lc.longest, len(list))
	for _, e := range list {
		t, ok := e.(map[string]any)
		if !ok {
			lc.unkeyed++
			continue
		}
		if k, ok := key(t); ok {
			lc.keys[k] = true
		} else {
			lc.unkeyed++
		}
	}
	return max(lc.longest, len(lc.keys)+lc.unkeyed)
}

// withinLimits counts the lists of the file name (decoded as tree) into
// the chain's counts and reports, against the file run, any chainLimits
// bound that the merged scenario is now certain to pass.
func (p *parser) withinLimits(name string, tree map[string]any) bool {
	ok := true
	for i, l := range chainLimits {
		list, isList := tree[l.key].([]any)
		if !isList {
			continue // not a list: validation says so
		}
		n := p.counts[i].add(list, listKeys[l.key])
		if n <= l.max {
			continue
		}
		r := report{file: p.top, errs: p.errs}
		if name == p.top {
			r.add(l.key, "%d %s declared; at most %d are supported", n, l.what, l.max)
		} else {
			r.add(l.key, "at least %d %s once extends are merged (counted as far as %s); at most %d are supported", n, l.what, name, l.max)
		}
		ok = false
	}
	return ok
}
