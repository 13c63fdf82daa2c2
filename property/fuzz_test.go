package property

import (
	"testing"

	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/scenarios"
)

// FuzzParseProperty feeds arbitrary bytes to Parse: it must never panic
// or hang, and a property it accepts must expand every seed it is asked
// for into a valid scenario or a clear error.
func FuzzParseProperty(f *testing.F) {
	reg := builtin.Registry()
	for _, name := range LibraryNames(reg) {
		data, err := readLibrary(name, reg)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(echoProperty))
	f.Add([]byte(echoProperty + "\n[space.kind_config]\npayload_bytes = [1, 9]\n"))
	base := echoBase(reg)
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse("fuzz.toml", data, reg, func(ref string) (*scenarios.Scenario, error) {
			if ref == "b.toml" {
				return base(ref)
			}
			return scenarios.LoadLibrary(ref, reg)
		})
		if err != nil {
			if p != nil || err.Error() == "" {
				t.Fatal("a property and an error, or an empty error")
			}
			return
		}
		for seed := range uint64(3) {
			sc, err := p.Scenario(seed, reg)
			if err != nil && err.Error() == "" {
				t.Fatal("empty error")
			}
			if err == nil && len(sc.Peers) == 0 {
				t.Fatal("a scenario without peers")
			}
		}
	})
}
