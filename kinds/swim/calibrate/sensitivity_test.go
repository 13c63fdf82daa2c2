package calibrate

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/kinds/swim/swimcfg"
)

// TestParseSensitivity_Shipped: the shipped table parses and holds every
// perturbation issue 20 names, those its opening list says passed every
// row included.
func TestParseSensitivity_Shipped(t *testing.T) {
	var names []string
	for _, p := range ShippedSensitivity() {
		names = append(names, p.Name)
	}
	for _, want := range []string{"latency x1.2", "jitter x2", "loss x2", "bandwidth x0.5", "probe_interval x1.2",
		"probe_timeout x0.8", "suspicion_mult x2", "indirect_checks 3 -> 1", "Lifeguard off", "MTU model off", "serialising wire (burst_bytes = 0)",
		// The rest of the opening list.
		"cold dial x2", "retransmit_mult x2", "suspicion_mult x0.5", "suspicion_mult x1.25", "push/pull interval x2",
		// Issue 29's: what a SWIM operator tunes.
		"suspicion_mult 4 -> 3", "suspicion_max_timeout_mult 6 -> 3", "awareness_max_multiplier 8 -> 4",
		"lifeguard_suspicion off", "lifeguard_nack off", "lifeguard_buddy off", "indirect_checks 3 -> 2",
		"retransmit_mult x0.5", "max_message_bytes x0.5", "dissemination = memberlist", "MTU 9000",
		"bandwidth x0.6 on the thin link", "latency +25 % on the shortest edge", "loss x3 on the least lossy edge", "meta_bytes x2"} {
		if !strings.Contains(strings.Join(names, "\n"), want) {
			t.Errorf("the shipped table lacks %q", want)
		}
	}
}

// TestParseSensitivity_Errors: a row naming an unknown key or field, or
// an impossible value, is refused naming the row.
func TestParseSensitivity_Errors(t *testing.T) {
	for _, c := range []struct{ row, want string }{
		{`name = "a"` + "\n" + `field = "link.latency_ns"` + "\n" + `scale = 1.2` + "\n" + `colour = "red"`, `perturbation 1 ("a"): colour: not a key`},
		{`name = "a"` + "\n" + `field = "link.latency_ms"` + "\n" + `scale = 1.2`, `"latency_ms" is not a link policy field`},
		{`name = "a"` + "\n" + `field = "peer.latency_ns"` + "\n" + `scale = 1.2`, `want link.<field> or kind_config.<key>`},
		{`name = "a"` + "\n" + `field = "link.latency_ns"` + "\n" + `scale = -1.0`, `scale -1: want a finite number above 0`},
		{`name = "a"` + "\n" + `field = "link.latency_ns"` + "\n" + `scale = 0`, `scale 0: want a finite number above 0`},
		{`name = "a"` + "\n" + `field = "link.latency_ns"` + "\n" + `scale = 2.0` + "\n" + `set = 1`, `exactly one of scale and set`},
		{`name = "a"` + "\n" + `field = "link.latency_ns"`, `exactly one of scale and set`},
		{`name = "a"` + "\n" + `field = "link.latency_ns"` + "\n" + `set = "fast"`, `a link field is an integer`},
		{`name = "a"` + "\n" + `field = "kind_config.gossip"` + "\n" + `scale = 2.0`, `scale needs an integer kind_config key`},
		{`field = "link.latency_ns"` + "\n" + `scale = 2.0`, `perturbation 1: name: missing`},
		// Refused as the table is read, naming the row, not after the
		// baseline runs when the perturbation is first applied.
		{`name = "a"` + "\n" + `field = "kind_config.colour"` + "\n" + `set = 1`, `s.toml: perturbation 1 ("a"): set 1: kind_config.colour: unknown key`},
		{`name = "a"` + "\n" + `field = "kind_config.indirect_checks"` + "\n" + `set = 300`, `perturbation 1 ("a"): set 300: kind_config.indirect_checks: must be in [0, 255], got 300`},
		{`name = "a"` + "\n" + `field = "kind_config.lifeguard"` + "\n" + `set = "off"`, `perturbation 1 ("a"): set off: kind_config.lifeguard: must be a boolean`},
		{`name = "a"` + "\n" + `field = "kind_config.gossip"` + "\n" + `set = "fifo"`, `perturbation 1 ("a"): set fifo: kind_config.gossip: must be "bounded" or "legacy"`},
		{`name = "a"` + "\n" + `field = "link.mtu_bytes"` + "\n" + `set = 100`, `perturbation 1 ("a"): set 100: not a value of link.mtu_bytes (576 to 65535, or 0 for off)`},
		{`name = "a"` + "\n" + `field = "link.bandwidth_bps"` + "\n" + `set = 0`, `perturbation 1 ("a"): set 0: not a value of link.bandwidth_bps`},
		{`name = "a"` + "\n" + `field = "kind_config.meta_bytes"` + "\n" + `scale = 2.0` + "\n" + `edges = "lowest"`, `perturbation 1 ("a"): edges "lowest": only a link field has edges`},
		{`name = "a"` + "\n" + `field = "link.latency_ns"` + "\n" + `scale = 2.0` + "\n" + `edges = "shortest"`, `perturbation 1 ("a"): edges "shortest": want "lowest"`},
	} {
		_, err := ParseSensitivity("s.toml", []byte("[[perturbation]]\n"+c.row+"\n"))
		if err == nil || !IsInputError(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an input error saying %q", c.row, err, c.want)
		}
	}
	twice := "[[perturbation]]\nname = \"a\"\nfield = \"link.latency_ns\"\nscale = 2.0\n"
	if _, err := ParseSensitivity("s.toml", []byte(twice+twice)); err == nil || !strings.Contains(err.Error(), "perturbation 2 (\"a\"): name: given twice") {
		t.Errorf("a name twice: %v", err)
	}
	if _, err := ParseSensitivity("s.toml", []byte("[other]\nx = 1\n")); err == nil || !IsInputError(err) {
		t.Errorf("a table that is not [[perturbation]]: %v", err)
	}
}

