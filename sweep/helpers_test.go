package sweep

import (
	"context"
	"testing"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/property"
	"github.com/detsim/detsim/scenarios"
)

// lossy loads the cheap test property: echo peers over lossy links, an
// assertion that no send is lost. About a third of its seeds fail.
func lossy(t testing.TB) *property.Property {
	t.Helper()
	p, err := property.Load("testdata/echo_lossy.toml", builtin.Registry())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// runSeedAlone builds seed's scenario of p and runs it alone (RunScenario),
// failing the test if it cannot; it returns the scenario and the outcome.
func runSeedAlone(t testing.TB, p *property.Property, seed uint64, reg *hosts.Registry) (*scenarios.Scenario, *Outcome) {
	t.Helper()
	sc, err := p.Scenario(seed, reg)
	if err != nil {
		t.Fatal(err)
	}
	out, err := RunScenario(context.Background(), sc, reg)
	if err != nil {
		t.Fatal(err)
	}
	return sc, out
}

// libraryProperty loads the library property name, failing the test if it
// does not load.
func libraryProperty(t testing.TB, name string, reg *hosts.Registry) *property.Property {
	t.Helper()
	p, err := property.LoadLibrary(name, reg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
