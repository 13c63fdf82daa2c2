package shrink

import (
	"fmt"
	"testing"

	"github.com/detsim/detsim/hosts/builtin"
)

const refs = `
name = "r"
duration_ns = 10_000_000_000
[default_tick]
period_ns = 1_000_000_000
[default_link]
bandwidth_bps = 1000
[[peers]]
id = "a"
kind = "swim"
[[peers]]
id = "b"
kind = "swim"
initial_state = "joining"
kind_config = { seeds = ["a", "c"] }
[[peers]]
id = "c"
kind = "swim"
[[links]]
from = "*"
to = "*"
[[links]]
from = "a"
to = "c"
[[links]]
from = "c"
to = "b"
[[mutations]]
at_ns = 1
kind = "PeerKill"
peer = "c"
[[mutations]]
at_ns = 2
kind = "Partition"
peers_a = ["a", "c"]
peers_b = ["b"]
[[mutations]]
at_ns = 3
kind = "Partition"
peers_a = ["c"]
peers_b = ["b"]
[[mutations]]
at_ns = 4
kind = "LossBurst"
links = [{ from = "a", to = "c" }, { from = "a", to = "b" }]
prob_ppm = 5
duration_ns = 9
[[assertions]]
name = "keep"
kind = "all_alive_throughout"
peers = ["a", "c"]
[[assertions]]
name = "about_c"
kind = "self_incarnation_bounded"
peer = "c"
max_value = 1
`

// TestRemovePeers_KeepsReferentialIntegrity: removing c removes its links
// and the mutations and assertions that name only it, trims it from the
// ones that name others too, and from b's seeds.
func TestRemovePeers_KeepsReferentialIntegrity(t *testing.T) {
	tr, err := decode([]byte(refs))
	if err != nil {
		t.Fatal(err)
	}
	got, ok := removePeers(tr, []string{"c"}, "keep")
	if !ok {
		t.Fatal("refused")
	}
	want := map[string]string{
		"peers":      "[map[id:a kind:swim] map[id:b initial_state:joining kind:swim kind_config:map[seeds:[a]]]]",
		"links":      "[map[from:* to:*]]",
		"mutations":  "[map[at_ns:2 kind:Partition peers_a:[a] peers_b:[b]] map[at_ns:4 duration_ns:9 kind:LossBurst links:[map[from:a to:b]] prob_ppm:5]]",
		"assertions": "[map[kind:all_alive_throughout name:keep peers:[a]]]",
	}
	for k, w := range want {
		if g := fmt.Sprint(got[k]); g != w {
			t.Errorf("%s:\n got %s\nwant %s", k, g, w)
		}
	}
	if fmt.Sprint(tr["peers"]) == fmt.Sprint(got["peers"]) {
		t.Error("removePeers changed its input")
	}
	if _, ok := removePeers(tr, []string{"a", "c"}, "keep"); ok {
		t.Error("removed every peer the target names")
	}
	if _, ok := removePeers(tr, []string{"a", "b", "c"}, "x"); ok {
		t.Error("removed every peer")
	}
}

func TestSetDuration_ClampsEverythingTimed(t *testing.T) {
	tr, _ := decode([]byte(refs + "[[snapshots]]\nat_ns = 5\n[[snapshots]]\nat_ns = 1\n[[assertions]]\nname = \"w\"\nkind = \"no_flap_while_probes_ok\"\npeer = \"a\"\nwindow_start_ns = 0\nwindow_end_ns = 10_000_000_000\n"))
	got := setDuration(tr, 3, builtin.Registry())
	if fmt.Sprint(got["duration_ns"]) != "3" || len(list(got, "mutations")) != 3 || len(list(got, "snapshots")) != 1 {
		t.Errorf("duration %v, %d mutations, %d snapshots", got["duration_ns"], len(list(got, "mutations")), len(list(got, "snapshots")))
	}
	if w := table(got, "assertions", 2); w["window_end_ns"] != int64(3) || w["window_start_ns"] != int64(0) {
		t.Errorf("window %v", w)
	}
}
