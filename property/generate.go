package property

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/BurntSushi/toml"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/rng"
	"github.com/detsim/detsim/scenarios"
)

// Point is one point of a property's space: every drawn value.
type Point struct {
	Seed       uint64
	Peers      []string // p0 … p<n-1>
	DurationNs int64
	// Pairs holds, for every unordered pair in order (p0,p1), (p0,p2), …,
	// (p1,p2), …, the drawn Space.Links values, in Space.Links order. Both
	// directions of the pair get them.
	Pairs []Pair
	// KindConfig holds the drawn Space.KindConfig values, in its order.
	KindConfig []int64
}

// Pair is the drawn link policy of one unordered pair of peers.
type Pair struct {
	A, B   string
	Values []int64
}

// Point draws the point of the space that seed names. Every value is
// drawn uniformly from its inclusive range, Min + Below(Max−Min+1), from
// its own substream of rng.New(seed):
//
//	peer count              Host("property", "peers")
//	duration_ns             Host("property", "duration_ns")
//	link key K of (pI, pJ)  Host("property", "pI-pJ/K")   (I < J)
//	kind_config key K       Host("property", "kind_config/K")
//
// A range of one value draws nothing. No generated peer is called
// "property", so no engine or network draw shares these substreams; and
// since each value has its own substream, widening one range or adding a
// peer leaves every other drawn value of a seed unchanged. Two properties
// with the same space draw the same network for the same seed: the
// legacy and the fixed gossip properties are compared on identical
// scenarios.
func (p *Property) Point(seed uint64) Point {
	root := rng.New(seed)
	draw := func(label string, r Range) int64 { return r.draw(root.Property(label)) }
	pt := Point{Seed: seed, DurationNs: p.Base.DurationNs}
	if p.KeepBase {
		pt.Peers = p.baseIDs()
	} else {
		pt.Peers = peerIDs(draw("peers", p.Space.Peers))
	}
	if p.Space.DurationNs.Set() {
		pt.DurationNs = draw("duration_ns", p.Space.DurationNs)
	}
	for i, a := range pt.Peers {
		for _, b := range pt.Peers[i+1:] {
			pr := Pair{A: a, B: b, Values: make([]int64, len(p.Space.Links))}
			for k, kr := range p.Space.Links {
				pr.Values[k] = draw(a+"-"+b+"/"+kr.Key, kr.Range)
			}
			pt.Pairs = append(pt.Pairs, pr)
		}
	}
	for _, kr := range p.Space.KindConfig {
		pt.KindConfig = append(pt.KindConfig, draw("kind_config/"+kr.Key, kr.Range))
	}
	return pt
}

// corner is the point with every range at pick(range), for validation.
func (p *Property) corner(pick func(Range) int64) Point {
	pt := Point{DurationNs: p.Base.DurationNs}
	if p.KeepBase {
		pt.Peers = p.baseIDs()
	} else {
		pt.Peers = peerIDs(pick(p.Space.Peers))
	}
	if p.Space.DurationNs.Set() {
		pt.DurationNs = pick(p.Space.DurationNs)
	}
	for i, a := range pt.Peers {
		for _, b := range pt.Peers[i+1:] {
			pr := Pair{A: a, B: b}
			for _, kr := range p.Space.Links {
				pr.Values = append(pr.Values, pick(kr.Range))
			}
			pt.Pairs = append(pt.Pairs, pr)
		}
	}
	for _, kr := range p.Space.KindConfig {
		pt.KindConfig = append(pt.KindConfig, pick(kr.Range))
	}
	return pt
}

// baseIDs are the base scenario's peer ids, sorted.
func (p *Property) baseIDs() []string {
	ids := make([]string, len(p.Base.Peers))
	for i, pe := range p.Base.Peers {
		ids[i] = pe.ID
	}
	return ids
}

func peerIDs(n int64) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = PeerPrefix + strconv.Itoa(i)
	}
	return ids
}

// Scenario expands seed into its scenario, named "<Name>-<seed>", with
// seed as its seed: parameters and run both descend from it. The result
// is an ordinary validated scenario whose TOML() alone reproduces the run.
func (p *Property) Scenario(seed uint64, reg *hosts.Registry) (*scenarios.Scenario, error) {
	return p.scenario(seed, reg, false)
}

