package property

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/detsim/detsim/hosts/builtin"
)

// The fallback variants (property/fallback/, docs/gossip-flap.md "With
// the fallback probe") are their library properties with fallback_probe =
// true on every peer and nothing else changed, so a sweep of each pair
// compares the fallback alone.
func TestFallbackVariants_DifferOnlyInTheFallback(t *testing.T) {
	reg := builtin.Registry()
	for _, name := range LibraryNames(reg) {
		if !strings.HasPrefix(name, "gossip_flap") {
			continue // the fallback probe is SWIM's; the agent properties have none
		}
		lib, err := LoadLibrary(name, reg)
		if err != nil {
			t.Fatal(err)
		}
		v, err := Load(filepath.Join("fallback", name+"_fallback.toml"), reg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if v.Name != name+"_fallback" {
			t.Errorf("%s: variant named %q", name, v.Name)
		}
		if on, _ := v.Peer.KindConfig["fallback_probe"].(bool); !on {
			t.Errorf("%s: variant's kind_config %v has no fallback_probe = true", name, v.Peer.KindConfig)
		}
		delete(v.Peer.KindConfig, "fallback_probe")
		v.Name, v.Path, lib.Path = lib.Name, "", ""
		if !reflect.DeepEqual(lib, v) {
			t.Errorf("%s: the variant differs from the library property in more than fallback_probe:\nlibrary %+v\nvariant %+v", name, lib, v)
		}
	}
}
