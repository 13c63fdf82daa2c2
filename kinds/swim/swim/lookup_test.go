package swim

import (
	"fmt"
	"testing"
)

// TestLookup_MemoNeverMisleads: ids that share a memo slot (same length,
// same last byte), looked up in turn, unknown ids among them, and members
// learnt after the memo filled, each find their own position, as a plain
// search over the sorted ids does. The memo only remembers; it must never
// answer for another member.
func TestLookup_MemoNeverMisleads(t *testing.T) {
	var peers []string
	for c := 'a'; c <= 'h'; c++ {
		peers = append(peers, fmt.Sprintf("%c1", c), fmt.Sprintf("%c2", c))
	}
	n := New("a1", DefaultConfig(), Member, peers, &testRand{s: 3})
	want := func(id string) (int32, bool) {
		for i := range n.members {
			if n.id(int32(i)) == id {
				return int32(i), true
			}
		}
		return -1, false
	}
	ids := append([]string{"z1", "zz", "x"}, peers...)
	for round := range 3 {
		if round == 1 {
			// Learnt later: appended to members, inserted into addedByID.
			n.addMember("c9")
			n.addMember("b0")
			ids = append(ids, "c9", "b0")
		}
		for i := range ids {
			for _, id := range []string{ids[i], ids[(i*7+round)%len(ids)]} {
				gi, gok := n.lookup(id)
				wi, wok := want(id)
				if gi != wi || gok != wok {
					t.Fatalf("round %d: lookup(%q) = %d, %v; want %d, %v", round, id, gi, gok, wi, wok)
				}
			}
		}
	}
	if memoSlot("a1") != memoSlot("b1") {
		t.Fatal("the test's ids no longer share memo slots")
	}
}

// TestMembers_IDOrderMergesLearnt: members learnt after the start, before,
// between and after the initial ones, come out in id order with them, as
// join responses, snapshots and Members list them.
func TestMembers_IDOrderMergesLearnt(t *testing.T) {
	n := New("b", DefaultConfig(), Member, []string{"b", "d", "f"}, &testRand{s: 3})
	for _, id := range []string{"e", "a", "g", "c"} {
		n.addMember(id)
	}
	got := fmt.Sprint(n.Members())
	if want := "[a b c d e f g]"; got != want {
		t.Fatalf("Members() = %s, want %s", got, want)
	}
}
