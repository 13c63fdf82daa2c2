package calibrate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/detsim/detsim/batch"
	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/internal/detlint"
	"github.com/detsim/detsim/scenarios"
)

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func writeEvents(t *testing.T, lines ...string) string {
	t.Helper()
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "events.ndjson"), []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	return dir
}

const (
	tr   = `{"virtual_time_ns":%d,"host_id":"%s","kind_tag":"swim","event":{"type":"state_transition","observer":"%s","subject":"%s","from":"%s","to":"%s","incarnation":%d,"reason":"%s"}}`
	sent = `{"virtual_time_ns":%d,"host_id":"%s","kind_tag":"swim","event":{"type":"message_sent","peer":"%s","message":"%s","bytes":%d,"updates":0}}`
)

func f(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// handBundle is a two-peer run of 4 s, written by hand; the expected
// metrics are worked out in TestMetrics_HandBundle. Times past 2^31 ns
// are int64s: an untyped 3_000_000_000 is an int, which overflows where
// int is 32 bits (GOARCH=386 go vet).
func handBundle(t *testing.T) string {
	return writeEvents(t,
		f(tr, 0, "a", "a", "a", "none", "alive", 0, "initial"),
		f(tr, 0, "a", "a", "b", "none", "alive", 0, "initial"),
		f(tr, 0, "b", "b", "b", "none", "alive", 0, "initial"),
		f(tr, 0, "b", "b", "a", "none", "alive", 0, "initial"),
		f(sent, 1_000_000_000, "a", "b", "ping", 10),
		`{"virtual_time_ns":1000000000,"host_id":"a","kind_tag":"engine","event":{"type":"dial_start","from":"a","to":"b"}}`,
		f(sent, 2_000_000_000, "a", "b", "ping", 20),
		f(tr, 2_000_000_000, "b", "b", "a", "alive", "suspect", 0, "probe_failed"),
		f(sent, int64(3_000_000_000), "a", "b", "ack", 30),
		`{"virtual_time_ns":3000000000,"host_id":"a","kind_tag":"engine","event":{"type":"drop_on_send","from":"a","to":"b","reason":"lossy"}}`,
		`{"virtual_time_ns":3000000000,"host_id":"a","kind_tag":"swim","event":{"type":"self_incarnation_bump","old":0,"new":1,"cause":"refute_suspect"}}`,
		f(tr, int64(3_000_000_000), "a", "a", "a", "alive", "alive", 1, "refuted"),
		f(tr, int64(3_000_000_000), "b", "b", "a", "suspect", "alive", 1, "gossip"),
		`{"virtual_time_ns":3500000000,"host_id":null,"kind_tag":"engine","event":{"type":"mutation","index":0,"kind":"Heal"}}`,
	)
}

func TestMetrics_HandBundle(t *testing.T) {
	c, err := collectBundle(handBundle(t), []string{"a", "b"}, 4_000_000_000, nil)
	must(t, err)
	s := c.metrics(4_000_000_000)
	want := map[string]float64{
		// a's message_sent at 1, 2, 3 s: gaps 1000, 1000 ms.
		"timespan/a/swim/message_sent/p50": 1000, "timespan/a/swim/message_sent/p99": 1000,
		// a's transitions at 0, 0, 3 s: gaps [0, 3000]; nearest rank.
		"timespan/a/swim/state_transition/p50": 0, "timespan/a/swim/state_transition/p90": 3000,
		// b's at 0, 0, 2, 3 s: gaps [0, 1000, 2000].
		"timespan/b/swim/state_transition/p50": 1000, "timespan/b/swim/state_transition/p90": 2000,
		"transition_reason/initial": 4.0 / 7, "transition_reason/probe_failed": 1.0 / 7,
		"transition_reason/refuted": 1.0 / 7, "transition_reason/gossip": 1.0 / 7,
		"msg_size/ping/p50": 10, "msg_size/ping/p90": 20, "msg_size/ack/p50": 30,
		"msg_count/a->b/ping": 2, "msg_count/a->b/ack": 1,
		"self_incarnation/a/t25": 0, "self_incarnation/a/t50": 0, "self_incarnation/a/t75": 1,
		"self_incarnation/a/t100": 1, "self_incarnation/a/bumps": 1, "self_incarnation/b/t100": 0,
		// a: 3 sends, 1 refused at send, 1 dialed.
		"cache_hits/a": 1, "cache_hits/b": 0, "cache_hits/total": 1, "dials/a": 1, "dials/total": 1,
		// b saw a alive 0–2 s and 3–4 s of 4 s; a saw b alive throughout.
		"alive_fraction/a": 0.75, "alive_fraction/b": 1,
	}
	for name, v := range want {
		got, ok := s.values[name]
		if !ok || math.Abs(got-v) > 1e-12 {
			t.Errorf("%s = %v (present %v), want %v", name, got, ok, v)
		}
	}
	if _, ok := s.values["timespan/a/engine/dial_start/p50"]; ok {
		t.Error("a kind seen once has no gap, so no timespan")
	}
	for name := range s.values {
		if strings.Contains(name, "mutation") {
			t.Errorf("a record bound to no host became metric %s", name)
		}
	}
}

func TestMetrics_WindowCutsRecords(t *testing.T) {
	c, err := collectBundle(handBundle(t), []string{"a", "b"}, 2_500_000_000, nil)
	must(t, err)
	s := c.metrics(4_000_000_000)
	if s.values["msg_count/a->b/ping"] != 2 || s.values["msg_count/a->b/ack"] != 0 {
		t.Errorf("counts %v", s.values)
	}
	if _, ok := s.values["self_incarnation/a/t75"]; ok {
		t.Error("t75 (3 s) is after a 2.5 s window")
	}
	if got := s.values["alive_fraction/a"]; math.Abs(got-0.8) > 1e-12 { // alive 2 of 2.5 s
		t.Errorf("alive_fraction/a = %v", got)
	}
}

func TestQuantileAndW1(t *testing.T) {
	x := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	if quantile(x, 0.5) != 5 || quantile(x, 0.9) != 9 || quantile(x, 0.99) != 10 || quantile([]float64{7}, 0.5) != 7 {
		t.Error("nearest-rank quantiles")
	}
	if d := wasserstein1([]float64{0}, []float64{3}); d != 3 {
		t.Errorf("W1 of two points 3 apart = %v", d)
	}
	if d := wasserstein1([]float64{0, 1}, []float64{0, 1}); d != 0 {
		t.Errorf("W1 of equal samples = %v", d)
	}
	if d := wasserstein1([]float64{0, 2}, []float64{1}); d != 1 {
		t.Errorf("W1 = %v, want 1", d)
	}
	if c := cdf([]float64{1, 2, 2, 3}, 2); c != 0.5 {
		t.Errorf("mid-rank cdf = %v", c)
	}
}

// TestCDFExcept_IsTheCDFOfTheOthersMerged: the leave-one-out cdf counted
// in each seed's sorted samples is exactly the cdf of the others merged
// and sorted, ties and empty seeds included.
func TestCDFExcept_IsTheCDFOfTheOthersMerged(t *testing.T) {
	xs := [][]float64{{1, 2, 2, 5}, {}, {2, 3}, {0, 2, 2, 2, 9}, {4}}
	for skip := range xs {
		for _, v := range []float64{-1, 0, 1, 2, 2.5, 3, 4, 5, 9, 10} {
			others := merged(slices.Concat(xs[:skip], xs[skip+1:])...)
			got, ok := cdfExcept(xs, skip, v)
			if !ok || got != cdf(others, v) {
				t.Errorf("skip %d, v %v: %v %v, want %v", skip, v, got, ok, cdf(others, v))
			}
		}
	}
	if _, ok := cdfExcept([][]float64{{1}, {}}, 0, 1); ok {
		t.Error("an empty union has no cdf")
	}
}

func TestParseTolerances_Shipped(t *testing.T) {
	tol := ShippedTolerances()
	for _, fam := range Families {
		if tol.ByFamily[fam].Why == "" {
			t.Errorf("%s has no reason", fam)
		}
	}
}

func TestParseTolerances_Errors(t *testing.T) {
	base := string(shippedTolerances)
	for _, c := range []struct{ edit, field string }{
		{base + "\n[bogus]\nrule = \"info\"\nwhy = \"x\"\n", "bogus"},
		{strings.Replace(base, "[dials]\nrule = \"spread\"", "[dials]\nrule = \"wide\"", 1), "dials.rule"},
		{strings.Replace(base, "[dials]\nrule = \"spread\"\nmargin_abs = 2.0", "[dials]\nrule = \"spread\"\nmargin_abs = -2.0", 1), "dials.margin_abs"},
		{strings.Replace(base, "[dials]\nrule = \"spread\"\nmargin_abs = 2.0", "[dials]\nrule = \"spread\"\nmargin_abs = \"two\"", 1), "dials.margin_abs"},
		{strings.Replace(base, "[dials]\nrule = \"spread\"\nmargin_abs = 2.0", "[dials]\nrule = \"spread\"\nrel = 2.0", 1), "dials.rel"},
		{strings.Replace(base, "[timespan]\nrule = \"rank\"\nalpha = 0.001", "[timespan]\nrule = \"rank\"\nalpha = 1.5", 1), "timespan.alpha"},
		{strings.Replace(base, "[timespan]\nrule = \"rank\"\nalpha = 0.001", "[timespan]\nrule = \"rank\"", 1), "timespan.alpha"},
		{strings.Replace(base, "[dials]\nrule = \"spread\"", "[dials]\nrule = \"rank\"\nalpha = 0.1", 1), "dials.rule"},
		{strings.Replace(base, "[alive_fraction]", "[alive_fractions]", 1), "alive_fractions"},
		{strings.Replace(base, `why = "A count of sends: as msg_count."`, "", 1), "cache_hits.why"},
		{base[:strings.Index(base, "[dials]")] + base[strings.Index(base, "[alive_fraction]"):], "dials"}, // a family missing
		{strings.Replace(base, "max_quantile = 0.9", "max_quantile = 1.5", 1), "rtt.max_quantile"},
		{strings.Replace(base, "[dials]\nrule = \"spread\"", "[dials]\nrule = \"spread\"\nmax_quantile = 0.5", 1), "dials.max_quantile"},
	} {
		_, err := ParseTolerances("tol.toml", []byte(c.edit))
		var te *ToleranceError
		if !errors.As(err, &te) || te.Field != c.field || !IsInputError(err) {
			t.Errorf("want an error at %s, got %v", c.field, err)
		}
	}
	if _, err := ParseTolerances("tol.toml", []byte("x = = 1")); err == nil || !strings.Contains(err.Error(), "tol.toml: not valid TOML") {
		t.Errorf("bad TOML: %v", err)
	}
}

// threeRegion loads the calibration-like test scenario (or its legacy
// twin) and writes a bundle of it with seed as the "prod" side.
func threeRegion(t testing.TB, name string, seed uint64) (*scenarios.Scenario, string) {
	reg := builtin.Registry()
	sc, err := scenarios.Load("testdata/"+name+".toml", reg)
	must(t, err)
	p := *sc
	p.Seed = seed
	dir := filepath.Join(t.TempDir(), "prod")
	_, err = batch.Run(&p, reg, batch.Config{Out: dir, Version: "test"})
	must(t, err)
	return sc, dir
}

// The same scenario, other seeds: calibration passes with the shipped
// tolerances, except for the rows listed here, each with its mechanism.
// The prod seeds are the first three, not chosen; the sim seeds are
// 100..109, apart from them. A listed row that passes fails the test too,
// so the list cannot go stale (as testdata/calibration/*.known_failures).
// The false-failure rate behind the list is measured in
// docs/calibration.md ("What the tests show").
func TestRun_SimVsSimPasses(t *testing.T) {
	knownFailures := map[uint64][]string{
		// fra's own probe timer fell within 3 ms of its acks to orch's
		// and sgp's probes (phases .089, .091, .092 s): half its send
		// gaps are a few ms, against 82-191 ms in the ten sim seeds. Each
		// run draws its timer phases once; one run in about twelve lands
		// outside ten seeds' spread on some row (docs/calibration.md).
		2: {"timespan/fra/swim/message_sent/p50"},
	}
	for _, seed := range []uint64{1, 2, 3} {
		sc, prod := threeRegion(t, "three_region_3m", seed)
		r, err := Run(sc, prod, Options{FirstSeed: 100, AllowSimProd: true})
		must(t, err)
		var failed []string
		for _, row := range r.Rows {
			if row.Status == Fail {
				failed = append(failed, row.Metric)
			}
		}
		if want := knownFailures[seed]; !slices.Equal(failed, want) {
			var out bytes.Buffer
			r.Write(&out)
			t.Errorf("prod seed %d: sim vs sim fails %v, want exactly %v:\n%s", seed, failed, want, out.String())
		}
	}
}

// A planted difference: prod runs the legacy gossip queue, the sim the
// fixed one. Message sizes must fail, every quantile of ping and ack.
func TestRun_LegacyVsFixedFailsOnMessageSizes(t *testing.T) {
	_, prod := threeRegion(t, "three_region_3m_legacy", 1)
	sc, err := scenarios.Load("testdata/three_region_3m.toml", builtin.Registry())
	must(t, err)
	r, err := Run(sc, prod, Options{FirstSeed: 100, AllowSimProd: true})
	must(t, err)
	status := map[string]Status{}
	for _, row := range r.Rows {
		status[row.Metric] = row.Status
	}
	for _, m := range []string{"msg_size/ping/p50", "msg_size/ping/p90", "msg_size/ping/p99", "msg_size/ack/p50", "msg_size/ack/p90", "msg_size/ack/p99"} {
		if status[m] != Fail {
			t.Errorf("%s: %s, want FAIL", m, status[m])
		}
	}
	if !r.Failed() {
		t.Error("report not failed")
	}
	var out bytes.Buffer
	must(t, r.Write(&out))
	if !strings.Contains(out.String(), "calibrate: FAIL, ") {
		t.Errorf("summary:\n%s", out.String())
	}
	out.Reset()
	must(t, r.WriteJSON(&out))
	var j struct {
		Failed bool `json:"failed"`
		Rows   []struct {
			Metric string   `json:"metric"`
			Prod   *float64 `json:"prod"`
		} `json:"rows"`
	}
	must(t, json.Unmarshal(out.Bytes(), &j))
	if !j.Failed || len(j.Rows) != len(r.Rows) {
		t.Errorf("JSON: failed %v, %d rows", j.Failed, len(j.Rows))
	}
}

func TestRun_PeersDiffer(t *testing.T) {
	_, prod := threeRegion(t, "three_region_3m", 1)
	reg := builtin.Registry()
	sc, err := scenarios.Load("testdata/three_region_3m.toml", reg)
	must(t, err)
	other := *sc
	other.Peers = append([]scenarios.Peer{{ID: "nyc", Kind: "swim", InitialState: "joining"}}, sc.Peers[1:]...)
	_, err = Run(&other, prod, Options{Seeds: 1, AllowSimProd: true})
	if !IsInputError(err) || !strings.Contains(err.Error(), "has peers the scenario does not declare: ") ||
		!strings.Contains(err.Error(), "lacks scenario peers: nyc") {
		t.Errorf("err = %v", err)
	}
}

func TestRun_CutProdBundle(t *testing.T) {
	sc, prod := threeRegion(t, "three_region_3m", 1)
	// Mark the bundle interrupted at 100 s, as a live run stopped by
	// Ctrl-C will (a manifest member this build does not know).
	mpath := filepath.Join(prod, "manifest.json")
	b, err := os.ReadFile(mpath)
	must(t, err)
	var m map[string]any
	must(t, json.Unmarshal(b, &m))
	m["duration_ns"], m["interrupted"] = int64(100_000_000_000), "stopped by SIGINT"
	b, _ = json.Marshal(m)
	must(t, os.WriteFile(mpath, b, 0o644))
	r, err := Run(sc, prod, Options{FirstSeed: 100, Seeds: 3, AllowSimProd: true})
	must(t, err)
	if r.WindowNs != 100_000_000_000 || !strings.Contains(r.Cut, "interrupted: stopped by SIGINT") {
		t.Errorf("window %d, cut %q", r.WindowNs, r.Cut)
	}
	nd := strings.Join(r.NoData(), " ")
	for _, p := range []string{"fra", "orch", "sgp"} {
		for _, tp := range []string{"t75", "t100"} {
			if !strings.Contains(nd, "self_incarnation/"+p+"/"+tp) {
				t.Errorf("no-data list lacks self_incarnation/%s/%s: %s", p, tp, nd)
			}
		}
		if strings.Contains(nd, "self_incarnation/"+p+"/t50") {
			t.Errorf("t50 (90 s) is inside the window")
		}
	}
	var out bytes.Buffer
	must(t, r.Write(&out))
	if !strings.Contains(out.String(), "window      100s of 180s: the prod bundle ends early") || !strings.Contains(out.String(), "no prod data for: ") {
		t.Errorf("report:\n%s", out.String())
	}
}

func TestRun_BadProdBundle(t *testing.T) {
	sc, err := scenarios.Load("testdata/three_region_3m.toml", builtin.Registry())
	must(t, err)
	if _, err := Run(sc, t.TempDir(), Options{Seeds: 1}); !IsInputError(err) {
		t.Errorf("no bundle: %v", err)
	}
}

// calibrate and schemadiff use floating point; no package inside the
// determinism fence may import them (spec §7.4).
func TestFence(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	args := append([]string{"list", "-deps", "-f", "{{.ImportPath}}"}, detlint.DeterministicPackages...)
	out, err := exec.Command("go", args...).Output()
	must(t, err)
	for _, p := range strings.Fields(string(out)) {
		switch p {
		case "github.com/detsim/detsim/kinds/swim/calibrate", "github.com/detsim/detsim/schemadiff":
			t.Errorf("a fenced package depends on %s", p)
		}
	}
	for _, pat := range detlint.DeterministicPackages {
		root := strings.TrimSuffix(pat, "/...")
		for _, p := range []string{"github.com/detsim/detsim/kinds/swim/calibrate", "github.com/detsim/detsim/schemadiff"} {
			if strings.HasPrefix(p, root) {
				t.Errorf("%s is inside the fence pattern %s", p, pat)
			}
		}
	}
}

// TestMarkUnobservable: the families that count records production
// declares it cannot observe are not judged, and say why; the rest are
// untouched.
func TestMarkUnobservable(t *testing.T) {
	rows := []Row{
		{Metric: "cache_hits/a", Family: famCacheHits, Status: Fail},
		{Metric: "dials/total", Family: famDials, Status: Pass},
		{Metric: "msg_count/a->b/ping", Family: famMsgCount, Status: Fail},
	}
	markUnobservable(rows, []bundle.Unobserved{{What: "engine/dial_start", Why: "no dials on UDP"}})
	for i, want := range []Status{Unobservable, Unobservable, Fail} {
		if rows[i].Status != want {
			t.Errorf("%s: %s, want %s", rows[i].Metric, rows[i].Status, want)
		}
	}
	if !strings.Contains(rows[0].Note, "engine/dial_start: no dials on UDP") {
		t.Errorf("note %q", rows[0].Note)
	}
	r := &Report{Rows: rows}
	if !r.Failed() {
		t.Error("the msg_count failure no longer fails the report")
	}
}

// TestRun_RefusesASimulatedProd: a simulated bundle as production is
// refused unless AllowSimProd says the sim-vs-sim check is meant.
func TestRun_RefusesASimulatedProd(t *testing.T) {
	sc, prod := threeRegion(t, "three_region_3m", 1)
	_, err := Run(sc, prod, Options{Seeds: 1})
	if !IsInputError(err) || !strings.Contains(err.Error(), "--allow-sim-prod") {
		t.Errorf("a sim bundle as prod: %v", err)
	}
}

// TestCompare_PresentOnlyInProdRespectsMinSamples: a quantile prod has
// from fewer samples than min_samples and no seed has at all is not
// judged; from enough samples it fails.
func TestCompare_PresentOnlyInProdRespectsMinSamples(t *testing.T) {
	tol := ShippedTolerances()
	sim := side{values: map[string]float64{}, n: map[string]int{}, samples: map[string][]float64{}}
	for _, n := range []int{3, 40} {
		prod := side{values: map[string]float64{"msg_size/gossip/p50": 300}, n: map[string]int{"msg_size/gossip/p50": n}, samples: map[string][]float64{}}
		rows := compare([]side{sim, sim}, prod, tol)
		var got Status
		for _, r := range rows {
			if r.Metric == "msg_size/gossip/p50" {
				got = r.Status
			}
		}
		want := Unjudged
		if n >= tol.ByFamily[famMsgSize].MinSamples {
			want = Fail
		}
		if got != want {
			t.Errorf("prod has it from %d samples, no seed does: %s, want %s", n, got, want)
		}
	}
}

// TestCompare_MedianSeedCountsEverySeed: min_samples looks at the median
// of all K seeds' sample counts, a seed without the metric counting 0,
// and the note says how many seeds have it. (It once took the median of
// only the seeds that had it: a suspicion one seed in ten had, from 4
// samples, was reported as "4 in the median seed".)
func TestCompare_MedianSeedCountsEverySeed(t *testing.T) {
	tol := ShippedTolerances()
	const metric, samples = "suspicion/all/refuted/p50", "suspicion_w1/all/refuted"
	with := func(n int) side {
		x := make([]float64, n)
		for i := range x {
			x[i] = 500 + float64(i)
		}
		return side{suspects: n, values: map[string]float64{metric: quantile(x, 0.5)}, n: map[string]int{metric: n}, samples: map[string][]float64{samples: x}}
	}
	without := side{values: map[string]float64{}, n: map[string]int{}, samples: map[string][]float64{}}
	for _, c := range []struct {
		name    string
		have, n int // seeds of 10 that have it, samples each
		status  Status
		note    string
	}{
		{"one seed of ten, 4 samples", 1, 4, Unjudged, "from 30 samples in prod, 0 in the median seed (1 of 10 seeds have it): fewer than 4"},
		{"four seeds of ten, 30 samples each", 4, 30, Unjudged, "0 in the median seed (4 of 10 seeds have it)"},
		{"six seeds of ten, 30 samples each", 6, 30, Pass, ""},
		{"every seed, 3 samples", 10, 3, Unjudged, "from 30 samples in prod, 3 in the median seed: fewer than 4"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sims := make([]side, 10)
			for i := range sims {
				sims[i] = without
				if i < c.have {
					sims[i] = with(c.n)
				}
			}
			prod := with(30)
			for _, r := range compare(sims, prod, tol) {
				if r.Metric == metric && (r.Status != c.status || !strings.Contains(r.Note, c.note)) {
					t.Errorf("%s: %q, want %s: %q", r.Status, r.Note, c.status, c.note)
				}
			}
		})
	}
}

