// Package calibrate measures the simulator's fidelity against a
// production bundle (spec §11): it runs a scenario for K seeds, computes
// every §11.3 metric on each run and on the production bundle, and
// judges each metric by the rule its family declares in a tolerances file
// (kinds/swim/calibrate/tolerances.toml by default).
//
// Both sides go through one collector: the simulator's runs feed it every
// event record as the engine emits it (in memory, as engine.Monitor; no
// bundle is written), the production bundle from its events.ndjson. So
// a metric means the same thing on both sides by construction.
//
// Floating point is used freely: this is a post-hoc tool outside the
// determinism fence (spec §7.4). Nothing deterministic may import it.
package calibrate

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/detsim/detsim/batch"
	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/engine"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/internal/bundleinfo"
	"github.com/detsim/detsim/scenarios"
)

// DefaultSeeds is K when Options.Seeds is 0.
const DefaultSeeds = 10

// Options tune a calibration.
type Options struct {
	// Seeds is K, the number of simulator runs (default DefaultSeeds).
	Seeds int
	// FirstSeed is the first run's seed; the runs use FirstSeed,
	// FirstSeed+1, ... Zero means the scenario's own seed.
	FirstSeed uint64
	// Tolerances are the rules (default ShippedTolerances()).
	Tolerances *Tolerances
	// Registry has the host kinds (default builtin.Registry()).
	Registry *hosts.Registry
	// Workers is how many runs go at once (default GOMAXPROCS).
	Workers int
	// AllowSimProd accepts a simulated bundle as production. Without it a
	// production bundle that is not a live or testbed recording is
	// refused: the simulator judged against its own output proves
	// nothing (a sim-vs-sim check is the one use, and says so).
	AllowSimProd bool
}

// InputError is bad input — a prod bundle that cannot be read or does
// not match the scenario, bad options — as opposed to an internal error.
// A malformed tolerances file is a *ToleranceError, also input. The CLI
// exits 2 for either (IsInputError).
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// IsInputError reports whether err is bad input (exit 2).
func IsInputError(err error) bool {
	var ie *InputError
	var te *ToleranceError
	return errors.As(err, &ie) || errors.As(err, &te)
}

func inputErr(format string, args ...any) error {
	return &InputError{fmt.Errorf(format, args...)}
}

// Status is a metric's outcome.
type Status string

const (
	Pass   Status = "pass"
	Fail   Status = "FAIL"
	Info   Status = "info"    // an "info" rule: shown, never failing
	NoData Status = "no data" // prod has no value for it (a cut bundle), so it is not judged
	// Unjudged: a quantile from fewer samples than the family's
	// min_samples, on prod or on the median seed.
	Unjudged Status = "not judged"
	// Unobservable: the family counts records production declares it
	// cannot observe (a testbed bundle's testbed.unobserved), so
	// production's value says nothing about the model.
	Unobservable Status = "unobservable"
	// UnobservableHere: the row depends on a suspicion happening and the
	// recording has none, so nothing in it tested the row; never Pass.
	UnobservableHere Status = "unobservable here"
)

// familyReads lists, for the families computed from records other than
// the swim ones every executor writes, the record kinds they count.
var familyReads = map[string][]string{
	famCacheHits: {"engine/dial_start", "engine/drop_on_send"},
	famDials:     {"engine/dial_start"},
}

// markUnobservable turns the rows of every family that reads a kind
// production cannot observe into Unobservable, saying which and why.
func markUnobservable(rows []Row, un []bundle.Unobserved) {
	for i := range rows {
		for _, kind := range familyReads[rows[i].Family] {
			if j := slices.IndexFunc(un, func(u bundle.Unobserved) bool { return u.What == kind }); j >= 0 {
				rows[i].Status = Unobservable
				rows[i].Note = "production cannot observe " + kind + ": " + un[j].Why
				break
			}
		}
	}
}

