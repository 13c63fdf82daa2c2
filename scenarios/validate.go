package scenarios

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/network"
)

// topKeys are the keys a merged scenario may hold at the top level
// ([base] has been consumed by then).
var topKeys = []string{
	"name", "seed", "duration_ns", "early_terminate_on_all_assertions_resolved",
	"default_tick", "default_link", "peers", "links", "mutations", "snapshots", "assertions",
}

// checker validates one merged scenario tree, filling a Scenario as it
// goes. Every check runs even after others failed, so one load reports
// every problem.
type checker struct {
	r        report
	reg      *hosts.Registry
	s        *Scenario
	duration int64           // 0 when duration_ns is missing or invalid: end-of-run checks are skipped
	ids      []string        // declared peer ids with a valid, unique id, sorted
	declared map[string]bool // the same ids as a set
	// peersRead is false when [[peers]] as a whole could not be read
	// (missing, not a list, empty, over the limit): then no id is
	// declared, and a reference to a peer is not reported as undeclared,
	// which would bury the one real error under a line per reference.
	peersRead bool
	edgesOK   bool // s.Links is exactly the scenario's link graph
}

// validate checks the merged tree against the schema (spec §8) and
// returns the scenario it describes; the caller discards it if any error
// was reported.
func validate(r report, tree map[string]any, reg *hosts.Registry) *Scenario {
	if reg == nil {
		reg = hosts.NewRegistry()
	}
	c := &checker{r: r, reg: reg, s: &Scenario{}, declared: map[string]bool{}}
	top := fields{r: r, tbl: tree}
	top.checkKeys(topKeys...)

	if name, ok := top.str("name", true); ok {
		checkScenarioName(top, name)
		c.s.Name = name
	}
	if seed, ok := top.integer("seed", 0, MaxSeed, false); ok {
		c.s.Seed = uint64(seed)
	}
	if d, ok := top.integer("duration_ns", 1, MaxTimeNs, true); ok {
		c.duration = d
		c.s.DurationNs = d
	}
	c.s.EarlyTerminate, _ = top.boolean("early_terminate_on_all_assertions_resolved")

	if tick, ok := top.table("default_tick", true); ok {
		f := fields{r: r, prefix: "default_tick.", tbl: tick}
		f.checkKeys("period_ns")
		c.s.TickPeriodNs, _ = f.integer("period_ns", 1, MaxTimeNs, true)
	}
	if link, ok := top.table("default_link", true); ok {
		f := fields{r: r, prefix: "default_link.", tbl: link}
		f.checkKeys(policyKeys()...)
		c.s.DefaultLink = network.Policy{CacheInvalidateAfterIdleNs: DefaultIdleNs, SendBufferBytes: DefaultSendBufferBytes, MTUBytes: DefaultMTUBytes}
		readPolicy(f, &c.s.DefaultLink)
		if !f.has("bandwidth_bps") {
			f.add("bandwidth_bps", "missing (required: bytes per second, > 0)")
		}
	}

	c.peers(top)
	c.links(top)
	c.mutations(top)
	c.snapshots(top)
	c.assertions(top)
	return c.s
}

// checkName rejects names that would garble a terminal line or a report.
func (c *checker) checkName(f fields, key, name string) {
	if len(name) > MaxNameBytes {
		f.add(key, "is %d bytes; at most %d are allowed", len(name), MaxNameBytes)
	}
	if strings.ContainsFunc(name, unicode.IsControl) {
		f.add(key, "must not contain control characters")
	}
}

// checkScenarioName requires [A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}: the name
// becomes a path element (bundles/<name>-<seed>, <name>-shrunk.toml), so
// it must be one visible element that cannot climb out of the output
// directory ("." and ".." start with a dot; no separator of any OS) and
// keeps the default path short. It is validated, never rewritten: the
// merged scenario.toml must carry the name the user wrote.
func checkScenarioName(f fields, name string) {
	switch {
	case name == "":
		f.add("name", "must not be empty")
		return
	case len(name) > MaxScenarioNameBytes:
		f.add("name", "is %d bytes; a scenario name is at most %d (it names the bundle directory bundles/<name>-<seed>)", len(name), MaxScenarioNameBytes)
		return
	case name[0] == '.':
		f.add("name", "%q must not start with '.' (no \".\", \"..\" or hidden names)", name)
		return
	}
	for _, ch := range name {
		if ch >= 0x80 || !hosts.PeerIDByte(byte(ch)) && ch != '.' {
			f.add("name", "%q: %q is not allowed (a scenario name is 1 to %d of A-Z a-z 0-9 _ - . and names the bundle directory)", name, ch, MaxScenarioNameBytes)
			return
		}
	}
}

// atTime reads key as a point in virtual time within the run.
func (c *checker) atTime(f fields, key string, required bool) (int64, bool) {
	v, ok := f.integer(key, 0, MaxTimeNs, required)
	if ok && c.duration > 0 && v > c.duration {
		f.add(key, "%d is after the end of the run (duration_ns = %d)", v, c.duration)
		return 0, false
	}
	return v, ok
}

// peerRef reads key as the id of a declared peer.
func (c *checker) peerRef(f fields, key string) (string, bool) {
	id, ok := f.str(key, true)
	if !ok {
		return "", false
	}
	if !c.declared[id] {
		if c.peersRead {
			f.add(key, "undeclared peer %q", id)
		}
		return "", false
	}
	return id, true
}

// peerList reads key as a non-empty array of distinct declared peer ids.
func (c *checker) peerList(f fields, key string, required bool) ([]string, bool) {
	raw, present := f.tbl[key]
	if !present {
		if required {
			f.add(key, "missing (required: an array of peer ids)")
		}
		return nil, false
	}
	arr, isArr := raw.([]any)
	if !isArr {
		f.add(key, "must be an array of peer ids, got %s", describe(raw))
		return nil, false
	}
	if len(arr) == 0 {
		f.add(key, "must name at least one peer")
		return nil, false
	}
	ids := make([]string, 0, len(arr))
	seen := make(map[string]bool, len(arr))
	ok := true
	for i, e := range arr {
		id, isStr := e.(string)
		switch {
		case !isStr:
			f.add(key, "element %d must be a peer id string, got %s", i, describe(e))
			ok = false
		case !c.declared[id]:
			if c.peersRead {
				f.add(key, "undeclared peer %q", id)
			}
			ok = false
		case seen[id]:
			f.add(key, "peer %q is listed twice", id)
			ok = false
		default:
			seen[id] = true
			ids = append(ids, id)
		}
	}
	return ids, ok
}

// entryLabel names the i-th entry of a list keyed by a user-chosen string
// (peer id, assertion name): "peers[a]" when the key is usable, else
// "peers[#3]" ('#' never appears in a peer id).
func entryLabel(list, key string, i int) string {
	if key != "" {
		return list + "[" + key + "]"
	}
	return fmt.Sprintf("%s[#%d]", list, i)
}
