package property

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/internal/golden"
)

// TestAgentFaults_SwarmSchedules: over 300 seeds every fault of the three
// catalogs is turned on by some seeds and off by others, and placed
// somewhere; every mutation group is included by some seeds and not by
// others; and each seed's scenario keeps the base's peers and oracles.
func TestAgentFaults_SwarmSchedules(t *testing.T) {
	reg := builtin.Registry()
	p := libraryProperty(t, "agent_faults", reg)
	if !p.KeepBase || p.Space.Faults == nil || len(p.Space.Mutations) != 2 {
		t.Fatalf("keep_base %v faults %v mutations %v", p.KeepBase, p.Space.Faults, p.Space.Mutations)
	}
	on, placed := map[string]int{}, map[string]int{}
	groups := map[int]int{}
	const n = 300
	for seed := range uint64(n) {
		for _, f := range p.FaultsOn(seed) {
			on[f]++
		}
		for _, pf := range p.Schedule(seed) {
			if !slices.Contains(p.FaultsOn(seed), pf.Fault) {
				t.Fatalf("seed %d placed %v, which is not on", seed, pf)
			}
			placed[pf.Fault]++
		}
		groups[len(p.mutations(seed, nil))]++
		sc, err := p.Scenario(seed, reg)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if len(sc.Peers) != 4 || len(sc.Assertions) != 15 || sc.Name != fmt.Sprintf("agent_faults-%d", seed) || sc.Seed != seed {
			t.Fatalf("seed %d: %d peers, %d assertions, %q seed %d", seed, len(sc.Peers), len(sc.Assertions), sc.Name, sc.Seed)
		}
	}
	for _, kf := range p.Space.Faults.Kinds {
		for _, f := range kf.Faults {
			name := kf.Tag + "/" + f
			if on[name] == 0 || on[name] == n || placed[name] == 0 {
				t.Errorf("%s: on in %d of %d seeds, placed %d times", name, on[name], n, placed[name])
			}
		}
	}
	// Mutations: none, a Cancel (1), a kill and resurrect (2), both (3).
	for _, k := range []int{0, 1, 2, 3} {
		if groups[k] == 0 {
			t.Errorf("no seed with %d generated mutations: %v", k, groups)
		}
	}
}

// TestAgentFaults_ScheduleIsAPureFunctionOfTheSeed: two loads give the
// same bytes for a seed, and the scenario holds the schedule's faults.
func TestAgentFaults_ScheduleIsAPureFunctionOfTheSeed(t *testing.T) {
	reg := builtin.Registry()
	a := libraryProperty(t, "agent_faults", reg)
	b := libraryProperty(t, "agent_faults.toml", reg)
	for seed := range uint64(30) {
		x := mustScenario(t, a, seed, reg)
		y, _ := b.Scenario(seed, reg)
		if string(x.TOML()) != string(y.TOML()) {
			t.Fatalf("seed %d: two loads differ", seed)
		}
		got := strings.Count(string(x.TOML()), "[peers.kind_config.script.fault]")
		want := 0
		for _, pf := range a.Schedule(seed) {
			if strings.HasPrefix(pf.Fault, "provider/") {
				want++
			}
		}
		if got != want {
			t.Fatalf("seed %d: %d provider faults in the scenario, the schedule placed %d", seed, got, want)
		}
	}
}

// TestFaults_Golden pins the schedule derivation like points.golden: a
// change to it changes which scenario every pinned agent_faults seed
// names (docs/golden-log.md).
func TestFaults_Golden(t *testing.T) {
	reg := builtin.Registry()
	p := libraryProperty(t, "agent_faults", reg)
	var b strings.Builder
	for seed := range uint64(6) {
		fmt.Fprintf(&b, "seed %d on %v\n", seed, p.FaultsOn(seed))
		for _, pf := range p.Schedule(seed) {
			fmt.Fprintf(&b, "  %s[%d] %s\n", pf.Peer, pf.Place, pf.Fault)
		}
		for _, m := range p.mutations(seed, nil) {
			fmt.Fprintf(&b, "  mutation %v at %v\n", m["kind"], m["at_ns"])
		}
	}
	golden.Check(t, filepath.Join("testdata", "faults.golden"), b.String())
}

const keepBaseProperty = `name = "kb"
expect = "pass"
base = "b.toml"
[space]
duration_ns = [1_000_000_000, 2_000_000_000]
`