// Row is one metric of the table.
type Row struct {
	Metric string `json:"metric"`
	Family string `json:"family"`
	// Sim summarises the seeds that have a value: median, min, max, and
	// how many of the K do (a quantile of a kind a seed never emitted has
	// none).
	SimMedian float64 `json:"sim_median"`
	SimMin    float64 `json:"sim_min"`
	SimMax    float64 `json:"sim_max"`
	SimN      int     `json:"sim_n"`
	// Prod is production's value; ProdOK is false when it has none.
	Prod      float64 `json:"prod"`
	ProdOK    bool    `json:"prod_ok"`
	Tolerance string  `json:"tolerance"`
	// Lo and Hi are the interval Prod had to lie in (infinite for info).
	Lo     float64 `json:"lo"`
	Hi     float64 `json:"hi"`
	Status Status  `json:"status"`
	Note   string  `json:"note,omitempty"`
	// Recording is the production recording's own-error marker on a
	// judged row (Recording.Row), or "".
	Recording string `json:"recording,omitempty"`
}

// Report is a calibration's outcome.
type Report struct {
	Scenario   string   `json:"scenario"`
	Prod       string   `json:"prod"`
	Seeds      []uint64 `json:"seeds"`
	Tolerances string   `json:"tolerances"`
	// DurationNs is the scenario's duration; WindowNs how much of it both
	// sides were measured over (less when the prod bundle ends early).
	DurationNs int64 `json:"duration_ns"`
	WindowNs   int64 `json:"window_ns"`
	// Cut says why the prod bundle ends before the scenario's end, or "".
	Cut string `json:"cut,omitempty"`
	// Recording is what the production recording says of its own error
	// (a testbed bundle's delay line), or nil.
	Recording *Recording `json:"recording,omitempty"`
	// Conformal judges the recording as a whole (conformal.go).
	Conformal *Conformal `json:"conformal,omitempty"`
	Rows      []Row      `json:"rows"`
}

// Alarmed is calibrate's verdict. With K ≥ 19 seeds it is the
// whole-recording rule (conformal.go), whose false-alarm rate on a right
// model is at most ConformalAlpha whatever the rows' dependence; a row
// out of tolerance is then a diagnosis, not a verdict, because a right
// model's recording fails some row of hundreds most of the time
// (docs/calibration.md, "False alarms"). With fewer seeds the rule cannot
// alarm, and the verdict falls back to the rows.
func (r *Report) Alarmed() bool {
	if r.Conformal != nil {
		return r.Conformal.Alarm
	}
	return r.Failed()
}

// Failed reports whether any metric is out of tolerance.
func (r *Report) Failed() bool {
	return slices.ContainsFunc(r.Rows, func(row Row) bool { return row.Status == Fail })
}

// NoData lists the metrics that could not be judged for lack of prod data.
func (r *Report) NoData() []string {
	var out []string
	for _, row := range r.Rows {
		if row.Status == NoData {
			out = append(out, row.Metric)
		}
	}
	return out
}

