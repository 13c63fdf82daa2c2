package calibrate

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/kinds/swim/swim"
	"github.com/detsim/detsim/network"
	"github.com/detsim/detsim/scenarios"
)

// Perturbation is one row of the sensitivity table: a change to the
// model a calibration must be able to tell from the truth.
type Perturbation struct {
	// Name is what the table and the report call it.
	Name string
	// Field is what it changes: "link.<policy field>" (every edge's,
	// e.g. link.latency_ns) or "kind_config.<key>" (every peer's, e.g.
	// kind_config.suspicion_mult).
	Field string
	// Scale multiplies the field's effective value (rounded to an
	// integer); Set replaces it. Exactly one is given.
	Scale float64
	Set   any
	// Edges, for a link field, narrows it to some edges: "" is every
	// edge; "lowest" the declared edges whose value of the field is the
	// lowest above 0 (all of them on a tie): the thin link for
	// bandwidth, the shortest edge for latency, the least lossy edge
	// for loss. A change to one edge is what a real network has and a
	// scale of every edge hides (issue 29).
	Edges string
	// BlindSpot, when set, says why no metric can catch it on the
	// corpus: the row stays in the table (docs/calibration.md).
	BlindSpot string
	// Row is where the table gives it ("FILE: perturbation N (NAME)"),
	// so that an error found only when it is applied names the row.
	Row string
}

// policyField is the link-policy key key, as the loader reads it.
func policyField(key string) (scenarios.PolicyField, bool) {
	for _, pf := range scenarios.PolicyFields {
		if pf.Key == key {
			return pf, true
		}
	}
	return scenarios.PolicyField{}, false
}

// check refuses a row the table cannot mean.
func (p Perturbation) check() error {
	kind, key, ok := strings.Cut(p.Field, ".")
	switch {
	case !ok || key == "":
		return fmt.Errorf("field %q: want link.<field> or kind_config.<key>", p.Field)
	case kind == "link":
		if _, ok := policyField(key); !ok {
			return fmt.Errorf("field %q: %q is not a link policy field", p.Field, key)
		}
	case kind == "kind_config":
	default:
		return fmt.Errorf("field %q: want link.<field> or kind_config.<key>", p.Field)
	}
	switch {
	case p.Edges != "" && kind != "link":
		return fmt.Errorf("edges %q: only a link field has edges", p.Edges)
	case p.Edges != "" && p.Edges != EdgesLowest:
		return fmt.Errorf("edges %q: want %q (or leave it out for every edge)", p.Edges, EdgesLowest)
	}
	hasScale := p.Scale != 0
	switch {
	case hasScale == (p.Set != nil):
		return errors.New("give exactly one of scale and set")
	case hasScale && (p.Scale < 0 || math.IsNaN(p.Scale) || math.IsInf(p.Scale, 0)):
		return fmt.Errorf("scale %v: want a finite number above 0", p.Scale)
	}
	// What can be checked without a scenario is checked here, so that a
	// bad row is refused naming it before any baseline runs; what
	// depends on the scenario (a scaled value out of range, a timeout no
	// longer below the interval) is the loader's, when it is applied.
	switch {
	case kind == "kind_config" && hasScale:
		if _, ok := swim.DefaultConfig().IntKey(key); !ok {
			return fmt.Errorf("field %q: scale needs an integer kind_config key", p.Field)
		}
	case kind == "kind_config":
		if _, errs := swim.ParseConfig(map[string]any{key: p.Set}); len(errs) > 0 {
			return fmt.Errorf("set %v: %v", p.Set, errs[0])
		}
	case !hasScale:
		v, ok := p.Set.(int64)
		if !ok {
			return fmt.Errorf("set %v: a link field is an integer", p.Set)
		}
		if pf, _ := policyField(key); !pf.Accepts(v) {
			return fmt.Errorf("set %d: not a value of link.%s (%d to %d%s)", v, key, pf.Lo, pf.Hi, zeroOff(pf))
		}
	}
	return nil
}