// ScenarioWithoutFile is Scenario(seed) built without its file: the
// same scenario, merged tree and all (so TOML() writes the same bytes),
// but its SourceSHA256 is zero. The file's bytes are only ever hashed
// (SourceSHA256, which a bundle's manifest records) and bounded, and a
// sweep writes no bundle; encoding each seed's file was a tenth of a
// gossip_flap seed (docs/BENCHMARKS.md, "A sweep does only what a seed
// needs"). When the file's size or nesting might break a bound,
// scenarios.ParseTree cannot tell without the bytes, and the file is
// encoded and read as Scenario reads it.
func (p *Property) ScenarioWithoutFile(seed uint64, reg *hosts.Registry) (*scenarios.Scenario, error) {
	return p.scenario(seed, reg, true)
}

func (p *Property) scenario(seed uint64, reg *hosts.Registry, noFile bool) (*scenarios.Scenario, error) {
	if seed > scenarios.MaxSeed {
		return nil, fmt.Errorf("seed %d: at most %d", seed, uint64(scenarios.MaxSeed))
	}
	pt, path := p.Point(seed), fmt.Sprintf("%s#seed=%d", p.Path, seed)
	if noFile {
		t, err := p.tree(pt, nil)
		if err != nil {
			return nil, err
		}
		if sc, ok, err := scenarios.ParseTree(path, t, reg); ok {
			return sc, err
		}
	}
	return p.build(pt, path, reg, nil)
}

// TOML renders the point's scenario as a scenario file (no header), the
// seed's fault schedule and mutation groups applied.
func (p *Property) TOML(pt Point) ([]byte, error) { return p.encode(pt, nil) }

// encode renders the point's scenario; pick, when set, marks a corner:
// no fault is placed and every mutation group is included at
// pick(at_ns).
func (p *Property) encode(pt Point, pick func(Range) int64) ([]byte, error) {
	_, data, err := p.encodeTree(pt, pick)
	return data, err
}

// encodeTree is encode, also returning the tree it encoded.
func (p *Property) encodeTree(pt Point, pick func(Range) int64) (map[string]any, []byte, error) {
	var buf bytes.Buffer
	enc := toml.NewEncoder(&buf)
	enc.Indent = ""
	t, err := p.tree(pt, pick)
	if err != nil {
		return nil, nil, err
	}
	if err := enc.Encode(t); err != nil {
		return nil, nil, fmt.Errorf("property %s: encoding seed %d: %w", p.Name, pt.Seed, err)
	}
	return t, buf.Bytes(), nil
}

// build makes the point's scenario from its file, as Parse reads the
// file: the file is still encoded (its bytes are the scenario's source,
// hashed, and bound its size), but not decoded again, since the tree it
// was encoded from is at hand (scenarios.ParseEncoded).
func (p *Property) build(pt Point, path string, reg *hosts.Registry, pick func(Range) int64) (*scenarios.Scenario, error) {
	t, data, err := p.encodeTree(pt, pick)
	if err != nil {
		return nil, err
	}
	if sc, ok, err := scenarios.ParseEncoded(path, data, t, reg); ok {
		return sc, err
	}
	return scenarios.Parse(path, data, reg, func(string) ([]byte, error) {
		return nil, errors.New("a generated scenario extends nothing")
	})
}

// tree builds the scenario's TOML tree. The base contributes its tick,
// [default_link] (for every key the space does not draw), early
// termination and the snapshots inside the run; its peers, links,
// mutations and assertions name peers that generated scenarios do not
// have, and are replaced.
func (p *Property) tree(pt Point, pick func(Range) int64) (map[string]any, error) {
	if p.KeepBase {
		return p.keptTree(pt, pick)
	}
	b := p.Base
	var peers []map[string]any
	for _, e := range p.peerTables(pt, pick == nil) {
		peers = append(peers, e.m)
	}
	t := map[string]any{
		"name":         fmt.Sprintf("%s-%d", p.Name, pt.Seed),
		"seed":         int64(pt.Seed),
		"duration_ns":  pt.DurationNs,
		"default_tick": map[string]any{"period_ns": b.TickPeriodNs},
		"default_link": scenarios.PolicyTable(b.DefaultLink),
		"peers":        peers,
		"assertions":   p.assertions(pt),
	}
	if b.EarlyTerminate {
		t["early_terminate_on_all_assertions_resolved"] = true
	}
	if len(p.Space.Links) > 0 {
		t["links"] = p.links(pt)
	}
	var snaps []map[string]any
	for _, at := range b.Snapshots {
		if at <= pt.DurationNs {
			snaps = append(snaps, map[string]any{"at_ns": at})
		}
	}
	if len(snaps) > 0 {
		t["snapshots"] = snaps
	}
	if ms := p.mutations(pt.Seed, pick); len(ms) > 0 {
		t["mutations"] = ms
	}
	return t, nil
}

