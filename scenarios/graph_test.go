package scenarios

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/detsim/detsim/network"
)

// graphScenario is a scenario of the given echo peers and [[links]] text.
func graphScenario(ids []string, links string) string {
	var b strings.Builder
	b.WriteString("name = \"g\"\nduration_ns = 1_000_000_000\n[default_tick]\nperiod_ns = 100_000_000\n[default_link]\nlatency_ns = 7\nbandwidth_bps = 1_000_000\n")
	for _, id := range ids {
		fmt.Fprintf(&b, "[[peers]]\nid = %q\nkind = \"echo\"\n", id)
	}
	b.WriteString(links)
	return b.String()
}

// linkSpec is one [[links]] entry as the brute-force resolver reads it.
type linkSpec struct {
	from, to     string
	latency, bps int64 // 0: not set
}

func (l linkSpec) toml() string {
	s := fmt.Sprintf("[[links]]\nfrom = %q\nto = %q\n", l.from, l.to)
	if l.latency != 0 {
		s += fmt.Sprintf("latency_ns = %d\n", l.latency)
	}
	if l.bps != 0 {
		s += fmt.Sprintf("bandwidth_bps = %d\n", l.bps)
	}
	return s
}

func matches(pattern, id string) bool {
	if prefix, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(id, prefix)
	}
	return pattern == id
}

// bruteForce resolves specs edge by edge, as the documentation says:
// every entry naming a pair, in order, field by field on the default.
func bruteForce(ids []string, specs []linkSpec) map[network.Edge][2]int64 {
	out := map[network.Edge][2]int64{}
	for _, from := range ids {
		for _, to := range ids {
			if from == to {
				continue
			}
			p, named := [2]int64{7, 1_000_000}, false
			for _, l := range specs {
				if matches(l.from, from) && matches(l.to, to) {
					named = true
					if l.latency != 0 {
						p[0] = l.latency
					}
					if l.bps != 0 {
						p[1] = l.bps
					}
				}
			}
			if named {
				out[network.Edge{From: from, To: to}] = p
			}
		}
	}
	return out
}

// The [[links]] entries are resolved into regions, not edge by edge;
// random entries of ids, prefixes and "*", overlapping in every way,
// resolve exactly as each entry applied in turn to each pair it names.
func TestLinks_RegionsResolveAsEachEntryInTurn(t *testing.T) {
	var ids []string
	for _, region := range []string{"eu-", "eu-west-", "us-", "ap-"} {
		for i := range 4 {
			ids = append(ids, fmt.Sprintf("%s%d", region, i))
		}
	}
	patterns := append([]string{"*", "eu-*", "eu-west-*", "us-*", "ap-*", "e*", "u*"}, ids...)
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		specs := make([]linkSpec, 1+r.IntN(8))
		for i := range specs {
			for {
				specs[i] = linkSpec{from: patterns[r.IntN(len(patterns))], to: patterns[r.IntN(len(patterns))]}
				if specs[i].from != specs[i].to || strings.HasSuffix(specs[i].from, "*") {
					break
				}
			}
			if r.IntN(2) == 0 {
				specs[i].latency = int64(1 + r.IntN(3))
			}
			if r.IntN(3) == 0 {
				specs[i].bps = int64(1 + r.IntN(2))
			}
		}
		var text strings.Builder
		for _, l := range specs {
			text.WriteString(l.toml())
		}
		s, err := Parse("g.toml", []byte(graphScenario(ids, text.String())), testRegistry(), noFiles)
		if err != nil {
			t.Fatalf("round %d: %v\n%s", round, err, text.String())
		}
		want := bruteForce(ids, specs)
		got := s.Edges()
		if len(got) != len(want) {
			t.Fatalf("round %d: %d edges, want %d\n%s", round, len(got), len(want), text.String())
		}
		if !slices.IsSortedFunc(got, func(a, b network.Link) int { return compareEdges(a.Edge, b.Edge) }) {
			t.Fatalf("round %d: edges not sorted by (From, To)", round)
		}
		for _, l := range got {
			if w, ok := want[l.Edge]; !ok || w != [2]int64{l.Policy.LatencyNs, l.Policy.BandwidthBps} {
				t.Fatalf("round %d: %s→%s latency %d bps %d, want %v (named: %v)\n%s", round, l.From, l.To, l.Policy.LatencyNs, l.Policy.BandwidthBps, w, ok, text.String())
			}
		}
	}
}