// Run calibrates sc against the production bundle in prodDir. The CLI
// resolves sc (scenarios.Resolve) and treats a failure there as input.
func Run(sc *scenarios.Scenario, prodDir string, opts Options) (*Report, error) {
	k := opts.Seeds
	if k == 0 {
		k = DefaultSeeds
	}
	if k < 1 {
		return nil, inputErr("calibrate: --seeds must be at least 1, not %d", k)
	}
	tol := opts.Tolerances
	if tol == nil {
		tol = ShippedTolerances()
	}
	reg := opts.Registry
	if reg == nil {
		reg = builtin.Registry()
	}
	first := opts.FirstSeed
	if first == 0 {
		first = sc.Seed
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}

	info, err := bundleinfo.Read(prodDir)
	if err != nil {
		return nil, &InputError{fmt.Errorf("prod bundle: %w", err)}
	}
	if !info.Live && !opts.AllowSimProd {
		return nil, inputErr("prod bundle %s is a simulated run (%s): judged against the simulator's own output, calibration cannot fail; give a testbed or live recording, or --allow-sim-prod for a sim-vs-sim check", prodDir, info.Why)
	}
	r := &Report{Scenario: sc.Path, Prod: prodDir, Tolerances: tol.Source, DurationNs: sc.DurationNs, Cut: info.Cut()}
	window := sc.DurationNs
	if info.DurationNs > 0 && info.DurationNs < window {
		window = info.DurationNs
		if r.Cut == "" {
			r.Cut = fmt.Sprintf("its manifest's duration_ns %d is short of the scenario's %d", info.DurationNs, sc.DurationNs)
		}
	}
	r.WindowNs = window

	peers := make([]string, len(sc.Peers))
	for i, p := range sc.Peers {
		peers[i] = p.ID
	}
	prod, err := collectBundle(prodDir, peers, window, prodMTU(info, sc))
	if err != nil {
		return nil, err
	}
	if err := checkPeers(sc, prod); err != nil {
		return nil, err
	}

	// The simulator's K runs, over the same window.
	sims := make([]side, k)
	errs := make([]error, k)
	r.Seeds = make([]uint64, k)
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(workers, k) {
		wg.Go(func() {
			for i := range next {
				sims[i], errs[i] = simulate(sc, reg, first+uint64(i), window, peers)
			}
		})
	}
	for i := range k {
		r.Seeds[i] = first + uint64(i)
		next <- i
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	prodSide := prod.metrics(sc.DurationNs)
	r.Rows = compare(sims, prodSide, tol)
	markUnobservable(r.Rows, info.Unobserved)
	if float64(k+1)*ConformalAlpha >= 1 {
		r.Conformal = conformal(sims, prodSide, tol, info.Unobserved)
	}
	if window < sc.DurationNs {
		r.Rows = append(r.Rows, beyondEnd(peers, sc.DurationNs, window)...)
		slices.SortStableFunc(r.Rows, compareRows)
	}
	r.Recording = recordingOf(info)
	markRows(r.Rows, r.Recording)
	return r, nil
}

// scenarioMTU is each edge's mtu_bytes as sc declares it.
func scenarioMTU(sc *scenarios.Scenario) func(from, to string) int64 {
	m := map[[2]string]int64{}
	for _, l := range sc.Edges() {
		m[[2]string{l.From, l.To}] = l.Policy.MTUBytes
	}
	return func(from, to string) int64 { return m[[2]string{from, to}] }
}

// prodMTU is the MTU each edge of the production run had: the kernel's,
// as a testbed manifest records each edge; for a bundle without that
// record, what the scenario declares (a live run's shaper applied it).
func prodMTU(info bundleinfo.Info, sc *scenarios.Scenario) func(from, to string) int64 {
	if len(info.TestbedEdges) == 0 {
		return scenarioMTU(sc)
	}
	m := map[[2]string]int64{}
	for _, e := range info.TestbedEdges {
		m[[2]string{e.From, e.To}] = e.MTUBytes
	}
	return func(from, to string) int64 { return m[[2]string{from, to}] }
}

// collectBundle feeds a bundle's events.ndjson to a collector.
func collectBundle(dir string, peers []string, window int64, mtu func(from, to string) int64) (*collector, error) {
	c := newCollector(peers, window, mtu)
	err := bundle.ReadEvents(dir, func(line int, rec bundle.EventRecord) error {
		c.Observe(int64(line), rec.VirtualTimeNs, rec.HostID, rec.KindTag, rec.Type, rec.Event)
		return c.err
	})
	if err != nil {
		return nil, &InputError{fmt.Errorf("prod bundle %s: %w", dir, err)}
	}
	return c, nil
}

// simulate runs sc with seed over [0, window] and returns its metrics.
func simulate(sc *scenarios.Scenario, reg *hosts.Registry, seed uint64, window int64, peers []string) (s side, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &batch.PanicError{Value: p}
		}
	}()
	run := *sc
	run.Seed, run.DurationNs = seed, window
	c := newCollector(peers, window, scenarioMTU(&run))
	e, err := engine.New(&run, reg, engine.Options{Monitor: monitor{c}, MaxRecords: batch.DefaultMaxRecords, MaxBytes: batch.DefaultMaxBytes})
	if err != nil {
		return side{}, &InputError{err}
	}
	if err := e.Run(); err != nil {
		return side{}, fmt.Errorf("seed %d: %w", seed, err)
	}
	if e.Truncated() {
		return side{}, fmt.Errorf("seed %d: the run reached the default output cap (%d records) before its end", seed, batch.DefaultMaxRecords)
	}
	if c.err != nil {
		return side{}, fmt.Errorf("seed %d: %w", seed, c.err)
	}
	return c.metrics(sc.DurationNs), nil
}