func TestParse_FaultSpaceErrors(t *testing.T) {
	reg := builtin.Registry()
	for _, c := range []struct{ src, want string }{
		{keepBaseProperty + "[space.faults]\nnope = \"*\"\n", "space.faults.nope: not a host kind with a fault catalog"},
		{keepBaseProperty + "[space.faults]\nprovider = [\"slow\"]\n", `space.faults.provider[0]: unknown provider fault "slow"`},
		{keepBaseProperty + "[space.faults]\nprovider = [\"hang\", \"hang\"]\n", `space.faults.provider[1]: "hang" listed twice`},
		{keepBaseProperty + "[space.faults]\nprovider = \"all\"\n", `space.faults.provider: want "*"`},
		{keepBaseProperty + "[space.faults]\nplace_ppm = 2_000_000\ntool = \"*\"\n", "space.faults.place_ppm: want an integer 0 to 1000000"},
		{keepBaseProperty + "[space.faults]\nenable_ppm = 5\n", "space.faults: lists no host kind's faults"},
		{keepBaseProperty + "[space.kind_config]\nx = 1\n", "space.kind_config: gives keys to every generated peer"},
		{keepBaseProperty + "[[space.mutations]]\nname = \"k\"\nmutations = [{ kind = \"PeerKill\", peer = \"x\" }]\n", "space.mutations[0].at_ns: want an integer"},
		{keepBaseProperty + "[[space.mutations]]\nname = \"k\"\nat_ns = 5\nmutations = [{ kind = \"PeerKill\", peer = \"x\", at_ns = 3 }]\n", "space.mutations[0].mutations[0].at_ns: the group draws the time"},
		{keepBaseProperty + "[[space.mutations]]\nname = \"k\"\nat_ns = 5\nmutations = []\n", "space.mutations[0].mutations: want a non-empty array"},
		{keepBaseProperty + "[[space.mutations]]\nat_ns = 5\nmutations = [{ kind = \"PeerKill\", peer = \"x\" }]\n", "space.mutations[0].name: want a unique name"},
		{keepBaseProperty + "[[space.mutations]]\nname = \"k\"\nat_ns = 5\nmutations = [{ kind = \"PeerKill\", peer = \"nobody\" }]\n", "the scenario at the space's minimum is invalid: mutations["},
		{keepBaseProperty + "[[space.mutations]]\nname = \"k\"\nat_ns = 5\nppm = -1\nmutations = [{ kind = \"PeerKill\", peer = \"x\" }]\n", "space.mutations[0].ppm: want an integer 0 to 1000000"},
	} {
		_, err := Parse("p.toml", []byte(c.src), reg, echoBase(reg))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s\nerr = %v\nwant %q", c.src, err, c.want)
		}
	}
}

// TestKeepBase_KeepsTheBase: a property without [peer] and space.peers
// keeps the base's peers, assertions and mutations, and adds a mutation
// group at its drawn time.
func TestKeepBase_KeepsTheBase(t *testing.T) {
	reg := builtin.Registry()
	src := keepBaseProperty + "[[space.mutations]]\nname = \"kill\"\nat_ns = [100, 200]\nmutations = [{ kind = \"PeerKill\", peer = \"x\" }, { kind = \"PeerResurrect\", peer = \"x\", after_ns = 1_000 }]\n"
	p, err := Parse("p.toml", []byte(src), reg, echoBase(reg))
	if err != nil {
		t.Fatal(err)
	}
	for seed := range uint64(5) {
		sc := mustScenario(t, p, seed, reg)
		if len(sc.Peers) != 1 || sc.Peers[0].ID != "x" || sc.DurationNs < 1_000_000_000 || sc.DurationNs > 2_000_000_000 {
			t.Fatalf("seed %d: peers %v duration %d", seed, sc.Peers, sc.DurationNs)
		}
		if len(sc.Mutations) != 2 || sc.Mutations[1].At != sc.Mutations[0].At+1_000 || sc.Mutations[0].At < 100 || sc.Mutations[0].At > 200 {
			t.Fatalf("seed %d: mutations %+v", seed, sc.Mutations)
		}
	}
	if _, err := Parse("p.toml", []byte(strings.Replace(keepBaseProperty, "[space]", "[space]\npeers = 2", 1)), reg, echoBase(reg)); err == nil ||
		!strings.Contains(err.Error(), "peer: missing (required table)") {
		t.Errorf("space.peers without [peer]: %v", err)
	}
}
