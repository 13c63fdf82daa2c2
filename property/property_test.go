package property

import (
	"bytes"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/internal/golden"
	"github.com/detsim/detsim/kinds/swim/swimcheck"
	"github.com/detsim/detsim/scenarios"
)

// TestLibrary_GossipFlapSpaceIsTheIssuesSpace pins the space of the two
// shipped properties: it was fixed before any verdict was looked at and
// must not drift towards a result.
func TestLibrary_GossipFlapSpaceIsTheIssuesSpace_10_3(t *testing.T) {
	reg := builtin.Registry()
	if got := LibraryNames(reg); !slices.Equal(got, []string{"agent_faults", "agent_faults_bug", "gossip_flap", "gossip_flap_legacy", "gossip_flap_wan", "gossip_flap_wan_legacy", "raft_partitions", "raft_partitions_bug", "raft_read_pauses", "raft_read_pauses_reuse"}) {
		t.Fatalf("LibraryNames = %v", got)
	}
	want := Space{
		Peers:      Between(3, 5),
		DurationNs: Fixed(420_000_000_000),
		Links: []KeyRange{
			{"latency_ns", Between(40_000_000, 150_000_000)},
			{"jitter_stddev_ns", Between(5_000_000, 20_000_000)},
			{"loss_prob_ppm", Between(2_000, 10_000)},
			{"bandwidth_bps", Between(8_000, 64_000)},
		},
	}
	for _, c := range []struct {
		name          string
		expect        Expectation
		gossip        string
		wan, fallback bool
	}{
		// The source as deployed: legacy queue, LAN timings, no fallback.
		{"gossip_flap_legacy", ExpectFail, "legacy", false, false},
		// The complete fix (issue 29, docs/gossip-flap.md "The complete
		// fix, measured"): bounded queue, memberlist's WAN timings and its
		// fallback probe; 0 of seeds 0-9 999 fail.
		{"gossip_flap", ExpectPass, "bounded", true, true},
		// The WAN pair: the same space with memberlist's WAN timings
		// (issue 14 item 6); both measured to pass on seeds 0-199.
		{"gossip_flap_wan_legacy", ExpectPass, "legacy", true, false},
		{"gossip_flap_wan", ExpectPass, "bounded", true, false},
	} {
		p := libraryProperty(t, c.name, reg)
		if p.Expect != c.expect || p.Peer.KindConfig["gossip"] != c.gossip {
			t.Errorf("%s: expect %q gossip %v", c.name, p.Expect, p.Peer.KindConfig["gossip"])
		}
		if c.wan != (p.Peer.KindConfig["probe_interval_ns"] == int64(5_000_000_000) && p.Peer.KindConfig["probe_timeout_ns"] == int64(3_000_000_000) &&
			p.Peer.KindConfig["suspicion_mult"] == int64(6) && p.Peer.KindConfig["push_pull_interval_ns"] == int64(60_000_000_000)) {
			t.Errorf("%s: want WAN timings %v, kind_config %v", c.name, c.wan, p.Peer.KindConfig)
		}
		if on, _ := p.Peer.KindConfig["fallback_probe"].(bool); on != c.fallback {
			t.Errorf("%s: fallback_probe %v, want %v", c.name, on, c.fallback)
		}
		if fmt.Sprint(p.Space) != fmt.Sprint(want) {
			t.Errorf("%s: space\n%v\nwant\n%v", c.name, p.Space, want)
		}
		var kinds []string
		for _, a := range p.Assertions {
			kinds = append(kinds, fmt.Sprint(a["kind"], " ", a["peer"]))
		}
		if !slices.Equal(kinds, []string{"no_flap_while_probes_ok *", "no_dead_when_probes_ok *"}) {
			t.Errorf("%s: assertions %v", c.name, kinds)
		}
	}
	legacy := libraryProperty(t, "gossip_flap_legacy", reg)
	if legacy.MinFailingPercent != 50 {
		t.Errorf("legacy min_failing_percent = %d, want 50 (most seeds)", legacy.MinFailingPercent)
	}
}

