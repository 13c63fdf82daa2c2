package swimhost

import (
	"fmt"
	"testing"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/rng"
)

// TestBurst_BufferGoesBackEmpty: the start-up burst's buffer, once the
// engine has consumed it (Trim), serves the next host's burst, and it
// holds nothing of the actions it carried: no message or event kept
// alive, and a host that takes it sees only what it appends.
func TestBurst_BufferGoesBackEmpty(t *testing.T) {
	peers := make([]string, 300)
	for i := range peers {
		peers[i] = fmt.Sprintf("n%03d", i)
	}
	h := newHost("n000", map[string]any{}, "member", peers, rng.New(1).Host("n000", "swim"))
	acts := h.Tick(0)
	if len(acts) <= maxKeptActions {
		t.Fatalf("first tick returned %d actions, want a burst of more than %d", len(acts), maxKeptActions)
	}
	n := len(acts)
	h.(hosts.Trimmer).Trim()
	got := takeBurst(n)
	if len(got) != 0 || cap(got) < n {
		t.Fatalf("takeBurst(%d) = len %d cap %d", n, len(got), cap(got))
	}
	for i, a := range got[:cap(got)] {
		if a != (hosts.Action{}) {
			t.Fatalf("entry %d of a burst buffer taken back holds %+v", i, a)
		}
	}
}
