package builtin_test

import (
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/kinds/agent/agent"
	"github.com/detsim/detsim/kinds/echo"
	"github.com/detsim/detsim/kinds/raft/rafthost"
	"github.com/detsim/detsim/kinds/swim/swimhost"
	"github.com/detsim/detsim/property"
	"github.com/detsim/detsim/scenarios"
)

// TestLibrary_BuiltinKindsDoNotClash: no scenario file of one library
// hides another's (the first would win silently).
func TestLibrary_BuiltinKindsDoNotClash(t *testing.T) {
	if c := scenarios.LibraryClashes(builtin.Registry()); len(c) > 0 {
		t.Fatalf("library files held twice: %v", c)
	}
}

// TestLibrary_AKindsLibraryJoinsTheCore: a kind that ships scenarios and
// properties in its Library (hosts.Librarian) adds them to the names the
// CLI accepts, a scenario of it may extend a core one across the
// libraries, its property's base is its scenario, and its properties/
// are not taken for scenarios. Registering it is the only change (spec §6.3: a strict
// superset).
func TestLibrary_AKindsLibraryJoinsTheCore(t *testing.T) {
	k := libKind{Kind: echo.Kind, tag: "libkind", lib: fstest.MapFS{
		"libkind/mesh.toml": {Data: []byte("# expect: pass-now\n# A three-mesh of the core library, renamed: extends reaches the core's files.\nname = \"libkind_mesh\"\n\n[base]\nextends = \"../smoke/three_mesh.toml\"\n")},
		"properties/libkind_mesh.toml": {Data: []byte(`name = "libkind_mesh"
expect = "pass"
base = "libkind/mesh"

[space]
peers = [3, 3]
duration_ns = 1_000_000_000
latency_ns = [1_000_000, 2_000_000]

[peer]
kind = "swim"

[[assertions]]
name = "no_dead"
kind = "no_dead_when_probes_ok"
peer = "*"
`)},
	}}
	reg := builtin.Registry()
	before := scenarios.LibraryNames(reg)
	reg.Register(k)

	names := scenarios.LibraryNames(reg)
	if want := append(slices.Clone(before), "libkind/mesh"); !slices.Equal(names, slices.Sorted(slices.Values(want))) {
		t.Fatalf("library names with the kind: %v", names)
	}
	sc, err := scenarios.Resolve("libkind/mesh", reg)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Name != "libkind_mesh" || len(sc.Peers) != 3 || sc.Path != "libkind/mesh.toml" {
		t.Fatalf("loaded %q with %d peers from %s", sc.Name, len(sc.Peers), sc.Path)
	}
	if _, err := scenarios.LoadLibrary("properties/libkind_mesh", reg); err == nil {
		t.Fatal("a kind's property loaded as a scenario")
	}
	if !slices.Contains(property.LibraryNames(reg), "libkind_mesh") || slices.Contains(property.LibraryNames(builtin.Registry()), "libkind_mesh") {
		t.Fatalf("property names: %v", property.LibraryNames(reg))
	}
	p, err := property.Resolve("libkind_mesh", reg)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "libkind_mesh" {
		t.Fatalf("property %q", p.Name)
	}

	clash := libKind{Kind: echo.Kind, tag: "clash", lib: fstest.MapFS{"smoke/three_mesh.toml": {Data: []byte("name = \"x\"\n")}}}
	reg.Register(clash)
	if c := scenarios.LibraryClashes(reg); !slices.Equal(c, []string{"smoke/three_mesh.toml"}) {
		t.Fatalf("clashes %v, want smoke/three_mesh.toml", c)
	}
}

// libKind is echo's runtime under another tag, with a library
// (hosts.Librarian).
type libKind struct {
	hosts.Kind
	tag string
	lib fs.FS
}

func (k libKind) Tag() string    { return k.tag }
func (k libKind) Library() fs.FS { return k.lib }

// TestLibrary_EachKindShipsItsOwnScenarios: SWIM's and the agent
// family's scenarios live in their kinds' libraries (hosts.Librarian)
// under the names they had in scenarios/, and the core's library holds
// only what is opened by path or is the core's own reference
// (docs/architecture.md, "The libraries"). Each library keeps its
// scenarios one directory deep, the only files scenarios.LibraryNames
// lists: one nested deeper would be embedded and never named.
func TestLibrary_EachKindShipsItsOwnScenarios(t *testing.T) {
	owner := map[string]string{ // a library folder and the kind that ships it
		"smoke": swimhost.Tag, "reproduction": swimhost.Tag, "topology": swimhost.Tag,
		"failure_modes": swimhost.Tag, "lifeguard": swimhost.Tag,
		"agent": agent.Tag, "raft": rafthost.Tag,
		"properties": "", // a kind's properties, not scenarios
	}
	core := []string{"calibration", "reference", "regression", "testbed"}
	for _, k := range builtin.Kinds() {
		lib := hosts.LibraryOf(k)
		if lib == nil {
			continue
		}
		err := fs.WalkDir(lib, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || p == "." {
				return err
			}
			dir, rest, nested := strings.Cut(p, "/")
			if d.IsDir() && !nested {
				if o, ok := owner[dir]; !ok || (o != "" && o != k.Tag()) {
					t.Errorf("kind %s ships %s/, which is not its folder", k.Tag(), dir)
				}
			}
			if !d.IsDir() && (!nested || strings.Contains(rest, "/")) {
				t.Errorf("kind %s: %s is not <dir>/<name>.toml", k.Tag(), p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"smoke/three_mesh", "reproduction/gossip_flap", "topology/churn",
		"failure_modes/semi_detached", "lifeguard/slow_members", "agent/faults_base"} {
		if _, err := fs.Stat(scenarios.Library, name+".toml"); err == nil {
			t.Errorf("%s is still in the core's library", name)
		}
		if _, err := scenarios.LoadLibrary(name, builtin.Registry()); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	dirs, err := fs.ReadDir(scenarios.Library, ".")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range dirs {
		got = append(got, d.Name())
	}
	if !slices.Equal(got, core) {
		t.Errorf("the core's library holds %v, want %v", got, core)
	}
	// Each library property lives in the properties/ of the kind whose
	// scenarios it draws; the core's property package ships none.
	props := map[string]string{
		"gossip_flap": swimhost.Tag, "gossip_flap_legacy": swimhost.Tag,
		"gossip_flap_wan": swimhost.Tag, "gossip_flap_wan_legacy": swimhost.Tag,
		"agent_faults": agent.Tag, "agent_faults_bug": agent.Tag,
		"raft_partitions": rafthost.Tag, "raft_partitions_bug": rafthost.Tag,
		"raft_read_pauses": rafthost.Tag, "raft_read_pauses_reuse": rafthost.Tag,
	}
	for _, name := range property.LibraryNames(builtin.Registry()) {
		tag, ok := props[name]
		if !ok {
			t.Errorf("property %s: no owning kind listed here", name)
			continue
		}
		k, _ := builtin.Registry().Lookup(tag)
		if _, err := fs.Stat(hosts.LibraryOf(k), "properties/"+name+".toml"); err != nil {
			t.Errorf("property %s is not in kind %s's properties/: %v", name, tag, err)
		}
	}
}
