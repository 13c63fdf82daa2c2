package scenarios

import (
	"slices"
	"testing"

	"github.com/detsim/detsim/network"
)

// overrideSrc is a two-peer scenario whose [default_link] sets the link
// field key to def and whose [[links]] entry a→b overrides it with over.
func overrideSrc(key, def, over string) string {
	return `name = "override"
duration_ns = 10_000
[default_tick]
period_ns = 100
[default_link]
bandwidth_bps = 1000
` + key + ` = ` + def + "\n" + echoPeers("a", "b") + `[[links]]
from = "*"
to = "*"
[[links]]
from = "a"
to = "b"
` + key + ` = ` + over + "\n"
}

// perEdge maps "from>to" to a policy field of each declared edge of s.
func perEdge(s *Scenario, field func(network.Policy) int64) map[string]int64 {
	got := map[string]int64{}
	for _, l := range s.Links {
		got[l.From+">"+l.To] = field(l.Policy)
	}
	return got
}

// bufferSrc sets send_buffer_bytes in [default_link] and overrides it on
// one [[links]] entry.
var bufferSrc = overrideSrc("send_buffer_bytes", "1_048_576", "67_895")

func TestParse_SendBufferBytes_5_2(t *testing.T) {
	t.Run("default is 4 MiB", func(t *testing.T) {
		s := mustParse(t, valid)
		if s.DefaultLink.SendBufferBytes != DefaultSendBufferBytes || DefaultSendBufferBytes != 4<<20 {
			t.Fatalf("default send_buffer_bytes = %d, want %d", s.DefaultLink.SendBufferBytes, 4<<20)
		}
		for _, l := range s.Edges() {
			if l.Policy.SendBufferBytes != DefaultSendBufferBytes {
				t.Fatalf("%s→%s: %d, want the default", l.From, l.To, l.Policy.SendBufferBytes)
			}
		}
	})
	t.Run("default_link sets it and [[links]] override it", func(t *testing.T) {
		s := mustParse(t, bufferSrc)
		got := perEdge(s, func(p network.Policy) int64 { return p.SendBufferBytes })
		if got["a>b"] != MinSendBufferBytes || got["b>a"] != 1<<20 || s.DefaultLink.SendBufferBytes != 1<<20 {
			t.Fatalf("send buffers %v, default %d; want a>b %d, b>a and default %d", got, s.DefaultLink.SendBufferBytes, MinSendBufferBytes, 1<<20)
		}
		roundTrip(t, s, testRegistry())
	})
	validAndListed(t, "the bounds themselves are valid", "send_buffer_bytes", "67895", "1073741824")
}

// validAndListed holds a [default_link] field to what every link field
// promises: each of values parses and round-trips (the subtest named
// valid), and properties and merge tools can list it (PolicyFields).
func validAndListed(t *testing.T, valid, key string, values ...string) {
	t.Run(valid, func(t *testing.T) {
		for _, v := range values {
			s := mustParse(t, with("bandwidth_bps = 1000", "bandwidth_bps = 1000\n"+key+" = "+v))
			roundTrip(t, s, testRegistry())
		}
	})
	t.Run("a property or merge tool can list it", func(t *testing.T) {
		if !slices.Contains(policyKeys(), key) {
			t.Fatal(key + " is not in PolicyFields")
		}
	})
}

func TestParse_RejectsInvalidSendBuffer_5_2(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		want string
	}{
		{"negative", with("bandwidth_bps = 1000", "bandwidth_bps = 1000\nsend_buffer_bytes = -1"),
			"t.toml: default_link.send_buffer_bytes: must be at least 67895 bytes (one largest UDP datagram with its headers at the smallest MTU), got -1"},
		{"zero is not 'unlimited'", with("bandwidth_bps = 1000", "bandwidth_bps = 1000\nsend_buffer_bytes = 0"),
			"t.toml: default_link.send_buffer_bytes: must be at least 67895 bytes (one largest UDP datagram with its headers at the smallest MTU), got 0"},
		{"smaller than one datagram", valid + "[[links]]\nfrom = \"a\"\nto = \"b\"\nsend_buffer_bytes = 67894\n",
			"t.toml: links[0].send_buffer_bytes: must be at least 67895 bytes (one largest UDP datagram with its headers at the smallest MTU), got 67894"},
		{"one datagram without its headers", with("bandwidth_bps = 1000", "bandwidth_bps = 1000\nsend_buffer_bytes = 65507"),
			"t.toml: default_link.send_buffer_bytes: must be at least 67895 bytes (one largest UDP datagram with its headers at the smallest MTU), got 65507"},
		{"above 1 GiB", with("bandwidth_bps = 1000", "bandwidth_bps = 1000\nsend_buffer_bytes = 1073741825"),
			"t.toml: default_link.send_buffer_bytes: must be at most 2^30 bytes (1 GiB), got 1073741825"},
		{"float", with("bandwidth_bps = 1000", "bandwidth_bps = 1000\nsend_buffer_bytes = 4e6"),
			"t.toml: default_link.send_buffer_bytes: must be an integer, got float 4e+06 (use an integer in the unit the key names)"},
		{"string with a unit", with("bandwidth_bps = 1000", "bandwidth_bps = 1000\nsend_buffer_bytes = \"4MiB\""),
			`t.toml: default_link.send_buffer_bytes: must be an integer, got string "4MiB"`},
		{"kilobytes", with("bandwidth_bps = 1000", "bandwidth_bps = 1000\nsend_buffer_kb = 4096"),
			"t.toml: default_link.send_buffer_kb: unknown key; sizes are integer bytes: did you mean send_buffer_bytes?"},
		{"mebibytes on a link", valid + "[[links]]\nfrom = \"a\"\nto = \"b\"\nsend_buffer_mib = 4\n",
			"t.toml: links[0].send_buffer_mib: unknown key; sizes are integer bytes: did you mean send_buffer_bytes?"},
	} {
		t.Run(tc.name, func(t *testing.T) { wantParseErrs(t, tc.src, tc.want) })
	}
}
