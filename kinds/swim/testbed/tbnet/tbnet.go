// Package tbnet holds what every process of a kernel testbed run agrees
// on: how the run's network namespaces are named, which addresses live in
// them, and the check a daemon (swimd, bench's memberlistd) makes before
// it binds or talks to an address that is not loopback.
//
// The rule it enforces is the project's: anything live binds to
// loopback, or to an address inside a network namespace that a testbed
// run made itself. A daemon given --netns NAME checks that NAME is a
// testbed namespace and that it is running inside that very namespace;
// only then may it use the testbed's subnet, which exists nowhere else.
package tbnet

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"strings"
	"syscall"
)

// Prefix starts the name of every namespace a testbed run makes:
// dtb-<run>-<role>, where <run> is the run's id.
const Prefix = "dtb-"

// MaxPeers is how many peers one testbed run holds: each is a namespace,
// a veth pair, an address in Subnet and a traffic class per other peer.
const MaxPeers = 32

// Subnet holds every testbed address: peer i is PeerAddr(i) in
// 10.213.(i+1).0/24, whose .1 is the router's side of its veth pair.
var Subnet = netip.MustParsePrefix("10.213.0.0/16")

// PeerAddr is peer i's address inside its namespace (i from 0).
func PeerAddr(i int) netip.Addr { return netip.AddrFrom4([4]byte{10, 213, byte(i + 1), 2}) }

// RouterAddr is the router namespace's address on peer i's veth pair.
func RouterAddr(i int) netip.Addr { return netip.AddrFrom4([4]byte{10, 213, byte(i + 1), 1}) }

// PeerIndex is the peer whose PeerAddr is a, or -1.
func PeerIndex(a netip.Addr) int {
	if !a.Is4() {
		return -1
	}
	b := a.As4()
	if b[0] != 10 || b[1] != 213 || b[3] != 2 || b[2] == 0 || int(b[2]) > MaxPeers {
		return -1
	}
	return int(b[2]) - 1
}

// ValidName reports whether name is a testbed namespace name. A character
// class check alike in shape to the debugger's query keys': each has its
// own prefix, letters and length.
func ValidName(name string) bool {
	if !strings.HasPrefix(name, Prefix) || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// InNamespace checks that this process runs inside the network namespace
// named name, which must be a testbed namespace (ValidName): the inode of
// /run/netns/<name> (where `ip netns add` pins it) must be the one of
// /proc/self/ns/net.
func InNamespace(name string) error {
	if !ValidName(name) {
		return fmt.Errorf("--netns %q: not a testbed namespace (want %s<run>-<role>)", name, Prefix)
	}
	pinned, err := nsID("/run/netns/" + name)
	if err != nil {
		return fmt.Errorf("--netns %s: %v", name, err)
	}
	self, err := nsID("/proc/self/ns/net")
	if err != nil {
		return fmt.Errorf("--netns %s: reading this process's namespace: %v", name, err)
	}
	if pinned != self {
		return fmt.Errorf("--netns %s: this process does not run inside it (start it with ip netns exec %s)", name, name)
	}
	return nil
}

type nsKey struct{ dev, ino uint64 }

func nsID(path string) (nsKey, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nsKey{}, err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nsKey{}, errors.New("no inode on this system")
	}
	return nsKey{uint64(st.Dev), uint64(st.Ino)}, nil
}

// CheckAddr reports whether a daemon may bind or address a: a loopback
// address always; with netns set, an address in Subnet, once InNamespace
// has confirmed the process runs in that testbed namespace. what names
// the flag for the message.
func CheckAddr(what string, a netip.Addr, netns string) error {
	if a.IsLoopback() {
		return nil
	}
	if netns == "" {
		return fmt.Errorf("%s: %s is not a loopback address; live nodes talk only on this machine (inside a testbed namespace, with --netns, the testbed's %s)", what, a, Subnet)
	}
	if !Subnet.Contains(a) {
		return fmt.Errorf("%s: %s is neither loopback nor in the testbed's %s", what, a, Subnet)
	}
	return nil
}
