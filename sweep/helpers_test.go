package sweep

import (
	"testing"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/property"
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
