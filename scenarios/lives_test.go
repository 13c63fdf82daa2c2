package scenarios

import (
	"strconv"
	"testing"
)

// TestParse_KillAndResurrectMustChangeWhetherAPeerRuns_Issue9 (issue 9
// §3): a PeerKill of a peer that is not running, or a PeerResurrect of
// one that is, is rejected. Each peer's mutations are walked in the order
// the engine applies them — by at_ns, then declared order — from its
// initial_state ("down" is not running).
func TestParse_KillAndResurrectMustChangeWhetherAPeerRuns_Issue9(t *testing.T) {
	down := with("[[peers]]\nid = \"c\"\nkind = \"echo\"\n", "[[peers]]\nid = \"c\"\nkind = \"echo\"\ninitial_state = \"down\"\n")
	mut := func(at int, kind, peer string) string {
		return "[[mutations]]\nat_ns = " + itoa(at) + "\nkind = \"" + kind + "\"\npeer = \"" + peer + "\"\n"
	}
	bad := []struct {
		name, src string
		want      []string
	}{
		{"kill twice", valid + mut(10, "PeerKill", "a") + mut(20, "PeerKill", "a"),
			[]string{`t.toml: mutations[1].peer: PeerKill of "a" at 20 ns, which is not running then (killed by mutations[0] at 10 ns)`}},
		{"kill a peer that starts down", down + mut(10, "PeerKill", "c"),
			[]string{`t.toml: mutations[0].peer: PeerKill of "c" at 10 ns, which is not running then (initial_state "down")`}},
		{"resurrect a running peer", valid + mut(10, "PeerResurrect", "b"),
			[]string{`t.toml: mutations[0].peer: PeerResurrect of "b" at 10 ns, which is already running (since the start)`}},
		{"resurrect twice", down + mut(10, "PeerResurrect", "c") + mut(20, "PeerResurrect", "c"),
			[]string{`t.toml: mutations[1].peer: PeerResurrect of "c" at 20 ns, which is already running (resurrected by mutations[0] at 10 ns)`}},
		// Declared out of time order: applied kill@5 then kill@30.
		{"time order, not declared order", valid + mut(30, "PeerKill", "a") + mut(5, "PeerKill", "a"),
			[]string{`t.toml: mutations[0].peer: PeerKill of "a" at 30 ns, which is not running then (killed by mutations[1] at 5 ns)`}},
		// Equal times apply in declared order: resurrect before kill.
		{"equal times in declared order", valid + mut(10, "PeerResurrect", "a") + mut(10, "PeerKill", "a"),
			[]string{`t.toml: mutations[0].peer: PeerResurrect of "a" at 10 ns, which is already running (since the start)`}},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) { wantParseErrs(t, c.src, c.want...) })
	}
	good := []struct{ name, src string }{
		{"kill then resurrect then kill", valid + mut(10, "PeerKill", "a") + mut(20, "PeerResurrect", "a") + mut(30, "PeerKill", "a")},
		{"resurrect a peer that starts down, then kill it", down + mut(10, "PeerResurrect", "c") + mut(20, "PeerKill", "c")},
		{"declared out of order but applied in order", valid + mut(20, "PeerResurrect", "a") + mut(10, "PeerKill", "a")},
		{"equal times: kill then resurrect", valid + mut(10, "PeerKill", "a") + mut(10, "PeerResurrect", "a")},
		{"peers are independent", valid + mut(10, "PeerKill", "a") + mut(10, "PeerKill", "b")},
	}
	for _, c := range good {
		if _, err := Parse("t.toml", []byte(c.src), testRegistry(), noFiles); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