// keptTree is the scenario of a KeepBase property: the base's whole
// tree, with the name, seed and the space's draws put in.
func (p *Property) keptTree(pt Point, pick func(Range) int64) (map[string]any, error) {
	t, err := scenarios.DecodeTree(p.Base.TOML())
	if err != nil {
		return nil, fmt.Errorf("property %s: re-reading the base: %w", p.Name, err)
	}
	t["name"] = fmt.Sprintf("%s-%d", p.Name, pt.Seed)
	t["seed"] = int64(pt.Seed)
	t["duration_ns"] = pt.DurationNs
	var peers []map[string]any
	for _, e := range p.peerTables(pt, pick == nil) {
		peers = append(peers, e.m)
	}
	t["peers"] = peers
	if len(p.Space.Links) > 0 {
		t["links"] = p.links(pt)
	}
	if len(p.Assertions) > 0 {
		t["assertions"] = p.assertions(pt)
	}
	var snaps []map[string]any
	for _, s := range tables(t["snapshots"]) {
		if at, _ := s["at_ns"].(int64); at <= pt.DurationNs {
			snaps = append(snaps, s)
		}
	}
	delete(t, "snapshots")
	if len(snaps) > 0 {
		t["snapshots"] = snaps
	}
	ms := tables(t["mutations"])
	ms = append(slices.Clone(ms), p.mutations(pt.Seed, pick)...)
	delete(t, "mutations")
	if len(ms) > 0 {
		t["mutations"] = ms
	}
	return t, nil
}

// peerEntry is one peer's [[peers]] table and the faults placed in it.
type peerEntry struct {
	m      map[string]any
	placed []PlacedFault
}

// peerTables declares the point's peers (the base's, for a KeepBase
// property), with the seed's fault schedule applied when sched is set.
func (p *Property) peerTables(pt Point, sched bool) []peerEntry {
	var on []string
	if sched {
		on = p.FaultsOn(pt.Seed)
	}
	if p.KeepBase {
		t, _ := scenarios.DecodeTree(p.Base.TOML()) // it parsed once: keptTree reports an error
		var out []peerEntry
		for _, m := range tables(t["peers"]) {
			e := peerEntry{m: m}
			if sched {
				id, _ := m["id"].(string)
				kind, _ := m["kind"].(string)
				kc, _ := m["kind_config"].(map[string]any)
				if kc == nil {
					kc = map[string]any{}
				}
				kc, e.placed = p.placeFaults(pt.Seed, on, id, kind, kc)
				if len(kc) > 0 {
					m["kind_config"] = kc
				}
			}
			out = append(out, e)
		}
		return out
	}
	out := make([]peerEntry, len(pt.Peers))
	for i, id := range pt.Peers {
		role := p.Peer.Rest
		if i == 0 {
			role = p.Peer.First
		}
		kc := maps.Clone(p.Peer.KindConfig)
		maps.Copy(kc, role.KindConfig)
		for k, kr := range p.Space.KindConfig {
			kc[kr.Key] = pt.KindConfig[k]
		}
		var placed []PlacedFault
		if sched {
			kc, placed = p.placeFaults(pt.Seed, on, id, p.Peer.Kind, kc)
		}
		e := map[string]any{"id": id, "kind": p.Peer.Kind}
		if len(kc) > 0 {
			e["kind_config"] = kc
		}
		if role.InitialState != "" {
			e["initial_state"] = role.InitialState
		}
		out[i] = peerEntry{m: e, placed: placed}
	}
	return out
}

// links declares both directions of every pair with the pair's draws.
func (p *Property) links(pt Point) []map[string]any {
	out := make([]map[string]any, 0, 2*len(pt.Pairs))
	for _, pr := range pt.Pairs {
		for _, dir := range [][2]string{{pr.A, pr.B}, {pr.B, pr.A}} {
			e := map[string]any{"from": dir[0], "to": dir[1]}
			for k, kr := range p.Space.Links {
				e[kr.Key] = pr.Values[k]
			}
			out = append(out, e)
		}
	}
	return out
}

// assertions expands the templates: `peer = "*"` makes one assertion per
// peer, named "<name>/<peer>" (name defaults to the kind), and
// `peers = "*"` names every peer.
func (p *Property) assertions(pt Point) []map[string]any {
	var out []map[string]any
	for _, tpl := range p.Assertions {
		a := maps.Clone(tpl)
		if a["peers"] == "*" {
			a["peers"] = slices.Clone(pt.Peers)
		}
		if a["peer"] != "*" {
			out = append(out, a)
			continue
		}
		name, ok := a["name"].(string)
		if !ok {
			name, _ = a["kind"].(string)
		}
		for _, id := range pt.Peers {
			e := maps.Clone(a)
			e["peer"], e["name"] = id, name+"/"+id
			out = append(out, e)
		}
	}
	return out
}
