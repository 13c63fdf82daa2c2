package builtin_test

import (
	"reflect"
	"testing"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/hosts/kindcfg"
	"github.com/detsim/detsim/rng"
	"github.com/detsim/detsim/scenarios"
)

// TestFaultCatalogs_ApplyGivesValidConfigs: every fault of every kind's
// catalog, at every place of the agent_faults base where it fits and
// with parameters from many streams, gives a kind_config its kind
// accepts, leaves the input untouched, and is a pure function of its
// stream.
func TestFaultCatalogs_ApplyGivesValidConfigs(t *testing.T) {
	reg := builtin.Registry()
	sc, err := scenarios.LoadLibrary("agent/faults_base", reg)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(sc.Peers))
	for i, p := range sc.Peers {
		ids[i] = p.ID
	}
	applied := map[string]int{}
	for _, p := range sc.Peers {
		k, _ := reg.Lookup(p.Kind)
		cat := hosts.FaultsOf(k)
		if cat == nil {
			t.Fatalf("%s: kind %s has no fault catalog", p.ID, p.Kind)
		}
		before := kindcfg.Clone(p.KindConfig)
		for place := range cat.Places(p.KindConfig) {
			for _, f := range cat.Kinds {
				if !cat.Fits(p.KindConfig, place, f) {
					continue
				}
				for s := range uint64(20) {
					out := cat.Apply(p.KindConfig, place, f, rng.New(s).Host("t", "x"))
					again := cat.Apply(p.KindConfig, place, f, rng.New(s).Host("t", "x"))
					if !reflect.DeepEqual(out, again) {
						t.Fatalf("%s place %d %s: Apply is not a function of its stream", p.ID, place, f)
					}
					if errs := k.Validate(out, ids); len(errs) > 0 {
						t.Fatalf("%s place %d %s (stream %d): %v", p.ID, place, f, s, errs)
					}
					if cat.Fits(out, place, f) {
						t.Errorf("%s place %d %s: the place still fits a fault after one was put there", p.ID, place, f)
					}
				}
				applied[p.Kind+"/"+f]++
			}
		}
		if !reflect.DeepEqual(before, p.KindConfig) {
			t.Errorf("%s: Apply modified its input", p.ID)
		}
	}
	for _, tag := range []string{"provider", "tool", "agent"} {
		k, _ := reg.Lookup(tag)
		for _, f := range hosts.FaultsOf(k).Kinds {
			if applied[tag+"/"+f] == 0 {
				t.Errorf("%s/%s fits no place of the base: the sweep would never draw it", tag, f)
			}
		}
	}
}
