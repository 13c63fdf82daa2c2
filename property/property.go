package property

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/scenarios"
)

// Expectation is what a property declares about its space.
type Expectation string

const (
	// ExpectPass: every scenario of the space passes every assertion. A
	// failing seed is a bug, and a sweep pins it in the regression corpus.
	ExpectPass Expectation = "pass"
	// ExpectFail: the space reproduces a known bug. A sweep meets the
	// expectation when at least MinFailingPercent of its seeds fail.
	ExpectFail Expectation = "fail"
)

// Limits on a property file.
const (
	// MaxFileBytes bounds a property file; real ones are a few kilobytes.
	MaxFileBytes = 256 << 10
	// MaxPeers bounds the peer count of a space. A generated scenario
	// declares every directed edge when the space draws link keys:
	// 128 peers make 16 256 [[links]] entries, about 1.5 MB of TOML, well
	// inside the loader's 4 MiB file limit.
	MaxPeers = 128
	// PeerPrefix starts every generated peer id: p0, p1, … p0 is the
	// "first" peer (the seed or orchestrator the others join through).
	PeerPrefix = "p"
)

// Property is a parsed, validated property file.
type Property struct {
	// Name names the property; generated scenarios are "<Name>-<seed>"
	// and pinned ones regression/<Name>-<seed>.toml.
	Name string
	// Path is the file the property was loaded from, or its embedded name.
	Path   string
	Expect Expectation
	// MinFailingPercent (1–100) is, for ExpectFail, the share of a
	// sweep's seeds that must fail for the expectation to hold; 0 for
	// ExpectPass.
	MinFailingPercent int64
	// BaseRef is the base scenario as the file names it; Base is it loaded.
	BaseRef string
	Base    *scenarios.Scenario
	Space   Space
	Peer    PeerTemplate
	// KeepBase: the file has no [peer] and its space draws no peer count,
	// so every scenario keeps the base's peers, links, mutations and (when
	// the file lists none) assertions; the space varies only what it
	// declares (duration, link keys, faults, mutation groups).
	KeepBase bool
	// Assertions are the [[assertions]] templates as written; Scenario
	// expands `peer = "*"` and `peers = "*"` in them.
	Assertions []map[string]any
}

// Space is the declared space of scenarios.
type Space struct {
	// Peers is the peer count.
	Peers Range
	// DurationNs is the run length; unset means the base scenario's.
	DurationNs Range
	// Links are the link policy keys drawn per unordered pair of peers,
	// in the fixed order of §5.2 ([default_link] order); keys not listed
	// keep the base scenario's [default_link] value.
	Links []KeyRange
	// KindConfig are integer kind_config keys drawn once per scenario and
	// given to every peer, sorted by key.
	KindConfig []KeyRange
	// Faults is [space.faults], the seeded fault schedule; nil if absent.
	Faults *FaultSpace
	// Mutations are the [[space.mutations]] groups a seed may include.
	Mutations []MutationGroup
}

// KeyRange is one drawn key and its range.
type KeyRange struct {
	Key string
	Range
}

// PeerTemplate says how each generated peer is declared.
type PeerTemplate struct {
	Kind string
	// KindConfig is given to every peer; a role's kind_config is merged
	// over it key by key, and drawn Space.KindConfig keys over both.
	KindConfig map[string]any
	// First is the role of p0, Rest of p1 … p<n-1>.
	First, Rest Role
}

// Role is the part of a peer's declaration that depends on whether it is
// the first peer.
type Role struct {
	InitialState string         // "" = the kind's default
	KindConfig   map[string]any // merged over PeerTemplate.KindConfig
}

// file is the TOML shape of a property file.
type file struct {
	Name              string           `toml:"name"`
	Expect            string           `toml:"expect"`
	MinFailingPercent *int64           `toml:"min_failing_percent"`
	Base              string           `toml:"base"`
	Space             map[string]any   `toml:"space"`
	Peer              *filePeer        `toml:"peer"`
	Assertions        []map[string]any `toml:"assertions"`
}

type filePeer struct {
	Kind       string         `toml:"kind"`
	KindConfig map[string]any `toml:"kind_config"`
	First      fileRole       `toml:"first"`
	Rest       fileRole       `toml:"rest"`
}

type fileRole struct {
	InitialState string         `toml:"initial_state"`
	KindConfig   map[string]any `toml:"kind_config"`
}

