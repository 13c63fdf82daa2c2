package sweep

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/internal/safefile"
	"github.com/detsim/detsim/property"
	"github.com/detsim/detsim/scenarios"
)

// Every pin of a gossip-flap property is that property's seed as it is
// defined now: a pin is replayed from its own expanded scenario, so a
// property whose definition moved on (gossip_flap became the complete fix
// in issue 29, docs/gossip-flap.md "The decision") would otherwise keep
// replaying the old definition's scenarios under the new name and prove
// nothing about it. A measurement property's pins (gossip_flap_lan) are
// held to its file in property/measure/.
func TestCorpus_GossipFlapPinsAreTheirPropertysSeeds(t *testing.T) {
	reg := builtin.Registry()
	paths, err := filepath.Glob(filepath.Join(regressionDir, "gossip_flap*.toml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no gossip-flap pins: %v", err)
	}
	props := map[string]*property.Property{}
	for _, path := range paths {
		data, err := safefile.ReadFile(path, scenarios.MaxFileBytes)
		if err != nil {
			t.Fatal(err)
		}
		h, ok := ReadPinHeader(data)
		if !ok {
			t.Fatalf("%s: not a pin", path)
		}
		p := props[h.Property]
		if p == nil {
			p, err = property.LoadLibrary(h.Property, reg)
			if err != nil {
				file := filepath.Join("..", "property", "measure", h.Property+".toml")
				if _, serr := os.Stat(file); serr != nil {
					t.Fatalf("%s: property %q is neither embedded nor in property/measure/: %v", path, h.Property, err)
				}
				if p, err = property.Load(file, reg); err != nil {
					t.Fatal(err)
				}
			}
			props[h.Property] = p
		}
		// Compared by what the run does, not by bytes: pins written before
		// a link key existed do not spell it out at its default.
		if _, out := runSeedAlone(t, p, h.Seed, reg); out.Digest != h.Digest {
			t.Errorf("%s is not seed %d of %s as it is defined now (digest %s, pinned %s); re-pin it from the property", path, h.Seed, h.Property, out.Digest, h.Digest)
		}
	}
}
