package shrink

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/vtime"
	"github.com/detsim/detsim/scenarios"
)

// An edit is one candidate change: it returns the changed copy of a tree
// and a description, or ok = false when it does not apply (or would
// remove the assertion being shrunk for).

// removePeers removes the peers with the given ids and every reference to
// them. It refuses to remove the target assertion.
func removePeers(t tree, ids []string, target string) (tree, bool) {
	c := clone(t).(tree)
	gone := func(id string) bool { return slices.Contains(ids, id) }

	var peers []any
	for _, p := range list(c, "peers") {
		pm := p.(map[string]any)
		if gone(str(pm["id"])) {
			continue
		}
		if kc, ok := pm["kind_config"].(map[string]any); ok {
			scrubIDs(kc, gone)
		}
		peers = append(peers, pm)
	}
	if len(peers) == 0 {
		return nil, false
	}
	setList(c, "peers", peers)

	if _, has := c["links"]; has {
		var links []any
		for _, l := range list(c, "links") {
			lm := l.(map[string]any)
			if !gone(str(lm["from"])) && !gone(str(lm["to"])) {
				links = append(links, lm)
			}
		}
		setList(c, "links", links)
	}

	var muts []any
	for _, m := range list(c, "mutations") {
		if keepMutation(m.(map[string]any), gone) {
			muts = append(muts, m)
		}
	}
	setList(c, "mutations", muts)

	var asserts []any
	for _, a := range list(c, "assertions") {
		am := a.(map[string]any)
		if keepAssertion(am, gone) {
			asserts = append(asserts, am)
		} else if str(am["name"]) == target {
			return nil, false
		}
	}
	setList(c, "assertions", asserts)
	return c, true
}

// scrubIDs removes removed peer ids from every list of strings in a
// kind_config (SWIM's seeds, say); the kind's validation then judges the
// result.
func scrubIDs(kc map[string]any, gone func(string) bool) {
	for _, k := range slices.Sorted(maps.Keys(kc)) {
		l, ok := kc[k].([]any)
		if !ok {
			continue
		}
		kc[k] = slices.DeleteFunc(l, func(e any) bool { s, ok := e.(string); return ok && gone(s) })
	}
}

// keepMutation trims removed peers out of a mutation and says whether
// anything of it is left.
func keepMutation(m map[string]any, gone func(string) bool) bool {
	if gone(str(m["peer"])) {
		return false
	}
	for _, side := range []string{"peers_a", "peers_b"} {
		if l, ok := m[side].([]any); ok {
			l = slices.DeleteFunc(l, func(e any) bool { return gone(str(e)) })
			if len(l) == 0 {
				return false
			}
			m[side] = l
		}
	}
	if l, ok := m["links"].([]any); ok {
		l = slices.DeleteFunc(l, func(e any) bool {
			em, _ := e.(map[string]any)
			return gone(str(em["from"])) || gone(str(em["to"]))
		})
		if len(l) == 0 {
			return false
		}
		m["links"] = l
	}
	return true
}

// keepAssertion trims removed peers out of an assertion and says whether
// it still makes sense.
func keepAssertion(a map[string]any, gone func(string) bool) bool {
	if gone(str(a["peer"])) {
		return false
	}
	if l, ok := a["peers"].([]any); ok {
		l = slices.DeleteFunc(l, func(e any) bool { return gone(str(e)) })
		if len(l) == 0 {
			return false
		}
		a["peers"] = l
	}
	return true
}

// removeAt removes the entries [lo, hi) of t[key]. It refuses to remove
// the target assertion.
func removeAt(t tree, key string, lo, hi int, target string) (tree, bool) {
	c := clone(t).(tree)
	l := list(c, key)
	if key == "assertions" {
		for _, a := range l[lo:hi] {
			if str(a.(map[string]any)["name"]) == target {
				return nil, false
			}
		}
	}
	setList(c, key, slices.Delete(l, lo, hi))
	return c, true
}

// setDuration sets duration_ns to d and pulls everything timed into the
// shorter run: later mutations and snapshots go, assertion times and
// windows are clamped to d.
func setDuration(t tree, d int64, reg *hosts.Registry) tree {
	c := clone(t).(tree)
	c["duration_ns"] = d
	for _, key := range []string{"mutations", "snapshots"} {
		l := slices.DeleteFunc(list(c, key), func(e any) bool {
			at, _ := integer(e.(map[string]any)["at_ns"])
			return at > d
		})
		setList(c, key, l)
	}
	for _, a := range list(c, "assertions") {
		am := a.(map[string]any)
		kind, ok := scenarios.LookupAssertionKind(reg, str(am["kind"]))
		if !ok {
			continue
		}
		for _, p := range kind.Params {
			if p.Type != scenarios.ParamTime && p.Type != scenarios.ParamSpan {
				continue
			}
			if v, ok := integer(am[p.Key]); ok && v > d {
				am[p.Key] = d
			}
		}
	}
	return c
}

// describeEntries names the entries [lo, hi) of t[key] for a report.
func describeEntries(t tree, key string, lo, hi int) string {
	var parts []string
	for i := lo; i < hi; i++ {
		m := table(t, key, i)
		switch key {
		case "peers":
			parts = append(parts, str(m["id"]))
		case "links":
			parts = append(parts, str(m["from"])+"→"+str(m["to"]))
		case "assertions":
			parts = append(parts, str(m["name"]))
		case "mutations":
			d := fmt.Sprintf("#%d %s", i, str(m["kind"]))
			if p := str(m["peer"]); p != "" {
				d += " " + p
			}
			parts = append(parts, d)
		case "snapshots":
			at, _ := integer(m["at_ns"])
			parts = append(parts, "@"+vtime.Compact(at))
		}
	}
	return strings.Join(parts, ", ")
}