// sizes is a side whose only metric is a message kind's sizes (the
// msg_size quantile rows and their samples), with suspicions so that
// nothing is marked for want of one.
func sizes(kind string, x ...float64) side {
	s := side{suspects: 1, values: map[string]float64{}, n: map[string]int{}, samples: map[string][]float64{}}
	quantileRows(s, famMsgSize, map[string][]float64{kind: slices.Clone(x)})
	return s
}

// TestCompare_DeterministicSizesJudgedFromAnyCount: a message kind every
// seed sends in exactly the same set of sizes is a deterministic value,
// judged from any number of samples (issue 29: join requests twice the
// size passed as "not judged: 17 samples, fewer than 20"); a kind whose
// sizes vary between seeds is a distribution, and min_samples still
// applies to it. Before the rule, each case below was "not judged".
func TestCompare_DeterministicSizesJudgedFromAnyCount(t *testing.T) {
	tol := ShippedTolerances()
	if !tol.ByFamily[famMsgSize].Exact || !tol.ByFamily[famWire].Exact {
		t.Fatal("msg_size and wire_size are not declared exact")
	}
	fixed := make([]side, 10)
	for i := range fixed {
		fixed[i] = sizes("join_request", 274, 274, 275, 274, 275)
	}
	varied := slices.Clone(fixed)
	varied[3] = sizes("join_request", 274, 274, 816) // one seed joined twice, after a restart
	status := func(sims []side, prod side, metric string) Row {
		for _, r := range compare(sims, prod, tol) {
			if r.Metric == metric {
				return r
			}
		}
		t.Fatalf("no row %s", metric)
		return Row{}
	}
	for _, c := range []struct {
		name   string
		sims   []side
		prod   side
		metric string
		want   Status
	}{
		{"metadata twice the size, two joins", fixed, sizes("join_request", 530, 531), "msg_size/join_request/p50", Fail},
		{"metadata twice the size, p99", fixed, sizes("join_request", 530, 531), "msg_size/join_request/p99", Fail},
		{"the model's sizes", fixed, sizes("join_request", 274, 275), "msg_size/join_request/p50", Pass},
		{"a size between the model's", fixed, sizes("join_request", 274.5), "msg_size/join_request/p50", Fail},
		{"sizes that vary by seed: a distribution", varied, sizes("join_request", 530, 531), "msg_size/join_request/p50", Unjudged},
	} {
		r := status(c.sims, c.prod, c.metric)
		if r.Status != c.want {
			t.Errorf("%s: %s (%s), want %s", c.name, r.Status, r.Note, c.want)
		}
		if c.want != Unjudged && !strings.Contains(r.Tolerance, "exact: one of {274, 275}") {
			t.Errorf("%s: tolerance %q does not name the sizes", c.name, r.Tolerance)
		}
	}
}

