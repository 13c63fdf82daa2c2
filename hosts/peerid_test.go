package hosts_test

import (
	"strings"
	"testing"

	"github.com/detsim/detsim/hosts"
)

// A peer id becomes a path component in a bundle: what ValidPeerID
// accepts is exactly [A-Za-z0-9_-]{1,64}, so "", "..", a separator or a
// 65th byte never reaches the filesystem.
func TestValidPeerID(t *testing.T) {
	for _, id := range []string{"a", "n1", "orch", "sa-050", "A_b-9", strings.Repeat("x", 64)} {
		if !hosts.ValidPeerID(id) {
			t.Errorf("ValidPeerID(%q) = false, want true", id)
		}
	}
	for _, id := range []string{"", ".", "..", "../x", "a/b", `a\b`, "a b", "é", "a.b", strings.Repeat("x", 65)} {
		if hosts.ValidPeerID(id) {
			t.Errorf("ValidPeerID(%q) = true, want false", id)
		}
	}
}