// monitor is the collector as an engine.Monitor.
type monitor struct{ *collector }

func (m monitor) Clone() engine.Monitor { return m } // calibration runs never checkpoint

// checkPeers: the prod bundle's hosts are the scenario's peers.
func checkPeers(sc *scenarios.Scenario, prod *collector) error {
	declared := map[string]bool{}
	var extra, missing []string
	for _, p := range sc.Peers {
		declared[p.ID] = true
		// A peer declared down may never start; any other must appear.
		if _, ok := prod.hosts[p.ID]; !ok && p.InitialState != "down" {
			missing = append(missing, p.ID)
		}
	}
	for _, h := range slices.Sorted(maps.Keys(prod.hosts)) {
		if !declared[h] {
			extra = append(extra, h)
		}
	}
	var parts []string
	if len(extra) > 0 {
		parts = append(parts, "has peers the scenario does not declare: "+strings.Join(extra, ", "))
	}
	if len(missing) > 0 {
		parts = append(parts, "lacks scenario peers: "+strings.Join(missing, ", "))
	}
	if len(parts) > 0 {
		return inputErr("the prod bundle's peers differ from scenario %s's: it %s", sc.Name, strings.Join(parts, "; it "))
	}
	return nil
}

// beyondEnd are the trajectory points after a cut prod bundle's end.
func beyondEnd(peers []string, duration, window int64) []Row {
	var rows []Row
	for _, p := range peers {
		for _, tp := range trajectoryPoints {
			if at := duration * tp.num / tp.den; at > window {
				rows = append(rows, Row{
					Metric: famSelfInc + "/" + p + "/" + tp.name, Family: famSelfInc, Status: NoData,
					Lo: math.Inf(-1), Hi: math.Inf(1),
					Note: fmt.Sprintf("at %.3gs, after the prod bundle's end at %.3gs", float64(at)/1e9, float64(window)/1e9),
				})
			}
		}
	}
	return rows
}

