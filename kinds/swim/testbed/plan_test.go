package testbed

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/network"
	"github.com/detsim/detsim/scenarios"
)

// loadText loads a scenario written out in full.
func loadText(t *testing.T, text string) *scenarios.Scenario {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.toml")
	if err := os.WriteFile(path, []byte(text), 0o666); err != nil {
		t.Fatal(err)
	}
	sc, err := scenarios.Load(path, builtin.Registry())
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// twoSwimPeers is a scenario of two swim members, a and b, with a
// [default_link] of link's lines: the smallest the testbed builds a
// network for, which each test gives its own name, length and link.
func twoSwimPeers(name, durationNs, link string) string {
	return `
name = "` + name + `"
seed = 1
duration_ns = ` + durationNs + `
[default_tick]
period_ns = 100_000_000
[default_link]
` + link + `
[[peers]]
id = "a"
kind = "swim"
initial_state = "member"
[[peers]]
id = "b"
kind = "swim"
initial_state = "member"
`
}

// base is a two-peer scenario the testbed realises; each case of
// TestNewPlan_RefusesWhatItCannotRealise adds one thing to it.
var base = twoSwimPeers("p", "10_000_000_000", "latency_ns = 10_000_000\nbandwidth_bps = 100_000\nburst_bytes = 1564")

// TestNewPlan_RefusesWhatItCannotRealise: every scenario field the kernel
// and the delay line cannot realise is refused before anything is made,
// naming the field.
func TestNewPlan_RefusesWhatItCannotRealise(t *testing.T) {
	for _, tc := range []struct {
		name, add, impl, want string
	}{
		{"cold dial", "[[links]]\nfrom = \"a\"\nto = \"b\"\ncold_dial_penalty_ns = 5\n[[links]]\nfrom = \"b\"\nto = \"a\"\n", ImplSwimd, "links[a→b].cold_dial_penalty_ns"},
		{"reorder", "[[links]]\nfrom = \"a\"\nto = \"b\"\nreorder_prob_ppm = 5\n", ImplSwimd, "links[a→b].reorder_prob_ppm"},
		{"slow rate", "[[links]]\nfrom = \"a\"\nto = \"b\"\nbandwidth_bps = 100\n", ImplSwimd, "links[a→b].bandwidth_bps: 100: below 125"},
		{"long latency", "[[links]]\nfrom = \"a\"\nto = \"b\"\nlatency_ns = 11_000_000_000\n", ImplSwimd, "links[a→b].latency_ns"},
		{"resurrect with state", "[[mutations]]\nat_ns = 1\nkind = \"PeerKill\"\npeer = \"a\"\n[[mutations]]\nat_ns = 2\nkind = \"PeerResurrect\"\npeer = \"a\"\npreserve_state = true\n", ImplSwimd, "mutations[1] (PeerResurrect at 2 ns).preserve_state"},
		{"recv cost", "[[peers]]\nid = \"c\"\nkind = \"swim\"\ninitial_state = \"member\"\nrecv_cost_ns = 5\n", ImplSwimd, "peers[c].recv_cost_ns"},
		{"echo peer", "[[peers]]\nid = \"c\"\nkind = \"echo\"\ninitial_state = \"up\"\n", ImplSwimd, "peers[c].kind"},
		{"unknown impl", "", "etcd", `--impl "etcd"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := loadText(t, base+tc.add)
			_, err := NewPlan(sc, tc.impl)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("NewPlan: %v, want an error naming %q", err, tc.want)
			}
		})
	}
}

// TestNewPlan_RefusesAMutationItCannotApply: a mutation kind with no
// kernel or process counterpart (a Cancel, which only an agent peer takes
// and the loader already refuses for a swim peer) is refused by the plan
// itself, naming the mutation, so a scenario the loader lets through one
// day still never builds a network it would then ignore.
func TestNewPlan_RefusesAMutationItCannotApply(t *testing.T) {
	sc := loadText(t, base)
	sc.Mutations = append(sc.Mutations, network.Mutation{At: 7, Kind: network.Cancel, Peer: "a"})
	_, err := NewPlan(sc, ImplSwimd)
	if want := "mutations[0] (Cancel at 7 ns).kind: the testbed cannot apply a Cancel"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("NewPlan: %v, want an error naming %q", err, want)
	}
}

// TestNewPlan_TooManyPeers: more peers than the testbed holds is refused.
func TestNewPlan_TooManyPeers(t *testing.T) {
	text := base
	for i := range 40 {
		text += "[[peers]]\nid = \"x" + string(rune('a'+i%26)) + string(rune('a'+i/26)) + "\"\nkind = \"swim\"\ninitial_state = \"member\"\n"
	}
	if _, err := NewPlan(loadText(t, text), ImplSwimd); err == nil || !strings.Contains(err.Error(), "at most 32") {
		t.Errorf("NewPlan: %v, want the peer limit", err)
	}
}

// TestNewPlan_RealisesTheLinks: the plan holds every declared edge in the
// kernel's terms, sorted, with the veth MTU the largest route MTU, and an
// edge at 10 Gbit/s or more left unshaped.
func TestNewPlan_RealisesTheLinks(t *testing.T) {
	sc := loadText(t, base+"[[links]]\nfrom = \"a\"\nto = \"b\"\nloss_prob_ppm = 20_000\njitter_stddev_ns = 3\n[[links]]\nfrom = \"b\"\nto = \"a\"\nbandwidth_bps = 2_000_000_000\n")
	p, err := NewPlan(sc, ImplMemberlist)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Edges) != 2 || p.EdgeOf(0, 1) != 0 || p.EdgeOf(1, 0) != 1 {
		t.Fatalf("edges %+v", p.Edges)
	}
	ab, ba := p.Edges[0], p.Edges[1]
	if ab.LossPPM != 20_000 || ab.JitterStddevNs != 3 || ab.RateBytes != 100_000 || ab.BurstBytes != 1564 || ab.MTUBytes != 1500 || ab.QueueBytes != 4<<20 {
		t.Errorf("a→b realised as %+v", ab)
	}
	if ba.RateBytes != 0 {
		t.Errorf("b→a at 2 GB/s shaped at %d", ba.RateBytes)
	}
	if p.VethMTU != 1500 {
		t.Errorf("veth MTU %d", p.VethMTU)
	}
	got := p.Realised()
	if got[0].RateBitsPerSecond != 800_000 || got[0].BurstBytes != 1564 || got[0].From != "a" || got[1].To != "a" {
		t.Errorf("realised %+v", got)
	}
}

// A link with burst_bytes 0 asks for a serialising wire: HTB cannot be
// one (it passes a packet that finds tokens at once), so the plan gives
// the edge no HTB class and the delay line paces it (docs/testbed.md).
func TestNewPlan_SerialisingWireIsTheDelayLines(t *testing.T) {
	sc := loadText(t, base+"[[links]]\nfrom = \"a\"\nto = \"b\"\nburst_bytes = 0\n[[links]]\nfrom = \"b\"\nto = \"a\"\n")
	p, err := NewPlan(sc, ImplSwimd)
	if err != nil {
		t.Fatal(err)
	}
	ab, ba := p.Edges[p.EdgeOf(0, 1)], p.Edges[p.EdgeOf(1, 0)]
	if !ab.Serialised() || ab.RateBytes != 100_000 || ba.Serialised() {
		t.Fatalf("a→b %+v (serialised %v), b→a %+v (serialised %v)", ab, ab.Serialised(), ba, ba.Serialised())
	}
	n := &Net{plan: p}
	for _, line := range n.shaping() {
		if strings.Contains(line, "classid 1:1 ") {
			t.Errorf("the serialised edge a→b got an HTB class: %s", line)
		}
	}
}

// TestFragments_RFC791: the probe's own fragment count, written apart
// from the model's: a 16 000-byte datagram is eleven fragments at 1500.
func TestFragments_AsLinuxCutsThem(t *testing.T) {
	for _, tc := range []struct {
		size int
		mtu  int64
		want int
	}{
		{100, 1500, 1}, {1472, 1500, 1}, {1473, 1500, 2}, {16000, 1500, 11}, {65507, 65535, 1}, {65507, 576, 119},
		// At 576 a full fragment carries 552 bytes, the last up to 556.
		{1100, 576, 2}, {1101, 576, 3},
	} {
		if got := fragments(tc.size, tc.mtu); got != tc.want {
			t.Errorf("fragments(%d, %d) = %d, want %d", tc.size, tc.mtu, got, tc.want)
		}
	}
}

// TestNewPlan_MTU: an edge's mtu_bytes is its route's MTU, 0 (no
// fragmentation) is the largest a veth takes, and every veth carries the
// largest route MTU.
func TestNewPlan_MTU(t *testing.T) {
	sc := loadText(t, base+"[[links]]\nfrom = \"a\"\nto = \"b\"\nmtu_bytes = 9000\n[[links]]\nfrom = \"b\"\nto = \"a\"\nmtu_bytes = 0\n")
	p, err := NewPlan(sc, ImplSwimd)
	if err != nil {
		t.Fatal(err)
	}
	if p.Edges[0].MTUBytes != 9000 || p.Edges[1].MTUBytes != NoFragmentMTU || p.VethMTU != NoFragmentMTU {
		t.Errorf("MTUs %d, %d, veth %d", p.Edges[0].MTUBytes, p.Edges[1].MTUBytes, p.VethMTU)
	}
}

// A probe's latency on a serialising wire has each small datagram's own
// time on the wire in it (the delay line clocked it out before its
// delay); the derived latency takes it off, since the model's wire
// charges it again. On a token bucket nothing is taken off.
func TestDerive_TakesTheWireOffASerialisedEdgesLatency(t *testing.T) {
	wire := Edge{RateBytes: 1280, MTUBytes: 1500} // 128 bytes: 100 ms
	bucket := Edge{RateBytes: 1280, BurstBytes: 1564, MTUBytes: 1500}
	r := ProbeReport{Edges: []EdgeReport{
		{From: "a", To: "b", Asked: wire, OneWayP50: 150e6, OneWayP99: 150e6},
		{From: "b", To: "a", Asked: bucket, OneWayP50: 150e6, OneWayP99: 150e6},
	}}
	d := r.Derive()
	if d[0].LatencyNs != 50_000_000 || d[1].LatencyNs != 150_000_000 {
		t.Errorf("derived latencies %d (wire), %d (bucket); want 50 ms, 150 ms", d[0].LatencyNs, d[1].LatencyNs)
	}
}

// TestProbeSizing_LeavesASerialisedWireMostlyIdle: the small datagrams
// take half a bucket-shaped edge's rate but only a twentieth of a
// serialising wire's, whose echoes ride the reverse wire as much again
// and would otherwise keep it full, so the probe would measure its own
// queue.
func TestProbeSizing_LeavesASerialisedWireMostlyIdle(t *testing.T) {
	for _, tc := range []struct {
		name  string
		e     Edge
		share float64
	}{
		{"bucket", Edge{RateBytes: 8000, BurstBytes: 1564, MTUBytes: 1500}, 0.5},
		{"wire", Edge{RateBytes: 8000, MTUBytes: 1500}, 0.05},
	} {
		size, every := probeSizing(phaseSmall, tc.e)
		load := float64(size+28) / every.Seconds() / float64(tc.e.RateBytes)
		if load < tc.share*0.99 || load > tc.share*1.01 {
			t.Errorf("%s: small datagrams take %.3f of the rate, want %.3f", tc.name, load, tc.share)
		}
	}
}

// TestSmallPhase_StretchedOnANetworkWithAWire: the small datagrams'
// phase lasts ten times as long when an edge is a serialising wire, so
// that at a twentieth of its rate each edge still gets as many samples
// as at half a bucket's.
func TestSmallPhase_StretchedOnANetworkWithAWire(t *testing.T) {
	bucket := &Plan{Edges: []Edge{{RateBytes: 8000, BurstBytes: 1564, MTUBytes: 1500}, {MTUBytes: 1500}}}
	wire := &Plan{Edges: []Edge{{RateBytes: 8000, BurstBytes: 1564, MTUBytes: 1500}, {RateBytes: 8000, MTUBytes: 1500}}}
	if got := bucket.smallPhase(time.Minute); got != time.Minute {
		t.Errorf("buckets only: %v", got)
	}
	if got := wire.smallPhase(time.Minute); got != 10*time.Minute {
		t.Errorf("with a wire: %v", got)
	}
	_, bucketEvery := probeSizing(phaseSmall, bucket.Edges[0])
	_, wireEvery := probeSizing(phaseSmall, wire.Edges[1])
	if n, m := int(time.Minute/bucketEvery), int(10*time.Minute/wireEvery); n != m {
		t.Errorf("small datagrams a phase: %d on the bucket, %d on the wire", n, m)
	}
}