// Parse decodes and validates the property file at path whose bytes are
// data. loadBase loads the scenario its `base` names. Besides checking
// every key, Parse expands the space's two extreme corners (every range at
// its minimum, every range at its maximum) and requires both to be valid
// scenarios, so a bad kind_config or assertion template is reported once,
// here, not once per seed. It returns every problem found as a
// scenarios.Errors, and never panics.
func Parse(path string, data []byte, reg *hosts.Registry, loadBase func(ref string) (*scenarios.Scenario, error)) (*Property, error) {
	r := report{file: path}
	if len(data) > MaxFileBytes {
		r.add("", "file is %d bytes; a property file may be at most %d", len(data), MaxFileBytes)
		return nil, r.errs
	}
	if err := scenarios.CheckNesting(data); err != nil {
		r.add("", "%v", err)
		return nil, r.errs
	}
	var f file
	md, err := toml.Decode(string(data), &f)
	if err != nil {
		r.add("", "%s", decodeMsg(err))
		return nil, r.errs
	}
	for _, k := range md.Undecoded() {
		if !freeForm(k) {
			r.add(k.String(), "unknown key (a property file has name, expect, min_failing_percent, base, [space], [peer] and [[assertions]])")
		}
	}
	p := &Property{Path: path}
	p.checkHeader(&r, &f)
	_, drawsPeers := f.Space["peers"]
	p.KeepBase = f.Peer == nil && !drawsPeers && f.Space != nil
	p.checkSpace(&r, f.Space, reg)
	if !p.KeepBase {
		p.checkPeer(&r, f.Peer)
	}
	if len(f.Assertions) == 0 && !p.KeepBase {
		r.add("assertions", "missing: a property applies at least one [[assertions]]")
	}
	p.Assertions = f.Assertions
	if len(r.errs) > 0 {
		return nil, r.errs
	}
	base, err := loadBase(p.BaseRef)
	if err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			r.add("base", "%s", line)
		}
		return nil, r.errs
	}
	p.Base = base
	p.checkCorners(&r, reg)
	if len(r.errs) > 0 {
		return nil, r.errs
	}
	return p, nil
}

func (p *Property) checkHeader(r *report, f *file) {
	p.Name = f.Name
	switch {
	case f.Name == "":
		r.add("name", "missing (required)")
	case !validName(f.Name):
		r.add("name", "%q: want 1 to %d of A-Z a-z 0-9 _ - (with \"-<seed>\" it names the generated scenarios and corpus files)", f.Name, MaxNameBytes)
	}
	p.Expect = Expectation(f.Expect)
	switch p.Expect {
	case ExpectPass:
		if f.MinFailingPercent != nil {
			r.add("min_failing_percent", "only an expect = \"fail\" property has one")
		}
	case ExpectFail:
		p.MinFailingPercent = 1
		if f.MinFailingPercent != nil {
			p.MinFailingPercent = *f.MinFailingPercent
			if v := *f.MinFailingPercent; v < 1 || v > 100 {
				r.add("min_failing_percent", "must be 1 to 100, got %d", v)
			}
		}
	case "":
		r.add("expect", "missing (required): \"pass\" or \"fail\"")
	default:
		r.add("expect", "%q: want \"pass\" or \"fail\"", f.Expect)
	}
	p.BaseRef = f.Base
	if f.Base == "" {
		r.add("base", "missing (required): a scenario file (relative to this file) or an embedded scenario name")
	}
}

func (p *Property) checkSpace(r *report, space map[string]any, reg *hosts.Registry) {
	if space == nil {
		r.add("space", "missing (required table)")
		return
	}
	get := func(key string, lo, hi int64) (Range, bool) {
		v, ok := space[key]
		if !ok {
			return Range{}, false
		}
		var rg Range
		if err := rg.UnmarshalTOML(v); err != nil {
			r.add("space."+key, "%v", err)
			return Range{}, false
		}
		if msg := rg.check(lo, hi); msg != "" && !offKey(key, rg) {
			r.add("space."+key, "%s", msg)
			return Range{}, false
		}
		return rg, true
	}
	known := []string{"peers", "duration_ns", "kind_config", "faults", "mutations"}
	var ok bool
	if p.Space.Peers, ok = get("peers", 1, MaxPeers); !ok {
		if _, present := space["peers"]; !present && !p.KeepBase {
			r.add("space.peers", "missing (required): the peer count, an integer or [min, max]")
		}
	}
	p.checkFaults(r, space["faults"], reg)
	p.checkMutations(r, space["mutations"])
	p.Space.DurationNs, _ = get("duration_ns", 1, scenarios.MaxTimeNs)
	for _, k := range scenarios.PolicyFields {
		known = append(known, k.Key)
		if rg, ok := get(k.Key, k.Lo, k.Hi); ok {
			p.Space.Links = append(p.Space.Links, KeyRange{k.Key, rg})
		}
	}
	for _, k := range slices.Sorted(maps.Keys(space)) {
		if !slices.Contains(known, k) {
			r.add("space."+k, "unknown key (the space draws peers, duration_ns, the [default_link] keys, [space.kind_config], [space.faults] and [[space.mutations]])")
		}
	}
	kc, present := space["kind_config"]
	if !present {
		return
	}
	if p.KeepBase {
		r.add("space.kind_config", "gives keys to every generated peer; a property without [peer] keeps the base's peers, of several kinds")
		return
	}
	tbl, isTable := kc.(map[string]any)
	if !isTable {
		r.add("space.kind_config", "must be a table of integer ranges, got %s", scenarios.Describe(kc))
		return
	}
	for _, k := range slices.Sorted(maps.Keys(tbl)) {
		var rg Range
		if err := rg.UnmarshalTOML(tbl[k]); err != nil {
			r.add("space.kind_config."+k, "%v", err)
			continue
		}
		// The host kind validates the value itself; here only the range
		// must be non-empty and non-negative.
		if msg := rg.check(0, 1<<62); msg != "" {
			r.add("space.kind_config."+k, "%s", msg)
			continue
		}
		p.Space.KindConfig = append(p.Space.KindConfig, KeyRange{k, rg})
	}
}