// TestPerturbation_Apply: a scale multiplies every edge's effective value,
// the inherited and the overridden alike, and a kind_config key's
// effective value, its default included; a set replaces; a value the
// loader refuses is an error.
func TestPerturbation_Apply(t *testing.T) {
	reg := builtin.Registry()
	sc, _ := threeRegion(t, "three_region_3m", 1)
	lat := Perturbation{Name: "latency x2", Field: "link.latency_ns", Scale: 2}
	got, err := lat.Apply(sc, reg)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Edges()) != len(sc.Edges()) {
		t.Fatalf("%d edges, want %d", len(got.Edges()), len(sc.Edges()))
	}
	for i, e := range got.Edges() {
		if was := sc.Edges()[i]; e.Edge != was.Edge || e.Policy.LatencyNs != 2*was.Policy.LatencyNs || e.Policy.JitterStddevNs != was.Policy.JitterStddevNs {
			t.Errorf("%v: latency %d jitter %d, want %d and %d", e.Edge, e.Policy.LatencyNs, e.Policy.JitterStddevNs, 2*was.Policy.LatencyNs, was.Policy.JitterStddevNs)
		}
	}
	susp := Perturbation{Name: "suspicion_mult x2", Field: "kind_config.suspicion_mult", Scale: 2}
	if got, err = susp.Apply(sc, reg); err != nil {
		t.Fatal(err)
	}
	for i, p := range got.Peers {
		was, _ := swimcfg.Parse(sc.Peers[i].KindConfig, []string{"fra", "orch", "sgp"})
		now, _ := swimcfg.Parse(p.KindConfig, []string{"fra", "orch", "sgp"})
		if now.SuspicionMult != 2*was.SuspicionMult {
			t.Errorf("%s: suspicion_mult %d, want %d", p.ID, now.SuspicionMult, 2*was.SuspicionMult)
		}
	}
	off := Perturbation{Name: "Lifeguard off", Field: "kind_config.lifeguard", Set: false}
	if got, err = off.Apply(sc, reg); err != nil {
		t.Fatal(err)
	}
	if cfg, _ := swimcfg.Parse(got.Peers[0].KindConfig, []string{"fra", "orch", "sgp"}); cfg.Lifeguard() {
		t.Error("Lifeguard still on")
	}
	// What only the scenario can refuse is refused when applied: here a
	// probe timeout no longer below the probe interval.
	bad := Perturbation{Name: "slow timeout", Field: "kind_config.probe_timeout_ns", Scale: 3}
	if _, err := bad.Apply(sc, reg); err == nil || !strings.Contains(err.Error(), "probe_timeout_ns") {
		t.Errorf("a probe timeout of 1.5 s: %v", err)
	}
}

