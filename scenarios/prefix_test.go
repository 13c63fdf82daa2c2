package scenarios

import (
	"strings"
	"testing"
)

// A [[links]] endpoint "eu-*" is every peer whose id starts with "eu-":
// how a thousand-peer WAN says its regions without listing 750 000 edges.
func TestLinks_PrefixEndpoints(t *testing.T) {
	src := `name = "regions"
duration_ns = 1_000_000_000
[default_tick]
period_ns = 100_000_000
[default_link]
latency_ns = 1_000
bandwidth_bps = 1_000_000
[[peers]]
id = "eu-1"
kind = "echo"
[[peers]]
id = "eu-2"
kind = "echo"
[[peers]]
id = "us-1"
kind = "echo"
[[links]]
from = "*"
to = "*"
[[links]]
from = "eu-*"
to = "us-*"
latency_ns = 40_000_000
[[links]]
from = "eu-*"
to = "eu-*"
latency_ns = 5_000_000
`
	s, err := Parse("regions.toml", []byte(src), testRegistry(), noFiles)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"eu-1→eu-2": 5_000_000, "eu-2→eu-1": 5_000_000, "eu-1→us-1": 40_000_000, "eu-2→us-1": 40_000_000, "us-1→eu-1": 1_000, "us-1→eu-2": 1_000}
	got := map[string]int64{}
	for _, l := range s.Edges() {
		got[l.From+"→"+l.To] = l.Policy.LatencyNs
	}
	if len(got) != len(want) {
		t.Errorf("edges %v, want %v", got, want)
	}
	for e, lat := range want {
		if got[e] != lat {
			t.Errorf("%s: latency %d, want %d", e, got[e], lat)
		}
	}
	for _, bad := range []struct{ ep, say string }{
		{"ap-*", `"ap-*" names no peer: no declared id starts with "ap-"`},
		{"e*-*", "a pattern is a prefix followed by one"},
	} {
		_, err := Parse("regions.toml", []byte(strings.Replace(src, `from = "eu-*"
to = "us-*"`, `from = "`+bad.ep+`"
to = "us-*"`, 1)), testRegistry(), noFiles)
		if err == nil || !strings.Contains(err.Error(), bad.say) {
			t.Errorf("from = %q: %v, want an error saying %q", bad.ep, err, bad.say)
		}
	}
}
