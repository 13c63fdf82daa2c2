package builtin_test

import (
	"strings"
	"testing"

	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/hosts/pane"
)

// TestSummaries: each kind's Summary reads its own snapshot shape and
// gives "" (never a panic) for anything else.
func TestSummaries(t *testing.T) {
	reg := builtin.Registry()
	for _, c := range []struct{ tag, snap, want string }{
		{"agent", `{"id":"agent","phase":"calling","turn":2,"turns":3,"attempt":1,"pending_call":{"id":"t2.a1","frames":3,"bytes":594,"content_delivered":true},"pending_tools":[],"retries":1,"cancelling":false,"outcome":"","store_len":9,"store":"x"}`,
			"calling · turn 2/3 · call t2.a1 3 frames, content · retries 1 · store 9"},
		{"agent", `{"id":"agent","phase":"done","turn":4,"turns":3,"attempt":1,"pending_call":null,"pending_tools":[],"retries":0,"cancelling":false,"outcome":"ok","store_len":16,"store":""}`,
			"done ok · turn 3/3 · retries 0 · store 16"},
		{"provider", `{"id":"model","served":2,"entries":4,"used":[0,1],"streams":[{"call":"t2.a1","entry":1,"sent":5,"pieces":13}]}`,
			"served 2 · entries 2/4 used · next unused 2 · streaming t2.a1 entry 1 5/13"},
		{"tool", `{"id":"shell","effects":2,"used":1,"runs":[{"call":"t1.toolu_1","effect":"hang","state":"started"}]}`,
			"effects 1/2 used · t1.toolu_1 hang started"},
	} {
		k, _ := reg.Lookup(c.tag)
		if got := k.(pane.Summarizer).Summary([]byte(c.snap)); got != c.want {
			t.Errorf("%s: %q\nwant %q", c.tag, got, c.want)
		}
	}
	for _, tag := range []string{"agent", "provider", "tool"} {
		k, _ := reg.Lookup(tag)
		for _, junk := range []string{"", "null", "[]", "{", `{"phase":7}`, strings.Repeat("[", 10000), "\xff"} {
			if got := k.(pane.Summarizer).Summary([]byte(junk)); got != "" {
				t.Errorf("%s on %.20q: %q", tag, junk, got)
			}
		}
	}
}