// TestScenario_PureFunctionOfPropertyAndSeed: the same (property, seed)
// gives the same bytes from two independent loads; another seed does not.
func TestScenario_PureFunctionOfPropertyAndSeed_10_3(t *testing.T) {
	reg := builtin.Registry()
	a := libraryProperty(t, "gossip_flap", reg)
	b := libraryProperty(t, "gossip_flap.toml", reg)
	seen := map[string]uint64{}
	for seed := range uint64(20) {
		x := mustScenario(t, a, seed, reg)
		y := mustScenario(t, b, seed, reg)
		if !bytes.Equal(x.TOML(), y.TOML()) {
			t.Fatalf("seed %d: two loads expand differently", seed)
		}
		if prev, dup := seen[string(x.TOML())]; dup {
			t.Errorf("seeds %d and %d expand to the same scenario", prev, seed)
		}
		seen[string(x.TOML())] = seed
		if x.Seed != seed || x.Name != fmt.Sprintf("gossip_flap-%d", seed) {
			t.Errorf("seed %d: name %q seed %d", seed, x.Name, x.Seed)
		}
	}
}

// TestScenario_StaysInsideTheSpace checks every generated scenario
// against the declared ranges, the peer template and the assertion
// expansion, over many seeds.
func TestScenario_StaysInsideTheSpace(t *testing.T) {
	reg := builtin.Registry()
	p := libraryProperty(t, "gossip_flap_legacy", reg)
	counts := map[int]int{}
	for seed := range uint64(200) {
		sc := mustScenario(t, p, seed, reg)
		n := len(sc.Peers)
		counts[n]++
		if n < 3 || n > 5 || sc.DurationNs != 420_000_000_000 {
			t.Fatalf("seed %d: %d peers, %d ns", seed, n, sc.DurationNs)
		}
		for i, peer := range sc.Peers {
			if peer.ID != fmt.Sprintf("p%d", i) || peer.Kind != "swim" || peer.KindConfig["gossip"] != "legacy" {
				t.Fatalf("seed %d: peer %+v", seed, peer)
			}
			// Every peer joins through p0, p0 included (it starts alone).
			wantState, seeds := "joining", fmt.Sprint([]any{"p0"})
			if peer.KindConfig["meta_bytes"] != int64(256) {
				t.Fatalf("seed %d: %s has meta_bytes %v", seed, peer.ID, peer.KindConfig["meta_bytes"])
			}
			if peer.InitialState != wantState || fmt.Sprint(peer.KindConfig["seeds"]) != seeds {
				t.Fatalf("seed %d: %s is %q with seeds %v", seed, peer.ID, peer.InitialState, peer.KindConfig["seeds"])
			}
		}
		if len(sc.Links) != n*(n-1) {
			t.Fatalf("seed %d: %d links for %d peers", seed, len(sc.Links), n)
		}
		policy := map[[2]string][4]int64{}
		for _, l := range sc.Links {
			pol := l.Policy
			v := [4]int64{pol.LatencyNs, pol.JitterStddevNs, pol.LossProbPPM, pol.BandwidthBps}
			if v[0] < 40_000_000 || v[0] > 150_000_000 || v[1] < 5_000_000 || v[1] > 20_000_000 ||
				v[2] < 2_000 || v[2] > 10_000 || v[3] < 8_000 || v[3] > 64_000 {
				t.Fatalf("seed %d: %s→%s outside the space: %v", seed, l.From, l.To, v)
			}
			if pol.ColdDialPenaltyNs != p.Base.DefaultLink.ColdDialPenaltyNs {
				t.Fatalf("seed %d: undrawn keys must come from the base", seed)
			}
			policy[[2]string{l.From, l.To}] = v
		}
		for e, v := range policy {
			if policy[[2]string{e[1], e[0]}] != v {
				t.Fatalf("seed %d: %v is not symmetric", seed, e)
			}
		}
		if len(sc.Assertions) != 2*n || sc.Assertions[0].Name != "no_flap/p0" || sc.Assertions[n].Name != "no_dead/p0" {
			t.Fatalf("seed %d: assertions %v", seed, sc.Assertions)
		}
	}
	for n := 3; n <= 5; n++ {
		if counts[n] < 40 {
			t.Errorf("%d peers drawn %d times in 200 seeds: not uniform", n, counts[n])
		}
	}
}

