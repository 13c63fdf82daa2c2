package property

import (
	"strings"
	"testing"

	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/scenarios"
)

// with returns echoProperty with old replaced by new (old must occur).
func with(t *testing.T, old, new string) string {
	t.Helper()
	if !strings.Contains(echoProperty, old) {
		t.Fatalf("%q not in the test property", old)
	}
	return strings.Replace(echoProperty, old, new, 1)
}

func TestParse_RejectsBadPropertiesWithTheReason(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want []string // each must appear in the error text
	}{
		{"inverted range", with(t, "latency_ns = [1_000_000, 9_000_000]", "latency_ns = [9_000_000, 1_000_000]"),
			[]string{"p.toml: space.latency_ns: [9000000, 1000000] is empty: min 9000000 is greater than max 1000000"}},
		{"inverted peers", with(t, "peers = [2, 4]", "peers = [4, 2]"), []string{"space.peers: [4, 2] is empty"}},
		{"no peers", with(t, "peers = [2, 4]", "peers = 0"), []string{"space.peers: 0: min must be at least 1"}},
		{"too many peers", with(t, "peers = [2, 4]", "peers = [2, 5000]"), []string{"space.peers: [2, 5000]: max must be at most 128"}},
		{"missing peers", with(t, "peers = [2, 4]\n", ""), []string{"space.peers: missing (required)"}},
		{"negative latency", with(t, "latency_ns = [1_000_000, 9_000_000]", "latency_ns = [-1, 9]"), []string{"space.latency_ns: [-1, 9]: min must be at least 0"}},
		{"zero bandwidth", with(t, "latency_ns = [1_000_000, 9_000_000]", "bandwidth_bps = [0, 9]"), []string{"space.bandwidth_bps: [0, 9]: min must be at least 1"}},
		{"send buffer below one datagram", with(t, "latency_ns = [1_000_000, 9_000_000]", "send_buffer_bytes = [0, 100_000]"), []string{"space.send_buffer_bytes: [0, 100000]: min must be at least 67895"}},
		{"MTU range reaching below 576", with(t, "latency_ns = [1_000_000, 9_000_000]", "mtu_bytes = [0, 1500]"), []string{"space.mtu_bytes: [0, 1500]: min must be at least 576"}},
		{"MTU above the largest packet", with(t, "latency_ns = [1_000_000, 9_000_000]", "mtu_bytes = 65536"), []string{"space.mtu_bytes: 65536: max must be at most 65535"}},
		{"loss over a million", with(t, "latency_ns = [1_000_000, 9_000_000]", "loss_prob_ppm = [0, 2_000_000]"), []string{"max must be at most 1000000"}},
		{"three-element range", with(t, "peers = [2, 4]", "peers = [2, 3, 4]"), []string{"space.peers: want an integer or an array [min, max] of two integers, got an array of 3"}},
		{"float range", with(t, "latency_ns = [1_000_000, 9_000_000]", "latency_ns = 1.5"), []string{"space.latency_ns: want an integer", "got float 1.5 (use an integer"}},
		{"unknown space key", with(t, "latency_ns = [1_000_000, 9_000_000]", "latency_ms = 3"), []string{"space.latency_ms: unknown key"}},
		{"unknown top key", with(t, "expect = \"pass\"", "expect = \"pass\"\nexpected = 3"), []string{"p.toml: expected: unknown key"}},
		{"unknown peer key", with(t, "kind = \"echo\"\n", "kind = \"echo\"\ncolour = 3\n"), []string{"peer.colour: unknown key"}},
		{"bad expect", with(t, "expect = \"pass\"", "expect = \"maybe\""), []string{"expect: \"maybe\": want \"pass\" or \"fail\""}},
		{"missing expect", with(t, "expect = \"pass\"\n", ""), []string{"expect: missing (required)"}},
		{"percent on a pass property", with(t, "expect = \"pass\"", "expect = \"pass\"\nmin_failing_percent = 50"), []string{"min_failing_percent: only an expect = \"fail\" property has one"}},
		{"percent out of range", with(t, "expect = \"pass\"", "expect = \"fail\"\nmin_failing_percent = 101"), []string{"min_failing_percent: must be 1 to 100, got 101"}},
		{"bad name", with(t, `name = "echo"`, `name = "a/b"`), []string{`name: "a/b": want 1 to 44 of`}},
		{"missing base", with(t, "base = \"b.toml\"\n", ""), []string{"base: missing (required)"}},
		{"unknown base", with(t, `base = "b.toml"`, `base = "nope.toml"`), []string{"p.toml: base: nope.toml: no such file"}},
		{"no peer table", with(t, "[peer]\nkind = \"echo\"\n", ""), []string{"peer: missing (required table)"}},
		{"no assertions", strings.Split(echoProperty, "[[assertions]]")[0], []string{"assertions: missing"}},
		{"bad kind_config", with(t, "kind = \"echo\"\n", "kind = \"echo\"\nkind_config = { payload_bytes = \"big\" }\n"),
			[]string{"the scenario at the space's minimum is invalid: peers[p0].kind_config.payload_bytes: must be an integer"}},
		{"unknown kind", with(t, "kind = \"echo\"\n", "kind = \"nope\"\n"), []string{"the scenario at the space's minimum is invalid: peers[p0].kind: unknown host kind"}},
		{"bad assertion", with(t, "max = 0", "max = -1"), []string{"the scenario at the space's minimum is invalid: assertions["}},
		{"kind_config range inverted", with(t, "[peer]", "[space.kind_config]\npayload_bytes = [20, 10]\n\n[peer]"), []string{"space.kind_config.payload_bytes: [20, 10] is empty"}},
		{"syntax error", "name = \n", []string{"p.toml: line 1"}},
		{"too deep", "x = " + strings.Repeat("[", 40), []string{"nest more than 32 levels"}},
		{"too large", strings.Repeat("#", MaxFileBytes+1), []string{"a property file may be at most"}},
	}
	reg := builtin.Registry()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Parse("p.toml", []byte(c.src), reg, echoBase(reg))
			if err == nil || p != nil {
				t.Fatalf("accepted:\n%s", c.src)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n%v\nwant it to contain %q", err, w)
				}
			}
		})
	}
}

