package scenarios

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/detsim/detsim/network"
)

// TestLibrary_EveryEmbeddedScenarioParses_8_3 reads the core's library
// and every built-in kind's (SWIM's, the agent family's and raft's live
// in their kinds: docs/architecture.md, "The libraries").
func TestLibrary_EveryEmbeddedScenarioParses_8_3(t *testing.T) {
	names := LibraryNames(libraryRegistry())
	for _, want := range []string{"reference/echo_parity", "smoke/three_mesh", "agent/faults_base", "raft/cluster"} {
		if !slices.Contains(names, want) {
			t.Fatalf("LibraryNames = %v, want %s among them", names, want)
		}
	}
	if !slices.IsSorted(names) {
		t.Errorf("LibraryNames not sorted: %v", names)
	}
	for _, name := range names {
		s, err := LoadLibrary(name, libraryRegistry())
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if s.Expect == "" {
			t.Errorf("%s: no \"# expect:\" header (spec §8.3)", name)
		}
		if s.Path != name+".toml" {
			t.Errorf("%s: Path = %q", name, s.Path)
		}
	}
}

func TestLibrary_NameWithOrWithoutExtension(t *testing.T) {
	a, errA := LoadLibrary("reference/echo_parity", testRegistry())
	b, errB := LoadLibrary("reference/echo_parity.toml", testRegistry())
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	if a.SourceSHA256 != b.SourceSHA256 {
		t.Errorf("the two spellings load different files")
	}
	if _, err := LoadLibrary("reference/nope", testRegistry()); err == nil ||
		err.Error() != "reference/nope.toml: no embedded scenario of that name" {
		t.Errorf("err = %v", err)
	}
}

// TestLibrary_EchoParityCoversEverything keeps the determinism reference
// honest: it must exercise every mutation kind, a missing edge, a peer that
// starts down and both kinds of restart.
func TestLibrary_EchoParityCoversEverything(t *testing.T) {
	s, err := LoadLibrary("reference/echo_parity", libraryRegistry())
	if err != nil {
		t.Fatal(err)
	}
	if s.Expect != "pass-now" || s.Seed != 7 || len(s.Peers) != 6 || s.DurationNs != 20_000_000_000 {
		t.Errorf("expect %q seed %d peers %d duration %d", s.Expect, s.Seed, len(s.Peers), s.DurationNs)
	}
	seen := map[network.MutationKind]bool{}
	preserve := map[bool]bool{}
	for _, m := range s.Mutations {
		seen[m.Kind] = true
		if m.Kind == network.PeerResurrect {
			preserve[m.PreserveState] = true
		}
	}
	for k := network.Partition; k <= network.PeerResurrect; k++ {
		if !seen[k] {
			t.Errorf("no %v mutation", k)
		}
	}
	if !preserve[true] || !preserve[false] {
		t.Errorf("want resurrections with and without preserve_state")
	}
	if len(s.Links) >= 6*5 {
		t.Errorf("%d links: want at least one pair without a route", len(s.Links))
	}
	down := false
	for _, p := range s.Peers {
		down = down || p.InitialState == "down"
	}
	if !down {
		t.Errorf("no peer starts down")
	}
}

func TestLoad_ExtendsRelativeToTheFileOnDisk(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("base/parent.toml", parentSrc)
	write("scen/child.toml", "name = \"disk\"\n[base]\nextends = \"../base/parent.toml\"\n")
	s, err := Load(filepath.Join(dir, "scen", "child.toml"), testRegistry())
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "disk" || len(s.Peers) != 2 {
		t.Errorf("name %q peers %d", s.Name, len(s.Peers))
	}
	if s.Path != filepath.Join(dir, "scen", "child.toml") {
		t.Errorf("Path = %q", s.Path)
	}
	if _, err := Load(filepath.Join(dir, "absent.toml"), testRegistry()); err == nil ||
		!strings.Contains(err.Error(), "absent.toml: cannot read: ") {
		t.Errorf("err = %v", err)
	}
}

func TestResolve_FileFirstThenLibrary(t *testing.T) {
	dir := t.TempDir()
	onDisk := filepath.Join(dir, "x.toml")
	if err := os.WriteFile(onDisk, []byte(valid), 0o644); err != nil {
		t.Fatal(err)
	}
	if s, err := Resolve(onDisk, testRegistry()); err != nil || s.Name != "t" {
		t.Errorf("file: %v", err)
	}
	if s, err := Resolve("reference/echo_parity", testRegistry()); err != nil || s.Name != "echo_parity" {
		t.Errorf("library: %v", err)
	}
	_, err := Resolve("no/such_thing", testRegistry())
	if err == nil || !strings.HasPrefix(err.Error(), "no/such_thing: no such file, and no embedded scenario of that name (embedded: ") ||
		!strings.Contains(err.Error(), "reference/echo_parity") {
		t.Errorf("err = %v", err)
	}
}

// TestLibrary_EmbedsEveryTOMLOnDisk catches a scenario file the embed
// pattern misses (one nested too deep, say).
func TestLibrary_EmbedsEveryTOMLOnDisk(t *testing.T) {
	var onDisk []string
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".toml") {
			onDisk = append(onDisk, strings.TrimSuffix(filepath.ToSlash(p), ".toml"))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(onDisk)
	if names := LibraryNames(testRegistry()); !slices.Equal(onDisk, names) {
		t.Errorf("on disk %v, embedded %v", onDisk, names)
	}
}