// TestScenario_LegacyAndFixedShareTheNetwork: the two gossip properties
// draw the same network for the same seed; only the deployment differs,
// the source as deployed (legacy queue, LAN timings) against the complete
// fix (bounded queue, WAN timings, fallback probe).
func TestScenario_LegacyAndFixedShareTheNetwork(t *testing.T) {
	reg := builtin.Registry()
	legacy := libraryProperty(t, "gossip_flap_legacy", reg)
	fixed := libraryProperty(t, "gossip_flap", reg)
	for seed := range uint64(10) {
		a, _ := legacy.Scenario(seed, reg)
		b, _ := fixed.Scenario(seed, reg)
		if !reflect.DeepEqual(a.Links, b.Links) || len(a.Peers) != len(b.Peers) || a.DurationNs != b.DurationNs ||
			!reflect.DeepEqual(a.Assertions, b.Assertions) || a.DefaultLink != b.DefaultLink {
			t.Fatalf("seed %d: the two properties drew different scenarios", seed)
		}
		for i := range a.Peers {
			ka, kb := a.Peers[i].KindConfig, b.Peers[i].KindConfig
			if ka["gossip"] != "legacy" || kb["gossip"] != "bounded" || ka["fallback_probe"] != nil || kb["fallback_probe"] != true ||
				ka["probe_interval_ns"] == kb["probe_interval_ns"] {
				t.Fatalf("seed %d: %v / %v", seed, ka, kb)
			}
		}
	}
}

// TestPoint_EachValueHasItsOwnSubstream: widening one range changes only
// the values drawn from it.
func TestPoint_EachValueHasItsOwnSubstream(t *testing.T) {
	reg := builtin.Registry()
	p := libraryProperty(t, "gossip_flap", reg)
	q := *p
	q.Space.Links = slices.Clone(p.Space.Links)
	q.Space.Links[0].Range = Between(1, 1_000_000_000) // latency
	for seed := range uint64(30) {
		a, b := p.Point(seed), q.Point(seed)
		if !slices.Equal(a.Peers, b.Peers) || a.DurationNs != b.DurationNs {
			t.Fatalf("seed %d: peers or duration moved", seed)
		}
		for i := range a.Pairs {
			if !slices.Equal(a.Pairs[i].Values[1:], b.Pairs[i].Values[1:]) {
				t.Fatalf("seed %d: %v → %v", seed, a.Pairs[i], b.Pairs[i])
			}
		}
	}
}

// TestPoint_Golden pins the derivation: any change to how values are
// drawn changes which scenario a pinned seed names, so it must show up
// here (and in docs/golden-log.md).
func TestPoint_Golden(t *testing.T) {
	reg := builtin.Registry()
	src := strings.Replace(echoProperty, "[peer]", `duration_ns = [1_000_000_000, 2_000_000_000]
jitter_stddev_ns = [0, 1_000_000]
loss_prob_ppm = 100

[space.kind_config]
payload_bytes = [10, 20]

[peer]`, 1)
	p, err := Parse("p.toml", []byte(src), reg, echoBase(reg))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for seed := range uint64(4) {
		fmt.Fprintf(&b, "%+v\n", p.Point(seed))
	}
	golden.Check(t, filepath.Join("testdata", "points.golden"), b.String())
}

func TestScenario_RejectsSeedsPastTheMaximum(t *testing.T) {
	reg := builtin.Registry()
	p := libraryProperty(t, "gossip_flap", reg)
	if _, err := p.Scenario(scenarios.MaxSeed+1, reg); err == nil {
		t.Error("seed 2^63 accepted")
	}
	if _, err := p.Scenario(scenarios.MaxSeed, reg); err != nil {
		t.Errorf("seed 2^63-1: %v", err)
	}
}

// TestScenario_PeersWildcardAndDrawnKindConfig covers `peers = "*"` and
// [space.kind_config].
func TestScenario_PeersWildcardAndDrawnKindConfig(t *testing.T) {
	reg := builtin.Registry()
	src := strings.Replace(echoProperty, "[peer]", "[space.kind_config]\npayload_bytes = [10, 20]\n\n[peer]", 1) +
		"\n[[assertions]]\nkind = \"all_alive_throughout\"\npeers = \"*\"\n"
	p, err := Parse("p.toml", []byte(src), reg, echoBase(reg))
	if err != nil {
		t.Fatal(err)
	}
	for seed := range uint64(10) {
		sc := mustScenario(t, p, seed, reg)
		last := sc.Assertions[len(sc.Assertions)-1]
		if got := last.Params.(swimcheck.AllAliveThroughout).Peers; len(got) != len(sc.Peers) {
			t.Errorf("peers = %v for %d peers", got, len(sc.Peers))
		}
		pb := sc.Peers[0].KindConfig["payload_bytes"]
		for _, peer := range sc.Peers {
			v, _ := peer.KindConfig["payload_bytes"].(int64)
			if v < 10 || v > 20 || peer.KindConfig["payload_bytes"] != pb {
				t.Errorf("seed %d: %s payload_bytes %v", seed, peer.ID, peer.KindConfig["payload_bytes"])
			}
		}
	}
}
