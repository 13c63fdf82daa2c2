package property

import (
	"testing"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/scenarios"
)

const echoBaseSrc = `name = "b"
duration_ns = 2_000_000_000
[default_tick]
period_ns = 100_000_000
[default_link]
bandwidth_bps = 1_000_000
[[peers]]
id = "x"
kind = "echo"
`

const echoProperty = `name = "echo"
expect = "pass"
base = "b.toml"

[space]
peers = [2, 4]
latency_ns = [1_000_000, 9_000_000]

[peer]
kind = "echo"

[[assertions]]
kind = "event_count"
event_type = "drop_on_send"
max = 0
`

// echoBase resolves every base to echoBaseSrc.
func echoBase(reg *hosts.Registry) func(string) (*scenarios.Scenario, error) {
	return func(ref string) (*scenarios.Scenario, error) {
		if ref != "b.toml" {
			return nil, scenarios.Errors{{File: ref, Msg: "no such file"}}
		}
		return scenarios.Parse(ref, []byte(echoBaseSrc), reg, nil)
	}
}

// libraryProperty loads the library property name, failing t if it does
// not load.
func libraryProperty(t testing.TB, name string, reg *hosts.Registry) *Property {
	t.Helper()
	p, err := LoadLibrary(name, reg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// mustScenario is p's scenario of seed, failing the test on an error.
func mustScenario(t testing.TB, p *Property, seed uint64, reg *hosts.Registry) *scenarios.Scenario {
	t.Helper()
	sc, err := p.Scenario(seed, reg)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}