// TestCompare_NoSuspicionIsUnobservableHere: on a recording where no
// view ever turned suspect, the rows that depend on a suspicion (its
// durations, the refutations and incarnations, a suspicion's
// transition reasons) are "unobservable here", never Pass, and the
// summary counts them apart; a row the seeds fail stays failed (they
// suspect where the recording never did), and a recording with a
// suspicion keeps its Passes. Before, each such row was Pass.
func TestCompare_NoSuspicionIsUnobservableHere(t *testing.T) {
	tol := ShippedTolerances()
	quiet := func(suspects int) side {
		return side{suspects: suspects, transitions: 10, values: map[string]float64{
			"self_incarnation/a/bumps": 0, "transition_reason/join": 0.5, "transition_reason/refuted": 0,
			"msg_count/a->b/ping": 90,
		}, n: map[string]int{}, samples: map[string][]float64{}}
	}
	sims := []side{quiet(0), quiet(0)}
	withSusp := quiet(0)
	withSusp.values["suspicion/a/refuted/p50"] = 800
	withSusp.n["suspicion/a/refuted/p50"] = 3
	withSusp.samples["suspicion_w1/a/refuted"] = []float64{700, 800, 900}
	sims = append(sims, withSusp)
	flapping := quiet(0)
	flapping.values["self_incarnation/b/bumps"] = 30
	sims = append(sims, flapping, flapping, flapping)
	for i := range sims {
		if _, ok := sims[i].values["self_incarnation/b/bumps"]; !ok {
			sims[i].values["self_incarnation/b/bumps"] = 28
		}
	}
	want := map[string]Status{
		"self_incarnation/a/bumps":  UnobservableHere,
		"transition_reason/refuted": UnobservableHere,
		"suspicion/a/refuted/p50":   UnobservableHere,
		"transition_reason/join":    Pass, // no suspicion needed to join
		"msg_count/a->b/ping":       Pass,
		"self_incarnation/b/bumps":  Fail, // every seed refutes dozens of times, the recording never
	}
	r := &Report{Seeds: []uint64{1}, Rows: compare(sims, quiet(0), tol)}
	for _, row := range r.Rows {
		if w, ok := want[row.Metric]; ok && row.Status != w {
			t.Errorf("no suspicion: %s: %s (%s), want %s", row.Metric, row.Status, row.Note, w)
		}
	}
	var out strings.Builder
	r.Write(&out)
	if !strings.Contains(out.String(), "calibrate: FAIL, 1 of 3 metrics") || !strings.Contains(out.String(), "3 unobservable here: the recording has no suspicion") {
		t.Errorf("the summary does not count them apart from Pass:\n%s", out.String())
	}
	for _, row := range compare(sims, quiet(2), tol) {
		if row.Status == UnobservableHere {
			t.Errorf("a recording with suspicions: %s is %s", row.Metric, row.Status)
		}
	}
}

