package scenarios

import (
	"bytes"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/golden"
)

// comparable strips what legitimately differs between a scenario and the
// one parsed back from its TOML: where it was read from, and the tree.
func comparable(s *Scenario) Scenario {
	c := *s
	c.Path, c.SourceSHA256, c.merged = "", [32]byte{}, nil
	return c
}

// roundTrip checks that TOML() parses back to an equal scenario and that
// the bytes are a fixed point.
func roundTrip(t *testing.T, s *Scenario, reg *hosts.Registry) {
	t.Helper()
	out := s.TOML()
	back, err := Parse("merged.toml", out, reg, noFiles)
	if err != nil {
		t.Fatalf("TOML() does not parse back: %v\n%s", err, out)
	}
	if a, b := comparable(s), comparable(back); !reflect.DeepEqual(a, b) {
		t.Fatalf("round trip changed the scenario:\n%+v\n%+v\n%s", a, b, out)
	}
	if again := back.TOML(); !bytes.Equal(again, out) {
		t.Fatalf("TOML() is not a fixed point:\n%s\n---\n%s", out, again)
	}
}

func TestTOML_RoundTrip(t *testing.T) {
	t.Run("minimal", func(t *testing.T) { roundTrip(t, mustParse(t, valid), testRegistry()) })
	t.Run("extends", func(t *testing.T) {
		s, err := Parse("dir/sub/child.toml", []byte(childSrc), testRegistry(), files(map[string]string{"dir/parent.toml": parentSrc}))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(s.TOML(), []byte("[base]")) {
			t.Errorf("TOML() still has [base]")
		}
		roundTrip(t, s, testRegistry())
	})
	for _, name := range LibraryNames(testRegistry()) {
		t.Run(name, func(t *testing.T) {
			s, err := LoadLibrary(name, libraryRegistry())
			if err != nil {
				t.Fatal(err)
			}
			roundTrip(t, s, libraryRegistry())
		})
	}
}

func TestTOML_WritesTheSeedUsed(t *testing.T) {
	s := mustParse(t, parentSrc)
	s.Seed = MaxSeed
	back, err := Parse("m.toml", s.TOML(), testRegistry(), noFiles)
	if err != nil {
		t.Fatal(err)
	}
	if back.Seed != MaxSeed {
		t.Errorf("seed %d, want %d", back.Seed, uint64(MaxSeed))
	}
	noSeed := mustParse(t, with("seed = 1\n", ""))
	if noSeed.Seed != 0 {
		t.Errorf("omitted seed = %d, want 0", noSeed.Seed)
	}
	if !bytes.Contains(noSeed.TOML(), []byte("\nseed = 0\n")) {
		t.Errorf("TOML() of a scenario without seed does not write seed = 0:\n%s", noSeed.TOML())
	}
}

// TestTOML_Golden pins the bytes of a merged scenario: sorted keys, the
// expect header, no [base]. The bundle's scenario.toml is these bytes.
func TestTOML_Golden(t *testing.T) {
	s, err := Parse("dir/sub/child.toml", []byte(childSrc), testRegistry(), files(map[string]string{"dir/parent.toml": parentSrc}))
	if err != nil {
		t.Fatal(err)
	}
	got := s.TOML()
	golden.Check(t, filepath.Join("testdata", "merged_child.golden"), got)
}