// offKey reports whether rg is the one value 0 of a link key whose 0
// switches its feature off (mtu_bytes), which the key's range leaves out.
func offKey(key string, rg Range) bool {
	for _, pf := range scenarios.PolicyFields {
		if pf.Key == key {
			return rg.Min == 0 && rg.Max == 0 && pf.Accepts(0)
		}
	}
	return false
}

func (p *Property) checkPeer(r *report, fp *filePeer) {
	if fp == nil {
		r.add("peer", "missing (required table): kind, kind_config, first and rest")
		return
	}
	if fp.Kind == "" {
		r.add("peer.kind", "missing (required)")
	}
	p.Peer = PeerTemplate{
		Kind:       fp.Kind,
		KindConfig: orEmpty(fp.KindConfig),
		First:      Role{InitialState: fp.First.InitialState, KindConfig: orEmpty(fp.First.KindConfig)},
		Rest:       Role{InitialState: fp.Rest.InitialState, KindConfig: orEmpty(fp.Rest.KindConfig)},
	}
}

// checkCorners expands the smallest and the largest point of the space;
// the largest is reported only when the smallest is valid, so one mistake
// is not reported twice.
func (p *Property) checkCorners(r *report, reg *hosts.Registry) {
	for _, c := range []struct {
		name string
		pick func(Range) int64
	}{
		{"minimum", func(rg Range) int64 { return rg.Min }},
		{"maximum", func(rg Range) int64 { return rg.Max }},
	} {
		if len(r.errs) > 0 {
			return
		}
		pt := p.corner(c.pick)
		_, err := p.build(pt, p.Path+"#"+c.name, reg, c.pick)
		if err == nil {
			continue
		}
		if es, ok := err.(scenarios.Errors); ok {
			for _, e := range es {
				msg := e.Msg
				if e.Field != "" {
					msg = e.Field + ": " + msg
				}
				r.add("", "the scenario at the space's %s is invalid: %s", c.name, msg)
			}
			continue
		}
		r.add("", "the scenario at the space's %s is invalid: %v", c.name, err)
	}
}

// freeForm reports whether key lies inside a table the decoder hands over
// whole (checked later, or by the host kind or the scenario loader); the
// decoder lists the keys of such a table's sub-tables as undecoded.
func freeForm(key toml.Key) bool {
	for _, prefix := range [][]string{
		{"space"}, {"assertions"}, {"peer", "kind_config"},
		{"peer", "first", "kind_config"}, {"peer", "rest", "kind_config"},
	} {
		if len(key) > len(prefix) && slices.Equal(key[:len(prefix)], prefix) {
			return true
		}
	}
	return false
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// validName reports whether s is 1 to MaxNameBytes of A-Z a-z 0-9 _ -.
// MaxNameBytes bounds a property's name: generated scenarios are named
// "<name>-<seed>", a seed has up to 19 digits, and a scenario name is at
// most scenarios.MaxScenarioNameBytes (64) bytes.
const MaxNameBytes = scenarios.MaxScenarioNameBytes - len("-9223372036854775807")

func validName(s string) bool {
	if s == "" || len(s) > MaxNameBytes {
		return false
	}
	for _, c := range []byte(s) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// report collects errors against one file.
type report struct {
	file string
	errs scenarios.Errors
}

func (r *report) add(field, format string, args ...any) {
	r.errs = append(r.errs, scenarios.Error{File: r.file, Field: field, Msg: fmt.Sprintf(format, args...)})
}

// decodeMsg renders a TOML decoding error on one line with its position.
func decodeMsg(err error) string {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return fmt.Sprintf("line %d, column %d: TOML: %s", pe.Position.Line, pe.Position.Col, pe.Message)
	}
	return "TOML: " + strings.TrimPrefix(strings.ReplaceAll(err.Error(), "\n", " "), "toml: ")
}