// TestMetrics_IndirectFanout: each indirect probe's number of
// intermediaries (its via) is a sample of indirect_fanout/all; direct
// probes are not. With five peers indirect_checks shows there directly
// (3 against 2), where one intermediary fewer moved no count beyond its
// spread (issue 29).
func TestMetrics_IndirectFanout(t *testing.T) {
	probe := `{"virtual_time_ns":%d,"host_id":"a","kind_tag":"swim","event":{"type":"probe_sent","target":"b","seq":%d,"mode":"%s","via":%s}}`
	dir := writeEvents(t,
		f(probe, 1_000_000_000, 1, "direct", "[]"),
		f(probe, 1_500_000_000, 1, "indirect", `["c","d","e"]`),
		f(probe, int64(2_500_000_000), 2, "indirect", `["c","d"]`),
		f(probe, int64(3_500_000_000), 3, "indirect", `["c","d","e"]`),
	)
	c, err := collectBundle(dir, []string{"a", "b", "c", "d", "e"}, 4_000_000_000, nil)
	must(t, err)
	s := c.metrics(4_000_000_000)
	if got := s.samples["indirect_fanout_w1/all"]; !slices.Equal(got, []float64{2, 3, 3}) {
		t.Errorf("fan-outs %v, want [2 3 3]", got)
	}
	if s.values["indirect_fanout/all/p50"] != 3 || s.n["indirect_fanout/all/p50"] != 3 {
		t.Errorf("p50 %v from %d samples, want 3 from 3", s.values["indirect_fanout/all/p50"], s.n["indirect_fanout/all/p50"])
	}
}
