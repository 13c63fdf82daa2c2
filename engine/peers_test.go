package engine

import (
	"strings"
	"testing"
)

// byAddr answers only for the engine's own strings, and for those always
// with the right index: ids that share bytes (one a prefix of another cut
// from the same buffer) are told apart by length, and an equal id built
// elsewhere is left to the map.
func TestByAddr_FindsOnlyTheEnginesOwnStrings(t *testing.T) {
	buf := "p10p2p3"
	peers := []string{buf[:2], buf[:3], buf[3:5], buf[5:7], "q", ""} // p1 and p10 share an address
	tab := newByAddr(peers)
	for i, p := range peers {
		want := i
		if p == "" {
			want = -1
		}
		if got := tab.find(peers, p); got != want {
			t.Errorf("find(%q) = %d, want %d", p, got, want)
		}
		if p != "" {
			if got := tab.find(peers, strings.Clone(p)); got != -1 {
				t.Errorf("find(clone of %q) = %d, want -1 (the map's business)", p, got)
			}
		}
	}
	if got := tab.find(peers, buf[:1]); got != -1 {
		t.Errorf("find(%q), a prefix at p1's address, = %d, want -1", buf[:1], got)
	}
}