// Ten thousand peers load, on a full mesh and under "*" links: before,
// a mesh stopped at 1 024 peers and "*" at 4 194 304 edges, because
// every edge was spelled out. A graph of more than MaxLinks edges is
// kept by regions, answers for every pair as the entries say, and still
// refuses a mutation naming a pair that is not an edge.
func TestLinks_TenThousandPeersLoadWithoutSpellingEdgesOut(t *testing.T) {
	ids := make([]string, MaxPeers)
	for i := range ids {
		region := "eu-"
		if i%2 == 1 {
			region = "us-"
		}
		ids[i] = fmt.Sprintf("%s%05d", region, i)
	}
	s, err := Parse("g.toml", []byte(graphScenario(ids, "")), testRegistry(), noFiles)
	if err != nil {
		t.Fatalf("full mesh of %d peers: %v", len(ids), err)
	}
	if !s.FullMesh || s.Links != nil || s.Graph != nil {
		t.Fatalf("full mesh: FullMesh %v, %d links, graph %v: want a mesh, nothing spelled out", s.FullMesh, len(s.Links), s.Graph != nil)
	}

	specs := []linkSpec{{from: "*", to: "*"}, {from: "eu-*", to: "us-*", latency: 40}, {from: "eu-00000", to: "*", bps: 5}}
	var text strings.Builder
	for _, l := range specs {
		text.WriteString(l.toml())
	}
	s, err = Parse("g.toml", []byte(graphScenario(ids, text.String())), testRegistry(), noFiles)
	if err != nil {
		t.Fatalf("\"*\" links over %d peers: %v", len(ids), err)
	}
	if s.Graph == nil || s.Links != nil {
		t.Fatalf("graph %v, %d links: want a graph and nothing spelled out", s.Graph != nil, len(s.Links))
	}
	n := int64(len(ids))
	if got := s.Graph.NumEdges(); got != n*(n-1) {
		t.Fatalf("%d edges, want %d", got, n*(n-1))
	}
	if len(s.Graph.Rows) > 4 {
		t.Errorf("%d rows of regions: three entries over two interleaved regions need at most 4", len(s.Graph.Rows))
	}
	sorted := slices.Sorted(slices.Values(ids))
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		from, to := r.IntN(len(ids)), r.IntN(len(ids))
		if r.IntN(10) == 0 {
			from = 0 // eu-00000, its own row
		}
		want, named := bruteForce1(sorted[from], sorted[to], specs)
		p, ok := s.Graph.Lookup(from, to)
		if ok != named || (ok && [2]int64{p.LatencyNs, p.BandwidthBps} != want) {
			t.Fatalf("%s→%s: %v %v, want %v %v", sorted[from], sorted[to], p, ok, want, named)
		}
	}

	spike := "[[mutations]]\nat_ns = 0\nkind = \"LatencySpike\"\nlinks = [{from = \"eu-00000\", to = \"eu-00000\"}]\nfactor_x100 = 200\nduration_ns = 1\n"
	if _, err := Parse("g.toml", []byte(graphScenario(ids, text.String()+spike)), testRegistry(), noFiles); err == nil || !strings.Contains(err.Error(), "mutations[0].links[0]") {
		t.Fatalf("a spike on a self pair of a graph: %v, want it refused", err)
	}
}

// bruteForce1 is bruteForce for one pair.
func bruteForce1(from, to string, specs []linkSpec) ([2]int64, bool) {
	p, ok := bruteForce([]string{from, to}, specs)[network.Edge{From: from, To: to}]
	return p, ok
}