// compare builds the table: one row per metric any side has.
func compare(sims []side, prod side, tol *Tolerances) []Row {
	names := map[string]bool{}
	for _, s := range append(slices.Clip(sims), prod) {
		for n := range s.values {
			names[n] = true
		}
		for n := range s.samples {
			names[n] = true
		}
	}
	var rows []Row
	for _, name := range slices.Sorted(maps.Keys(names)) {
		fam, _, _ := strings.Cut(name, "/")
		t := tol.ByFamily[fam]
		var simVals []float64
		// simN is every seed's sample count, 0 for a seed without the
		// metric: the median seed is the median of all K, not of those
		// that have it.
		var simN []int
		var prodVal float64
		var prodOK bool
		if isW1(fam) {
			simVals, prodVal, prodOK = w1Values(name, sims, prod)
		} else {
			for _, s := range sims {
				if v, ok := value(s, name, fam); ok {
					simVals = append(simVals, v)
				}
				simN = append(simN, s.n[name])
			}
			prodVal, prodOK = value(prod, name, fam)
		}
		row := judge(name, fam, t, simVals, len(sims), prodVal, prodOK)
		if t.Rule == RuleRank && row.SimN > 0 && row.ProdOK && (row.Status == Pass || row.Status == Fail) {
			key, q, _ := samplesOf(name)
			var pooled [][]float64
			var xs []float64
			for _, s := range sims {
				if len(s.samples[key]) > 0 {
					pooled = append(pooled, s.samples[key])
					xs = append(xs, s.values[name])
				}
			}
			runEps := 0.0
			for i, x := range xs {
				if c, ok := cdfExcept(pooled, i, x); ok {
					runEps = max(runEps, math.Abs(c-q))
				}
			}
			row.Lo, row.Hi = t.rankBounds(q, prod.n[name], merged(pooled...), runEps)
			row.Status = Fail
			if row.Lo <= prodVal && prodVal <= row.Hi {
				row.Status = Pass
			}
		}
		if _, q, ok := samplesOf(name); ok && t.MaxQuantile > 0 && q > t.MaxQuantile && (row.Status == Pass || row.Status == Fail) {
			row.Status = Unjudged
			row.Note = fmt.Sprintf("a tail beyond the judged quantiles (max_quantile %g)", t.MaxQuantile)
		}
		if t.MinSamples > 0 && t.Rule != RuleInfo && (row.Status == Pass || row.Status == Fail) {
			_, _, quantileRow := samplesOf(name)
			switch {
			case len(simVals) > 0:
				slices.Sort(simN)
				if pn, sn := prod.n[name], simN[len(simN)/2]; pn < t.MinSamples || sn < t.MinSamples {
					have := ""
					if len(simVals) < len(sims) {
						have = fmt.Sprintf(" (%d of %d seeds have it)", len(simVals), len(sims))
					}
					row.Status = Unjudged
					row.Note = fmt.Sprintf("from %d samples in prod, %d in the median seed%s: fewer than %d", pn, sn, have, t.MinSamples)
				}
			case quantileRow && prodOK && prod.n[name] < t.MinSamples:
				// Present in prod, absent in every seed: a kind prod
				// emitted a few times says as little as a quantile of a
				// few samples would.
				row.Status = Unjudged
				row.Note = fmt.Sprintf("prod has it from %d samples, no seed has it: fewer than %d", prod.n[name], t.MinSamples)
			}
		}
		if t.Exact && row.Status != Info && row.Status != NoData {
			if key, _, ok := samplesOf(name); ok && prodOK {
				if vs, det := exactValues(sims, key); det {
					judgeExact(&row, vs)
				}
			}
		}
		rows = append(rows, row)
	}
	if prod.suspects == 0 {
		markNoSuspicion(rows)
	}
	slices.SortStableFunc(rows, compareRows)
	return rows
}

// exactValues is the set of values an exact family's samples take in
// every one of the K seeds, when that set is the same in each (sorted,
// without repeats); det is false when some seed lacks the samples or
// the seeds' sets differ. A quantity whose value set no seed changes is
// deterministic for this configuration — a join request's size is the
// codec's bytes of the joiner and its metadata, whatever the seed — and
// not a distribution whose quantiles need min_samples to mean anything.
func exactValues(sims []side, key string) (vs []float64, det bool) {
	for i, s := range sims {
		x := s.samples[key]
		if len(x) == 0 {
			return nil, false
		}
		set := slices.Compact(slices.Clone(x)) // sorted by quantileRows
		if i == 0 {
			vs = set
		} else if !slices.Equal(vs, set) {
			return nil, false
		}
	}
	return vs, len(vs) > 0
}

// judgeExact judges a deterministic row (exactValues) whatever its
// sample counts: production's quantile must be one of the values every
// seed produced. Only a row min_samples left unjudged is judged so;
// from enough samples the rank rule already holds the value to the
// seeds' (its band's ends are samples, all from the same set).
func judgeExact(row *Row, vs []float64) {
	if row.Status != Unjudged || strings.HasPrefix(row.Note, "a tail") {
		return
	}
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = num(v)
	}
	set := "{" + strings.Join(parts, ", ") + "}"
	row.Lo, row.Hi = vs[0], vs[len(vs)-1]
	row.Tolerance = "exact: one of " + set
	row.Status = Fail
	if slices.Contains(vs, row.Prod) {
		row.Status = Pass
	}
	row.Note = "deterministic: every seed's samples are exactly " + set + ", so judged from any number of samples"
}

