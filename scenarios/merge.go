package scenarios

import (
	"maps"
	"slices"
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
// or any part of one).
func CloneTree(v any) any { return clone(v) }

// clone deep-copies a decoded TOML value.
func clone(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for _, k := range slices.Sorted(maps.Keys(x)) {
			out[k] = clone(x[k])
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = clone(e)
		}
		return out
	}
	return v
}