// EdgesLowest is the Edges value that picks the edges with the lowest
// value of the field above 0.
const EdgesLowest = "lowest"

// zeroOff says, for a range error, that 0 is accepted too.
func zeroOff(pf scenarios.PolicyField) string {
	if pf.ZeroOff {
		return ", or 0 for off"
	}
	return ""
}

// scaled is v × s, rounded, never negative.
func scaled(v int64, s float64) int64 { return max(int64(math.Round(float64(v)*s)), 0) }

// Apply returns sc with the perturbation applied, loaded and validated
// as any scenario is: a value the loader refuses is an error.
func (p Perturbation) Apply(sc *scenarios.Scenario, reg *hosts.Registry) (*scenarios.Scenario, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	tree, err := scenarios.DecodeTree(sc.TOML())
	if err != nil {
		return nil, err
	}
	kind, key, _ := strings.Cut(p.Field, ".")
	switch kind {
	case "link":
		pf, _ := policyField(key)
		value := func(pol network.Policy) int64 {
			if p.Scale != 0 {
				return scaled(*pf.Field(&pol), p.Scale)
			}
			return p.Set.(int64)
		}
		picked := func(network.Policy) bool { return true }
		if sc.Graph != nil {
			// Its edges are kept as regions, not spelled out (docs/network.md):
			// rewriting them one by one is what the graph exists to avoid.
			return nil, fmt.Errorf("a link perturbation rewrites every declared edge, and this scenario's %d edges are kept as a graph; perturb a scenario with at most %d edges", sc.Graph.NumEdges(), scenarios.MaxLinks)
		}
		if p.Edges == EdgesLowest {
			if sc.FullMesh || len(sc.Links) == 0 {
				return nil, fmt.Errorf("edges = %q needs declared links: a full mesh's edges all share default_link", p.Edges)
			}
			lowest := int64(-1)
			for _, l := range sc.Links {
				if v := *pf.Field(&l.Policy); v > 0 && (lowest < 0 || v < lowest) {
					lowest = v
				}
			}
			if lowest < 0 {
				return nil, fmt.Errorf("edges = %q: no edge has %s above 0", p.Edges, key)
			}
			picked = func(pol network.Policy) bool { return *pf.Field(&pol) == lowest }
		} else {
			dl, _ := tree["default_link"].(map[string]any)
			if dl == nil {
				dl = map[string]any{}
				tree["default_link"] = dl
			}
			dl[key] = value(sc.DefaultLink)
		}
		// Every declared edge spelled out with its resolved policy, so
		// that what it inherited and what it overrode change alike.
		if !sc.FullMesh {
			var links []any
			for _, l := range sc.Links {
				t := scenarios.PolicyTable(l.Policy)
				t["from"], t["to"] = l.From, l.To
				if picked(l.Policy) {
					t[key] = value(l.Policy)
				}
				links = append(links, t)
			}
			tree["links"] = links
		}
	case "kind_config":
		peers, _ := tree["peers"].([]any)
		for _, pt := range peers {
			peer, ok := pt.(map[string]any)
			if !ok {
				continue
			}
			kc, _ := peer["kind_config"].(map[string]any)
			if kc == nil {
				kc = map[string]any{}
				peer["kind_config"] = kc
			}
			if p.Scale == 0 {
				kc[key] = p.Set
				continue
			}
			cfg, errs := swim.ParseConfig(kc)
			if len(errs) > 0 {
				return nil, fmt.Errorf("peer %v: %v", peer["id"], errs[0])
			}
			v, _ := cfg.IntKey(key)
			kc[key] = scaled(v, p.Scale)
		}
	}
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(tree); err != nil {
		return nil, err
	}
	return scenarios.Parse(sc.Path+" ("+p.Name+")", buf.Bytes(), reg, func(string) ([]byte, error) {
		return nil, errors.New("a perturbed scenario extends nothing")
	})
}
