package tbnet

import (
	"net/netip"
	"strings"
	"testing"
)

func TestPeerAddr_IndexRoundTrip(t *testing.T) {
	for i := range MaxPeers {
		a := PeerAddr(i)
		if got := PeerIndex(a); got != i {
			t.Errorf("PeerIndex(PeerAddr(%d) = %s) = %d", i, a, got)
		}
		if !Subnet.Contains(a) || !Subnet.Contains(RouterAddr(i)) {
			t.Errorf("peer %d: %s or %s outside %s", i, a, RouterAddr(i), Subnet)
		}
		if PeerIndex(RouterAddr(i)) != -1 {
			t.Errorf("the router's %s reads as a peer", RouterAddr(i))
		}
	}
	for _, s := range []string{"127.0.0.1", "10.213.0.2", "10.213.33.2", "10.214.1.2", "::1"} {
		if got := PeerIndex(netip.MustParseAddr(s)); got != -1 {
			t.Errorf("PeerIndex(%s) = %d, want -1", s, got)
		}
	}
}

func TestValidName(t *testing.T) {
	for name, want := range map[string]bool{
		"dtb-3fa2c1-p0": true, "dtb-3fa2c1-r": true,
		"dtb": false, "netns0": false, "dtb-../x": false, "dtb-A": false, "dtb-" + strings.Repeat("a", 61): false,
	} {
		if got := ValidName(name); got != want {
			t.Errorf("ValidName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestCheckAddr(t *testing.T) {
	cases := []struct {
		addr, netns string
		ok          bool
	}{
		{"127.0.0.1", "", true},
		{"::1", "", true},
		{"10.213.1.2", "", false},
		{"10.213.1.2", "dtb-x-p0", true},
		{"192.168.1.1", "dtb-x-p0", false},
		{"8.8.8.8", "", false},
	}
	for _, c := range cases {
		err := CheckAddr("--bind", netip.MustParseAddr(c.addr), c.netns)
		if (err == nil) != c.ok {
			t.Errorf("CheckAddr(%s, %q) = %v, want ok=%v", c.addr, c.netns, err, c.ok)
		}
	}
}

// TestInNamespace_RefusesWhereItDoesNotRun: this test process runs in the
// machine's namespace, so no testbed name can be confirmed.
func TestInNamespace_RefusesWhereItDoesNotRun(t *testing.T) {
	for _, name := range []string{"dtb-nosuchrun-p0", "netns0", ""} {
		if err := InNamespace(name); err == nil {
			t.Errorf("InNamespace(%q) = nil", name)
		}
	}
}