// TestPerturbation_ApplyLowestEdges: edges = "lowest" changes only the
// edges whose value of the field is the lowest above 0 (both, on a
// tie), and leaves every other edge and default_link as they were.
func TestPerturbation_ApplyLowestEdges(t *testing.T) {
	reg := builtin.Registry()
	sc, _ := threeRegion(t, "three_region_3m", 1)
	lowest := int64(-1)
	for _, e := range sc.Edges() {
		if v := e.Policy.LatencyNs; v > 0 && (lowest < 0 || v < lowest) {
			lowest = v
		}
	}
	p := Perturbation{Name: "latency +25 % on the shortest edge", Field: "link.latency_ns", Scale: 1.25, Edges: EdgesLowest}
	got, err := p.Apply(sc, reg)
	if err != nil {
		t.Fatal(err)
	}
	changed := 0
	for i, e := range got.Edges() {
		was := sc.Edges()[i]
		want := was.Policy.LatencyNs
		if want == lowest {
			want = scaled(want, 1.25)
			changed++
		}
		if e.Edge != was.Edge || e.Policy.LatencyNs != want || e.Policy.JitterStddevNs != was.Policy.JitterStddevNs {
			t.Errorf("%v: latency %d, want %d", e.Edge, e.Policy.LatencyNs, want)
		}
	}
	if changed == 0 || changed == len(sc.Edges()) {
		t.Errorf("%d of %d edges changed: the test scenario has no single shortest edge", changed, len(sc.Edges()))
	}
	if got.DefaultLink.LatencyNs != sc.DefaultLink.LatencyNs {
		t.Errorf("default_link's latency %d, want %d unchanged", got.DefaultLink.LatencyNs, sc.DefaultLink.LatencyNs)
	}
	// Nothing above 0 to pick: an error naming the field, not a no-op.
	none := Perturbation{Name: "reorder", Field: "link.reorder_prob_ppm", Scale: 2, Edges: EdgesLowest}
	if _, err := none.Apply(sc, reg); err == nil || !strings.Contains(err.Error(), "no edge has reorder_prob_ppm above 0") {
		t.Errorf("no edge above 0: %v", err)
	}
}