// suspicionRow reports whether a row's value exists only because some
// view turned suspect: a suspicion's duration, a crash's detection, a
// refutation (every self_incarnation row: a peer's own incarnation
// rises only to refute), and the fractions of transitions whose reason
// is a suspicion's start or end.
func suspicionRow(r Row) bool {
	switch r.Family {
	case famSuspicion, famSuspicionW1, famKill, famSelfInc:
		return true
	case famReason:
		_, reason, _ := strings.Cut(r.Metric, "/")
		return reason == "probe_failed" || reason == "suspicion_timeout" || reason == "refuted"
	}
	return false
}

// markNoSuspicion: on a recording where no view ever turned suspect, a
// row that depends on a suspicion happening cannot have been tested by
// it, so its Pass (the simulator's seeds quiet too, or a count of 0
// against 0) says nothing of how the model handles a suspicion: it is
// "unobservable here", counted apart from Pass. A Fail stays a Fail: the
// seeds suspecting where the recording never did is seen.
func markNoSuspicion(rows []Row) {
	for i := range rows {
		if suspicionRow(rows[i]) && (rows[i].Status == Pass || rows[i].Status == Unjudged || rows[i].Status == NoData) {
			rows[i].Status, rows[i].Note = UnobservableHere, noSuspicionNote
		}
	}
}

const noSuspicionNote = "the recording has no suspicion, so nothing in it depends on how the model handles one"

// compareRows orders rows by family (Families' order), then name.
func compareRows(a, b Row) int {
	fa, fb := slices.Index(Families, a.Family), slices.Index(Families, b.Family)
	if fa != fb {
		return fa - fb
	}
	return strings.Compare(a.Metric, b.Metric)
}

// value is a side's value for a metric: 0 for an absent count or
// fraction, missing for an absent quantile.
func value(s side, name, fam string) (float64, bool) {
	if v, ok := s.values[name]; ok {
		return v, true
	}
	// A fraction of transitions needs some transitions.
	return 0, zeroDefault[fam] && (fam != famReason || s.transitions > 0)
}

// w1Values are a W1 row's figures: each seed's distance to the other
// seeds pooled, and prod's distance to every seed pooled. Every side's
// samples are sorted together once and each distance is a sweep over
// them that passes over the side it leaves out (w1Apart), where merging
// and sorting the others for each distance cost K merges a row, and K²
// under the whole-recording rule (conformal.go). The sweep keeps
// wasserstein1's breakpoints and arithmetic, so the figures are the same
// bits (TestW1Values_SameBitsAsMergingTheOthers).
func w1Values(name string, sims []side, prod side) (simVals []float64, prodVal float64, prodOK bool) {
	prodID := int32(len(sims))
	counts := make([]int, len(sims)+1)
	var pts []labelled
	have, total := 0, 0
	for i, s := range append(slices.Clip(sims), prod) {
		x := s.samples[name]
		counts[i] = len(x)
		total += len(x)
		if i < len(sims) && len(x) > 0 {
			have++
		}
	}
	pts = make([]labelled, 0, total)
	for i, s := range append(slices.Clip(sims), prod) {
		for _, v := range s.samples[name] {
			pts = append(pts, labelled{v, int32(i)})
		}
	}
	slices.SortFunc(pts, func(a, b labelled) int { return cmp.Compare(a.v, b.v) })
	simTotal := total - counts[prodID]
	if have >= 2 {
		for i := range sims {
			if counts[i] > 0 {
				simVals = append(simVals, w1Apart(pts, int32(i), prodID, counts[i], simTotal-counts[i]))
			}
		}
	}
	if counts[prodID] > 0 && have > 0 {
		prodVal, prodOK = w1Apart(pts, prodID, -1, counts[prodID], simTotal), true
	}
	return simVals, prodVal, prodOK
}

