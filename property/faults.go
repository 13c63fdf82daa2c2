package property

import (
	"maps"
	"slices"
	"strconv"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/hosts/kindcfg"
	"github.com/detsim/detsim/rng"
	"github.com/detsim/detsim/scenarios"
)

// FaultSpace is [space.faults]: a seeded fault schedule over the fault
// catalogs of the host kinds (hosts.Faulter), swarm-style. Each seed
// turns every listed fault kind on with probability EnablePPM / 10^6,
// then gives each place of each peer's kind_config (a provider's script
// entry, a tool's effect, the agent's store) a fault with probability
// PlacePPM / 10^6, chosen uniformly among the kinds turned on that fit
// the place; the kind's catalog draws the fault's parameters.
type FaultSpace struct {
	EnablePPM, PlacePPM int64
	// Kinds are the host kinds whose faults the schedule draws, sorted by
	// tag.
	Kinds []KindFaults
}

// KindFaults are the faults a schedule may turn on in one host kind.
type KindFaults struct {
	Tag     string
	Catalog *hosts.FaultCatalog
	Faults  []string // in catalog order
}

// MutationGroup is one [[space.mutations]] entry: a group of mutations
// a seed includes with probability PPM / 10^6, the group's time drawn
// from AtNs and each mutation at that time plus its after_ns.
type MutationGroup struct {
	Name      string
	PPM       int64
	AtNs      Range
	Mutations []map[string]any // as written, after_ns included
}

// PlacedFault is one fault a seed's schedule placed.
type PlacedFault struct {
	Peer  string
	Place int
	Fault string // "<kind tag>/<fault kind>"
}

const million = 1_000_000

func (p *Property) checkFaults(r *report, v any, reg *hosts.Registry) {
	if v == nil {
		return
	}
	tbl, ok := v.(map[string]any)
	if !ok {
		r.add("space.faults", "must be a table, got %s", scenarios.Describe(v))
		return
	}
	fs := &FaultSpace{EnablePPM: million / 2, PlacePPM: million / 2}
	ppm := func(key string, dst *int64) {
		x, present := tbl[key]
		if !present {
			return
		}
		n, isInt := x.(int64)
		if !isInt || n < 0 || n > million {
			r.add("space.faults."+key, "want an integer 0 to 1000000 (parts per million), got %s", scenarios.Describe(x))
			return
		}
		*dst = n
	}
	ppm("enable_ppm", &fs.EnablePPM)
	ppm("place_ppm", &fs.PlacePPM)
	for _, tag := range slices.Sorted(maps.Keys(tbl)) {
		if tag == "enable_ppm" || tag == "place_ppm" {
			continue
		}
		field := "space.faults." + tag
		k, _ := reg.Lookup(tag)
		cat := hosts.FaultsOf(k)
		if cat == nil {
			r.add(field, "not a host kind with a fault catalog (space.faults has enable_ppm, place_ppm and one list per kind: %v)", catalogTags(reg))
			continue
		}
		kf := KindFaults{Tag: tag, Catalog: cat}
		switch x := tbl[tag].(type) {
		case string:
			if x != "*" {
				r.add(field, "want \"*\" (the whole catalog) or a list of its faults, got %q", x)
				continue
			}
			kf.Faults = slices.Clone(cat.Kinds)
		case []any:
			for i, e := range x {
				s, isStr := e.(string)
				switch {
				case !isStr:
					r.add(field+"["+strconv.Itoa(i)+"]", "want a fault name, got %s", scenarios.Describe(e))
				case !slices.Contains(cat.Kinds, s):
					r.add(field+"["+strconv.Itoa(i)+"]", "unknown %s fault %q (the catalog: %v)", tag, s, cat.Kinds)
				case slices.Contains(kf.Faults, s):
					r.add(field+"["+strconv.Itoa(i)+"]", "%q listed twice", s)
				default:
					kf.Faults = append(kf.Faults, s)
				}
			}
			// Catalog order, whatever order the file lists them in.
			slices.SortFunc(kf.Faults, func(a, b string) int {
				return slices.Index(cat.Kinds, a) - slices.Index(cat.Kinds, b)
			})
		default:
			r.add(field, "want \"*\" or a list of fault names, got %s", scenarios.Describe(x))
			continue
		}
		fs.Kinds = append(fs.Kinds, kf)
	}
	if len(fs.Kinds) == 0 {
		r.add("space.faults", "lists no host kind's faults (one list per kind: %v)", catalogTags(reg))
	}
	p.Space.Faults = fs
}

func catalogTags(reg *hosts.Registry) []string {
	var out []string
	for _, t := range reg.Tags() {
		if k, _ := reg.Lookup(t); hosts.FaultsOf(k) != nil {
			out = append(out, t)
		}
	}
	return out
}