// TestSensitivity_ApplyErrorNamesTheRow: a perturbation the scenario's
// loader refuses (it can only be found when applied) is an input error
// naming the table's file and row and the pair.
func TestSensitivity_ApplyErrorNamesTheRow(t *testing.T) {
	sc, prod := threeRegion(t, "three_region_3m", 1)
	table, err := ParseSensitivity("s.toml", []byte("[[perturbation]]\nname = \"slow timeout\"\nfield = \"kind_config.probe_timeout_ns\"\nscale = 3\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Sensitivity([]Pair{{Name: "three", Scenario: sc, Prod: prod}}, table, Options{Seeds: 1, AllowSimProd: true}, nil)
	if !IsInputError(err) || !strings.Contains(err.Error(), `s.toml: perturbation 1 ("slow timeout"): on three: `) {
		t.Errorf("got %v, want an input error naming s.toml's row 1 and the pair", err)
	}
}

// TestSensitivityReport_WriteEvery: the report lists the first ShownRows
// rows of a pair's catch and counts the rest, or, asked for every row
// (detsim calibrate --sensitivity -v), lists them all.
func TestSensitivityReport_WriteEvery(t *testing.T) {
	var rows []string
	for i := range ShownRows + 3 {
		rows = append(rows, fmt.Sprintf("rtt/a->b%d/p50", i))
	}
	rep := &SensitivityReport{Results: []SensitivityResult{{
		Perturbation: Perturbation{Name: "latency x2", Field: "link.latency_ns", Scale: 2},
		Catches:      []Catch{{Pair: "three", Rows: rows}},
	}}}
	for _, every := range []bool{false, true} {
		var out strings.Builder
		if err := rep.Write(&out, every); err != nil {
			t.Fatal(err)
		}
		listed := 0
		for _, r := range rows {
			if strings.Contains(out.String(), r+",") || strings.Contains(out.String(), r+" ") || strings.Contains(out.String(), r+"\n") {
				listed++
			}
		}
		want, more := ShownRows, true
		if every {
			want, more = len(rows), false
		}
		if said := strings.Contains(out.String(), "and 3 more"); listed != want || said != more {
			t.Errorf("every %v: %d rows listed, want %d; \"and 3 more\" %v, want %v\n%s", every, listed, want, said, more, out.String())
		}
	}
}

// TestSensitivity_CatchesMissesAndStaleBlindSpots: on a sim-vs-sim pair
// (the pair's own model as "production", which AllowSimProd permits
// here), doubling the latency is caught; a change that does nothing (the
// metadata a peer carries, scaled by one) is missed, which fails the
// suite unless it is listed as a blind spot; a caught change listed as a
// blind spot is stale, which fails it too.
func TestSensitivity_CatchesMissesAndStaleBlindSpots(t *testing.T) {
	sc, prod := threeRegion(t, "three_region_3m", 1)
	pairs := []Pair{{Name: "three", Scenario: sc, Prod: prod}}
	opts := Options{Seeds: 10, FirstSeed: 100, AllowSimProd: true}
	caught := Perturbation{Name: "latency x2", Field: "link.latency_ns", Scale: 2}
	inert := Perturbation{Name: "nothing", Field: "kind_config.meta_bytes", Scale: 1}
	for _, c := range []struct {
		name   string
		table  []Perturbation
		failed bool
		says   string
	}{
		{"caught", []Perturbation{caught}, false, "caught    latency x2"},
		{"missed", []Perturbation{inert}, true, "MISSED    nothing"},
		{"blind spot", []Perturbation{{Name: "nothing", Field: "kind_config.meta_bytes", Scale: 1, BlindSpot: "changes nothing"}}, false, "blind     nothing"},
		{"stale", []Perturbation{{Name: "latency x2", Field: "link.latency_ns", Scale: 2, BlindSpot: "wrongly listed"}}, true, "STALE     latency x2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep, err := Sensitivity(pairs, c.table, opts, nil)
			if err != nil {
				t.Fatal(err)
			}
			var out strings.Builder
			rep.Write(&out, false)
			if rep.Failed() != c.failed || !strings.Contains(out.String(), c.says) {
				t.Errorf("failed %v, want %v; output:\n%s", rep.Failed(), c.failed, out.String())
			}
		})
	}
}

// TestCatches_NotFromRowsTheBaselineLeftUnjudged: a row caught is one
// that fails perturbed and was judged unperturbed. A row the baseline
// left "not judged" (too few samples, or sizes that differed between
// seeds) that a perturbation makes judgeable and failing is no evidence
// the perturbation moved it: on n3_memberlist, retransmit_mult x2 left
// every seed's join responses one set of sizes, so the exact rule judged
// memberlist's (an implementation difference the baseline never judged)
// and the stale-blind-spot check called it caught.
func TestCatches_NotFromRowsTheBaselineLeftUnjudged(t *testing.T) {
	perturbed := &Report{Rows: []Row{
		{Metric: "msg_size/join_response/p50", Status: Fail},
		{Metric: "kill/sfo/orch/dead", Status: Fail},
		{Metric: "transition_reason/refuted", Status: Fail},
		{Metric: "rtt/a->b/p50", Status: Fail},
		{Metric: "rtt/a->b/p90", Status: Pass},
	}}
	got := catches([]string{"rtt/a->b/p50"}, []string{"msg_size/join_response/p50"}, perturbed)
	if want := []string{"kill/sfo/orch/dead", "transition_reason/refuted"}; !slices.Equal(got, want) {
		t.Errorf("catches %v, want %v", got, want)
	}
}
