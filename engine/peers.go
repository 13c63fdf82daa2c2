package engine

import (
	"math/bits"
	"unsafe"
)

// byAddr finds a peer's index from its id by the address and length of
// the id's bytes. Hosts name the peers they send to with the strings the
// engine gave them (the peers of Kind.New, Delivery.From), which are the
// engine's own, so one multiply and one compare find them, where hashing
// the id's bytes for the map cost an echo event 6 % (docs/BENCHMARKS.md,
// "The engine near its floor"). An id whose bytes live elsewhere is not
// found here and goes to the map; both ways give the same index, so the
// address never decides anything but the speed. Go's collector does not move memory,
// and e.peers keeps every id alive, so an address found here cannot have
// been reused by another string.
type byAddr struct {
	slots []int32 // open addressing on the address; -1: empty
	shift uint
}

func newByAddr(peers []string) byAddr {
	n := 1
	for n < 2*len(peers) {
		n <<= 1
	}
	t := byAddr{slots: make([]int32, n), shift: uint(64 - bits.TrailingZeros(uint(n)))}
	for i := range t.slots {
		t.slots[i] = -1
	}
	for i, p := range peers {
		if len(p) == 0 {
			continue // no address to go by; the map finds it
		}
		j := t.home(p)
		for t.slots[j] >= 0 {
			j = (j + 1) & (len(t.slots) - 1)
		}
		t.slots[j] = int32(i)
	}
	return t
}

func (t *byAddr) home(s string) int {
	a := uint64(uintptr(unsafe.Pointer(unsafe.StringData(s))))
	return int((a * 0x9e3779b97f4a7c15) >> t.shift)
}

// find returns the index of the peer whose id is s itself (the same
// bytes at the same address), or -1.
func (t *byAddr) find(peers []string, s string) int {
	if len(s) == 0 {
		return -1
	}
	mask := len(t.slots) - 1
	for j := t.home(s); ; j = (j + 1) & mask {
		i := t.slots[j]
		if i < 0 {
			return -1
		}
		if p := peers[i]; len(p) == len(s) && unsafe.StringData(p) == unsafe.StringData(s) {
			return int(i)
		}
	}
}