func (p *Property) checkMutations(r *report, v any) {
	if v == nil {
		return
	}
	groups := tables(v)
	if groups == nil {
		r.add("space.mutations", "must be an array of tables ([[space.mutations]]), got %s", scenarios.Describe(v))
		return
	}
	for i, g := range groups {
		field := "space.mutations[" + strconv.Itoa(i) + "]"
		mg := MutationGroup{PPM: million}
		for _, k := range slices.Sorted(maps.Keys(g)) {
			if !slices.Contains([]string{"name", "ppm", "at_ns", "mutations"}, k) {
				r.add(field+"."+k, "unknown key (a group has name, ppm, at_ns and mutations)")
			}
		}
		mg.Name, _ = g["name"].(string)
		if !validName(mg.Name) || slices.ContainsFunc(p.Space.Mutations, func(o MutationGroup) bool { return o.Name == mg.Name }) {
			r.add(field+".name", "want a unique name of 1 to %d of A-Z a-z 0-9 _ - (it names the group's substream), got %s", MaxNameBytes, scenarios.Describe(g["name"]))
		}
		if x, present := g["ppm"]; present {
			n, isInt := x.(int64)
			if !isInt || n < 0 || n > million {
				r.add(field+".ppm", "want an integer 0 to 1000000, got %s", scenarios.Describe(x))
			}
			mg.PPM = n
		}
		if err := mg.AtNs.UnmarshalTOML(g["at_ns"]); err != nil {
			r.add(field+".at_ns", "%v", err)
		} else if msg := mg.AtNs.check(0, scenarios.MaxTimeNs); msg != "" {
			r.add(field+".at_ns", "%s", msg)
		}
		mg.Mutations = tables(g["mutations"])
		if len(mg.Mutations) == 0 {
			r.add(field+".mutations", "want a non-empty array of mutation tables (each as in [[mutations]], at_ns replaced by the optional after_ns)")
		}
		for j, m := range mg.Mutations {
			if _, has := m["at_ns"]; has {
				r.add(field+".mutations["+strconv.Itoa(j)+"].at_ns", "the group draws the time: give after_ns (an offset from it) instead")
			}
			if a, has := m["after_ns"]; has {
				if n, isInt := a.(int64); !isInt || n < 0 {
					r.add(field+".mutations["+strconv.Itoa(j)+"].after_ns", "want a non-negative integer, got %s", scenarios.Describe(a))
				}
			}
		}
		p.Space.Mutations = append(p.Space.Mutations, mg)
	}
}

// tables reads an array of tables as the TOML decoder gives it.
func tables(v any) []map[string]any {
	switch x := v.(type) {
	case []map[string]any:
		return x
	case []any:
		out := make([]map[string]any, 0, len(x))
		for _, e := range x {
			m, ok := e.(map[string]any)
			if !ok {
				return nil
			}
			out = append(out, m)
		}
		return out
	}
	return nil
}

// FaultsOn lists the faults seed turns on, as "<kind tag>/<fault>", in
// [space.faults] order: fault F of kind K is on when one draw of
// Host("property", "faults/on/K/F") below 10^6 falls under enable_ppm.
func (p *Property) FaultsOn(seed uint64) []string {
	var out []string
	fs := p.Space.Faults
	if fs == nil {
		return nil
	}
	root := rng.New(seed)
	for _, kf := range fs.Kinds {
		for _, f := range kf.Faults {
			if int64(root.Property("faults/on/"+kf.Tag+"/"+f).Below(million)) < fs.EnablePPM {
				out = append(out, kf.Tag+"/"+f)
			}
		}
	}
	return out
}

// placeFaults applies seed's schedule to one peer's kind_config: each
// place I of peer P draws from Host("property", "faults/P/I") whether it
// gets a fault (one draw below 10^6 under place_ppm) and which of the
// faults on that fit it (one draw), and the catalog draws the fault's
// parameters from Host("property", "faults/P/I/params"). Fits is asked of
// the peer's config before any fault was placed, so places are
// independent of one another.
func (p *Property) placeFaults(seed uint64, on []string, peer, kind string, kc map[string]any) (map[string]any, []PlacedFault) {
	fs := p.Space.Faults
	if fs == nil {
		return kc, nil
	}
	i := slices.IndexFunc(fs.Kinds, func(k KindFaults) bool { return k.Tag == kind })
	if i < 0 {
		return kc, nil
	}
	kf := fs.Kinds[i]
	root := rng.New(seed)
	kc = kindcfg.Clone(kc) // and arrays of tables as []any, as a loaded scenario holds them
	orig := kc
	var placed []PlacedFault
	for place := range kf.Catalog.Places(orig) {
		label := "faults/" + peer + "/" + strconv.Itoa(place)
		s := root.Property(label)
		if int64(s.Below(million)) >= fs.PlacePPM {
			continue
		}
		var fits []string
		for _, f := range kf.Faults {
			if slices.Contains(on, kind+"/"+f) && kf.Catalog.Fits(orig, place, f) {
				fits = append(fits, f)
			}
		}
		if len(fits) == 0 {
			continue
		}
		f := fits[s.Below(uint64(len(fits)))]
		kc = kf.Catalog.Apply(kc, place, f, root.Property(label+"/params"))
		placed = append(placed, PlacedFault{Peer: peer, Place: place, Fault: kind + "/" + f})
	}
	return kc, placed
}

// Schedule is the fault schedule seed names: every fault placed, in peer
// and place order. It is what Scenario(seed) applies.
func (p *Property) Schedule(seed uint64) []PlacedFault {
	pt := p.Point(seed)
	var out []PlacedFault
	for _, e := range p.peerTables(pt, true) {
		out = append(out, e.placed...)
	}
	return out
}

// mutations returns the [[space.mutations]] groups seed includes, each
// mutation at its group's drawn time plus after_ns. Group G draws from
// Host("property", "mutations/G"): one draw below 10^6 under ppm, then
// the time from at_ns. pick, when set, replaces the draws (the corners:
// every group, at pick(at_ns)).
func (p *Property) mutations(seed uint64, pick func(Range) int64) []map[string]any {
	var out []map[string]any
	root := rng.New(seed)
	for _, g := range p.Space.Mutations {
		var at int64
		if pick != nil {
			at = pick(g.AtNs)
		} else {
			s := root.Property("mutations/" + g.Name)
			if int64(s.Below(million)) >= g.PPM {
				continue
			}
			at = g.AtNs.draw(s)
		}
		for _, m := range g.Mutations {
			e := maps.Clone(m)
			after, _ := e["after_ns"].(int64)
			delete(e, "after_ns")
			e["at_ns"] = at + after
			out = append(out, e)
		}
	}
	return out
}
