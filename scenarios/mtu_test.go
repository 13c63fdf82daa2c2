package scenarios

import (
	"testing"

	"github.com/detsim/detsim/network"
)

// TestParse_MTUBytes_5_7: mtu_bytes (the spec §5.7 amendment) is a §5.2
// link field like the others: set in [default_link], overridden per
// [[links]] entry, 0 meaning no fragmentation.
func TestParse_MTUBytes_5_7(t *testing.T) {
	t.Run("default_link sets it and [[links]] override it", func(t *testing.T) {
		s := mustParse(t, overrideSrc("mtu_bytes", "9000", "0"))
		got := perEdge(s, func(p network.Policy) int64 { return p.MTUBytes })
		if got["a>b"] != 0 || got["b>a"] != 9000 || s.DefaultLink.MTUBytes != 9000 {
			t.Fatalf("MTUs %v, default %d; want a>b 0, b>a and default 9000", got, s.DefaultLink.MTUBytes)
		}
		roundTrip(t, s, testRegistry())
	})
	validAndListed(t, "0 and the bounds themselves are valid", "mtu_bytes", "0", "576", "1500", "65535")
}

func TestParse_RejectsInvalidMTU_5_7(t *testing.T) {
	const low = "must be at least 576 bytes (the smallest IPv4 MTU), or 0 for no fragmentation"
	for _, tc := range []struct {
		name string
		src  string
		want string
	}{
		{"one below the smallest MTU", with("bandwidth_bps = 1000", "bandwidth_bps = 1000\nmtu_bytes = 575"),
			"t.toml: default_link.mtu_bytes: " + low + ", got 575"},
		{"one above the largest packet", valid + "[[links]]\nfrom = \"a\"\nto = \"b\"\nmtu_bytes = 65536\n",
			"t.toml: links[0].mtu_bytes: must be at most 65535 bytes (the largest IPv4 packet), got 65536"},
		{"negative", with("bandwidth_bps = 1000", "bandwidth_bps = 1000\nmtu_bytes = -1"),
			"t.toml: default_link.mtu_bytes: " + low + ", got -1"},
		{"one byte", valid + "[[links]]\nfrom = \"a\"\nto = \"b\"\nmtu_bytes = 1\n",
			"t.toml: links[0].mtu_bytes: " + low + ", got 1"},
		{"float", with("bandwidth_bps = 1000", "bandwidth_bps = 1000\nmtu_bytes = 1500.0"),
			"t.toml: default_link.mtu_bytes: must be an integer, got float 1500 (use an integer in the unit the key names)"},
	} {
		t.Run(tc.name, func(t *testing.T) { wantParseErrs(t, tc.src, tc.want) })
	}
}