// TestParse_MTUOffIsAValidSpace_5_7: mtu_bytes = 0 turns fragmentation
// off, so a space may fix it at 0 though its range starts at 576.
func TestParse_MTUOffIsAValidSpace_5_7(t *testing.T) {
	reg := builtin.Registry()
	for _, v := range []string{"0", "[576, 9000]", "1500"} {
		if _, err := Parse("p.toml", []byte(with(t, "latency_ns = [1_000_000, 9_000_000]", "latency_ns = [1_000_000, 9_000_000]\nmtu_bytes = "+v)), reg, echoBase(reg)); err != nil {
			t.Errorf("mtu_bytes = %s: %v", v, err)
		}
	}
}

func TestParse_AcceptsAFixedValueAsARange(t *testing.T) {
	reg := builtin.Registry()
	p, err := Parse("p.toml", []byte(with(t, "peers = [2, 4]", "peers = 3")), reg, echoBase(reg))
	if err != nil {
		t.Fatal(err)
	}
	if p.Space.Peers != Fixed(3) || p.Space.DurationNs.Set() {
		t.Errorf("space %+v", p.Space)
	}
	sc, err := p.Scenario(9, reg)
	if err != nil || len(sc.Peers) != 3 || sc.DurationNs != 2_000_000_000 {
		t.Errorf("scenario %v %v", sc, err)
	}
}

func TestResolve_FileThenLibrary(t *testing.T) {
	reg := builtin.Registry()
	if _, err := Resolve("gossip_flap", reg); err != nil {
		t.Error(err)
	}
	_, err := Resolve("no_such_property", reg)
	if err == nil || !strings.Contains(err.Error(), "no embedded property of that name (embedded: agent_faults, agent_faults_bug, gossip_flap, gossip_flap_legacy, gossip_flap_wan, gossip_flap_wan_legacy, raft_partitions, raft_partitions_bug, raft_read_pauses, raft_read_pauses_reuse)") {
		t.Errorf("err = %v", err)
	}
	_, err = Resolve("library/gossip_flap", reg)
	if err == nil {
		t.Error("a path-like name resolved inside the library")
	}
	p, err := Resolve("../sweep/testdata/echo_lossy.toml", reg)
	if err != nil {
		t.Fatal(err)
	}
	if p.Base.Name != "echo_base" {
		t.Errorf("base %q: want the file beside the property", p.Base.Name)
	}
}

// TestParse_PropertyNameLeavesRoomForTheSeed_Issue9: generated scenarios
// are named "<name>-<seed>", and a scenario name is at most 64 bytes, so
// a property name is at most 64 - len("-9223372036854775807") = 44 bytes:
// every seed of every valid property makes a scenario that loads.
func TestParse_PropertyNameLeavesRoomForTheSeed_Issue9(t *testing.T) {
	reg := builtin.Registry()
	longest := strings.Repeat("n", MaxNameBytes)
	p, err := Parse("p.toml", []byte(with(t, `name = "echo"`, `name = "`+longest+`"`)), reg, echoBase(reg))
	if err != nil {
		t.Fatalf("a %d-byte name: %v", MaxNameBytes, err)
	}
	if _, err := p.Scenario(scenarios.MaxSeed, reg); err != nil {
		t.Errorf("the largest seed of the longest name: %v", err)
	}
	_, err = Parse("p.toml", []byte(with(t, `name = "echo"`, `name = "`+longest+`n"`)), reg, echoBase(reg))
	if want := `p.toml: name: "` + longest + `n": want 1 to 44 of A-Z a-z 0-9 _ - (with "-<seed>" it names the generated scenarios and corpus files)`; err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
}
