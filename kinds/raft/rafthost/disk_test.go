package rafthost

import (
	"strconv"
	"testing"
)

// TestStateDigest_IsTheStore: the digest apply records carry, kept put
// by put, is the digest of the store as it stands — whatever order the
// puts that built it came in — and two stores that differ have
// different digests.
func TestStateDigest_IsTheStore(t *testing.T) {
	a, b := newDisk([]uint64{1}), newDisk([]uint64{1})
	for i := range 200 {
		a.put("k"+strconv.Itoa(i%7), "v"+strconv.Itoa(i))
	}
	for i := 199; i >= 193; i-- { // only the last put to each key, in another order
		b.put("k"+strconv.Itoa(i%7), "v"+strconv.Itoa(i))
	}
	if a.state != stateDigest(a.kv) || a.state != b.state {
		t.Fatalf("kept %x, from scratch %x, built otherwise %x", a.state, stateDigest(a.kv), b.state)
	}
	b.put("k0", "other")
	if a.state == b.state {
		t.Fatal("two stores that differ have one digest")
	}
}