// labelled is one sample and the side it came from.
type labelled struct {
	v    float64
	side int32
}

// w1Apart is wasserstein1 between side a's samples (na of them) and the
// union of every side's but a's and skip's (nb), over pts, every side's
// samples sorted together: the same breakpoints in the same order as
// wasserstein1 over the two sorted samples, so the same sum.
func w1Apart(pts []labelled, a, skip int32, na, nb int) float64 {
	var d, prev float64
	i, j := 0, 0
	started := false
	for k := 0; k < len(pts); {
		if pts[k].side == skip {
			k++
			continue
		}
		x := pts[k].v
		if !started {
			prev, started = x, true
		}
		fa := float64(i) / float64(na)
		fb := float64(j) / float64(nb)
		d += math.Abs(fa-fb) * (x - prev)
		prev = x
		for ; k < len(pts) && pts[k].v == x; k++ {
			switch pts[k].side {
			case a:
				i++
			case skip:
			default:
				j++
			}
		}
	}
	return d
}

// judge applies a family's rule to one metric.
func judge(name, fam string, t Tolerance, simVals []float64, k int, prodVal float64, prodOK bool) Row {
	row := Row{Metric: name, Family: fam, SimN: len(simVals), Prod: prodVal, ProdOK: prodOK,
		Tolerance: t.String(), Lo: math.Inf(-1), Hi: math.Inf(1)}
	slices.Sort(simVals)
	if len(simVals) > 0 {
		row.SimMin, row.SimMax, row.SimMedian = simVals[0], simVals[len(simVals)-1], median(simVals)
	}
	w1 := isW1(fam)
	switch {
	case t.Rule == RuleInfo:
		row.Status = Info
	case !prodOK && len(simVals) == 0:
		row.Status, row.Note = NoData, "neither side has a value"
	case !prodOK && w1:
		row.Status, row.Note = NoData, "prod has no samples"
	case !prodOK && len(simVals) < k:
		row.Status, row.Note = Pass, fmt.Sprintf("absent in prod and in %d of %d seeds", k-len(simVals), k)
	case !prodOK:
		row.Status, row.Note = Fail, "every seed has it, prod never does"
	case len(simVals) == 0 && w1:
		row.Status, row.Note = NoData, "fewer than two seeds have samples"
	case len(simVals) == 0:
		row.Status, row.Note = Fail, "prod has it, no seed ever does"
	default:
		row.Lo, row.Hi = t.accepts(simVals, row.SimMedian)
		row.Status = Fail
		if row.Lo <= prodVal && prodVal <= row.Hi {
			row.Status = Pass
		}
		if len(simVals) < k {
			row.Note = fmt.Sprintf("%d of %d seeds have it", len(simVals), k)
		}
	}
	return row
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// Write prints the table: metric, sim median [min, max] (seeds with a
// value), prod, tolerance, outcome; then a summary line.
func (r *Report) Write(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "scenario    %s, %d seeds (%d..%d)\n", r.Scenario, len(r.Seeds), r.Seeds[0], r.Seeds[len(r.Seeds)-1])
	fmt.Fprintf(&b, "prod        %s\n", r.Prod)
	fmt.Fprintf(&b, "tolerances  %s\n", r.Tolerances)
	if r.Cut != "" {
		fmt.Fprintf(&b, "window      %.6gs of %.6gs: the prod bundle ends early (%s); both sides are measured over the window\n",
			float64(r.WindowNs)/1e9, float64(r.DurationNs)/1e9, r.Cut)
	}
	if r.Recording != nil {
		fmt.Fprintf(&b, "recording   %s\n", r.Recording.Note)
	}
	b.WriteString("\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "metric\tsim median [min, max] (n)\tprod\ttolerance\tresult\t")
	counts := map[Status]int{}
	for _, row := range r.Rows {
		counts[row.Status]++
		sim := "-"
		if row.SimN > 0 {
			sim = fmt.Sprintf("%s [%s, %s] (%d)", num(row.SimMedian), num(row.SimMin), num(row.SimMax), row.SimN)
		}
		prod := "-"
		if row.ProdOK {
			prod = num(row.Prod)
		}
		result := string(row.Status)
		if row.Note != "" {
			result += ": " + row.Note
		}
		if row.Recording != "" {
			result += " [" + row.Recording + "]"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t\n", row.Metric, sim, prod, row.Tolerance, result)
	}
	tw.Flush()
	b.WriteString("\n")
	judged := counts[Pass] + counts[Fail]
	switch {
	case r.Conformal != nil && r.Conformal.Alarm:
		fmt.Fprintf(&b, "calibrate: FAIL as a whole (p = %.3f), %d of %d metrics out of tolerance", r.Conformal.P, counts[Fail], judged)
	case r.Conformal != nil:
		fmt.Fprintf(&b, "calibrate: pass as a whole (p = %.3f), %d of %d metrics out of tolerance, a diagnosis", r.Conformal.P, counts[Fail], judged)
	case counts[Fail] > 0:
		fmt.Fprintf(&b, "calibrate: FAIL, %d of %d metrics out of tolerance", counts[Fail], judged)
	default:
		fmt.Fprintf(&b, "calibrate: pass, %d metrics in tolerance", judged)
	}
	fmt.Fprintf(&b, " (%d info, %d not judged for too few samples, %d without prod data", counts[Info], counts[Unjudged], counts[NoData])
	if counts[Unobservable] > 0 {
		fmt.Fprintf(&b, ", %d unobservable in prod", counts[Unobservable])
	}
	if counts[UnobservableHere] > 0 {
		fmt.Fprintf(&b, ", %d unobservable here: the recording has no suspicion", counts[UnobservableHere])
	}
	b.WriteString(")\n")
	if nd := r.NoData(); len(nd) > 0 {
		fmt.Fprintf(&b, "no prod data for: %s\n", strings.Join(nd, ", "))
	}
	if r.Conformal != nil {
		fmt.Fprintf(&b, "as a whole: %s\n", r.Conformal.line())
	} else {
		fmt.Fprintf(&b, "as a whole: not judged with %d seeds; --seeds %d or more judges the recording as a whole at a false-alarm rate of at most %g (docs/calibration.md, \"False alarms\")\n",
			len(r.Seeds), int(math.Ceil(1/ConformalAlpha))-1, ConformalAlpha)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// num formats a metric value: integers as integers, others to four
// significant digits.
func num(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf("%.4g", v)
}

// WriteJSON writes the report as one JSON object. Infinite bounds (info
// and no-data rows) are written as null.
func (r *Report) WriteJSON(w io.Writer) error {
	type jrow struct {
		Row
		Lo   *float64 `json:"lo"`
		Hi   *float64 `json:"hi"`
		Prod *float64 `json:"prod"`
	}
	fin := func(v float64, ok bool) *float64 {
		if !ok || math.IsInf(v, 0) || math.IsNaN(v) {
			return nil
		}
		return &v
	}
	rows := make([]jrow, len(r.Rows))
	for i, row := range r.Rows {
		rows[i] = jrow{Row: row, Lo: fin(row.Lo, true), Hi: fin(row.Hi, true), Prod: fin(row.Prod, row.ProdOK)}
	}
	out := struct {
		*Report
		Rows   []jrow `json:"rows"`
		Failed bool   `json:"failed"`
		// Alarmed is the verdict (Report.Alarmed); Failed, any row.
		Alarmed bool     `json:"alarmed"`
		NoData  []string `json:"no_data"`
	}{r, rows, r.Failed(), r.Alarmed(), r.NoData()}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
