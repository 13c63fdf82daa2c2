package property

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/detsim/detsim/hosts/builtin"
)

// The fallback variants (property/fallback/, docs/gossip-flap.md "With
// the fallback probe") are their properties with fallback_probe = true on
// every peer and nothing else changed, so a sweep of each pair compares
// the fallback alone. Every SWIM property has one, library or measurement
// (property/measure/), except a property that already has the fallback
// on: gossip_flap, the complete fix, is its own variant, and a stale file
// claiming to be its variant would compare nothing.
func TestFallbackVariants_DifferOnlyInTheFallback(t *testing.T) {
	reg := builtin.Registry()
	var props []*Property
	for _, name := range LibraryNames(reg) {
		if !strings.HasPrefix(name, "gossip_flap") {
			continue // the fallback probe is SWIM's; the other kinds have none
		}
		lib := libraryProperty(t, name, reg)
		props = append(props, lib)
	}
	measured, err := filepath.Glob(filepath.Join("measure", "gossip_flap*.toml"))
	if err != nil || len(measured) == 0 {
		t.Fatalf("no measurement properties in measure/: %v", err)
	}
	for _, path := range measured {
		p, err := Load(path, reg)
		if err != nil {
			t.Fatal(err)
		}
		props = append(props, p)
	}
	for _, lib := range props {
		name := lib.Name
		variant := filepath.Join("fallback", name+"_fallback.toml")
		if on, _ := lib.Peer.KindConfig["fallback_probe"].(bool); on {
			if _, err := os.Stat(variant); err == nil {
				t.Errorf("%s has the fallback on already, yet %s claims to be its variant", name, variant)
			}
			continue
		}
		v, err := Load(variant, reg)
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
			t.Errorf("%s: the variant differs from its property in more than fallback_probe:\nproperty %+v\nvariant  %+v", name, lib, v)
		}
	}
}

// gossip_flap_lan, kept as a measurement, is gossip_flap_legacy with the
// one SWIM setting gossip changed (docs/gossip-flap.md, "The complete
// fix, measured"): the setting differs only in the queue.
func TestMeasureLAN_IsTheLegacyTwinWithTheBoundedQueue(t *testing.T) {
	reg := builtin.Registry()
	legacy := libraryProperty(t, "gossip_flap_legacy", reg)
	lan, err := Load(filepath.Join("measure", "gossip_flap_lan.toml"), reg)
	if err != nil {
		t.Fatal(err)
	}
	if lan.Peer.KindConfig["gossip"] != "bounded" || legacy.Peer.KindConfig["gossip"] != "legacy" {
		t.Fatalf("gossip: lan %v, legacy %v", lan.Peer.KindConfig["gossip"], legacy.Peer.KindConfig["gossip"])
	}
	lan.Peer.KindConfig["gossip"] = "legacy"
	if !reflect.DeepEqual(lan.Peer, legacy.Peer) || !reflect.DeepEqual(lan.Space, legacy.Space) || !reflect.DeepEqual(lan.Assertions, legacy.Assertions) {
		t.Errorf("gossip_flap_lan differs from gossip_flap_legacy in more than the queue:\nlan    %+v\nlegacy %+v", lan.Peer, legacy.Peer)
	}
	for seed := range uint64(5) {
		a, _ := lan.Scenario(seed, reg)
		b, _ := legacy.Scenario(seed, reg)
		if !reflect.DeepEqual(a.Links, b.Links) || a.DefaultLink != b.DefaultLink || len(a.Peers) != len(b.Peers) {
			t.Fatalf("seed %d: the two drew different networks", seed)
		}
	}
}
