package calibrate

import (
	_ "embed"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/detsim/detsim/internal/safefile"
	"github.com/detsim/detsim/internal/tomlguard"
)

// The comparison rules a tolerance may declare.
const (
	// RuleSpread: production's value lies in the simulator's K-seed
	// [min, max], each bound widened by margin_rel × |bound| +
	// margin_abs + margin_sigma × sqrt(|bound|) (the last a Poisson
	// standard deviation, for counts).
	RuleSpread = "spread"
	// RuleRelative: |prod − sim median| ≤ rel × |sim median| + abs.
	RuleRelative = "relative"
	// RuleRank, for quantiles: production's q-quantile lies between the
	// pooled simulator samples' (q − ε)- and (q + ε)-quantiles, widened by
	// margin_abs. ε has two parts. Sampling noise: sqrt(ln(2/alpha) / 2n)
	// for prod's n plus the pooled sim n, the Dvoretzky–Kiefer–Wolfowitz
	// bound on how far an empirical CDF of n samples strays from the true
	// one, with probability at least 1 − alpha. Run noise: the largest
	// |F_others(x_i) − q| over the seeds, where x_i is seed i's q-quantile
	// and F_others the CDF of the other seeds' pooled samples — samples
	// within one run are not independent (each run draws its peers' timer
	// phases once), and this is how far one run's quantile strays from the
	// rest in rank. Judging by rank means a quantile sitting between two
	// modes of a distribution does not fail for jumping from one to the
	// other. Where q ± ε passes 0 or 1 the band ends at the pooled
	// samples' min or max.
	RuleRank = "rank"
	// RuleInfo: shown, never failing (a secondary figure).
	RuleInfo = "info"
)

// Tolerance is one family's declared comparison rule.
type Tolerance struct {
	Rule                              string
	MarginRel, MarginAbs, MarginSigma float64 // spread
	Rel, Abs                          float64 // relative
	Alpha                             float64 // rank (and margin_abs)
	// MinSamples, for a quantile family, is the fewest samples a quantile
	// is judged from, on prod and on the median seed; below it the row is
	// shown "not judged" (any rule but info).
	MinSamples int
	// MaxQuantile, for a rank family, is the highest quantile judged
	// (0: all): a heavier tail is a few samples of one run, which the
	// run-to-run spread of K seeds does not bound; it is shown, not
	// judged.
	MaxQuantile float64
	// Exact, for a quantile family, says its values are exact (message
	// sizes in bytes: the codec and the headers are deterministic), so
	// a row whose samples take the same set of values in every one of
	// the K seeds is a deterministic quantity, not a distribution: it is
	// judged from any number of samples, production's quantile having to
	// be one of those values, and min_samples does not apply to it.
	Exact bool
	// Why is the reason for the values, required: a tolerance nobody can
	// justify is not one (spec §11.4).
	Why string
}

// Tolerances maps every metric family to its rule.
type Tolerances struct {
	Source   string
	ByFamily map[string]Tolerance
}

// ToleranceError is a malformed tolerances file, naming the field.
type ToleranceError struct {
	Source string
	Field  string // "msg_size.margin_rel"; "" for the whole file
	Msg    string
}

func (e *ToleranceError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s: %s", e.Source, e.Msg)
	}
	return fmt.Sprintf("%s: %s: %s", e.Source, e.Field, e.Msg)
}

//go:embed tolerances.toml
var shippedTolerances []byte

// ShippedTolerances are the tolerances checked in beside this package
// (kinds/swim/calibrate/tolerances.toml).
func ShippedTolerances() *Tolerances {
	t, err := ParseTolerances("kinds/swim/calibrate/tolerances.toml", shippedTolerances)
	if err != nil {
		panic(err) // a test holds the shipped file valid
	}
	return t
}

// LoadTolerances reads and parses a tolerances file.
func LoadTolerances(path string) (*Tolerances, error) {
	b, err := safefile.ReadFile(path, 1<<20)
	if err != nil {
		return nil, &ToleranceError{Source: path, Msg: err.Error()}
	}
	return ParseTolerances(path, b)
}

// ruleKeys are the keys each rule allows besides rule and why.
var ruleKeys = map[string][]string{
	RuleSpread:   {"margin_rel", "margin_abs", "margin_sigma", "min_samples"},
	RuleRelative: {"rel", "abs", "min_samples"},
	RuleRank:     {"alpha", "margin_abs", "min_samples", "max_quantile", "exact"},
	RuleInfo:     {},
}

// ParseTolerances parses a tolerances file: one table per metric family
// (every family must have one, and no other table may appear), each with
// rule = "spread" | "relative" | "info", the rule's numbers (non-negative),
// and why. source names the file in errors.
func ParseTolerances(source string, b []byte) (*Tolerances, error) {
	fail := func(field, format string, args ...any) error {
		return &ToleranceError{Source: source, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	if err := tomlguard.Check(b); err != nil {
		return nil, fail("", "%v", err)
	}
	var raw map[string]any
	if _, err := toml.Decode(string(b), &raw); err != nil {
		return nil, fail("", "not valid TOML: %v", err)
	}
	t := &Tolerances{Source: source, ByFamily: map[string]Tolerance{}}
	for _, fam := range slices.Sorted(maps.Keys(raw)) {
		if !slices.Contains(Families, fam) {
			return nil, fail(fam, "not a metric family (one of: %s)", strings.Join(Families, ", "))
		}
		tab, ok := raw[fam].(map[string]any)
		if !ok {
			return nil, fail(fam, "must be a table, not %T", raw[fam])
		}
		var tol Tolerance
		rule, ok := tab["rule"].(string)
		if !ok {
			return nil, fail(fam+".rule", `missing, or not a string: "spread", "relative", "rank" or "info"`)
		}
		allowed, ok := ruleKeys[rule]
		if !ok {
			return nil, fail(fam+".rule", `%q is not a rule: "spread", "relative", "rank" or "info"`, rule)
		}
		tol.Rule = rule
		why, ok := tab["why"].(string)
		if !ok || strings.TrimSpace(why) == "" {
			return nil, fail(fam+".why", "missing: every tolerance states its reason")
		}
		tol.Why = strings.TrimSpace(why)
		for _, k := range slices.Sorted(maps.Keys(tab)) {
			if k == "rule" || k == "why" {
				continue
			}
			if !slices.Contains(allowed, k) {
				return nil, fail(fam+"."+k, "not a key of rule %q (allowed: %s)", rule, strings.Join(append([]string{"rule", "why"}, allowed...), ", "))
			}
			if k == "exact" {
				b, ok := tab[k].(bool)
				if !ok {
					return nil, fail(fam+"."+k, "must be true or false, not %v", tab[k])
				}
				if _, quantiles := samplesFamily[fam]; !quantiles {
					return nil, fail(fam+"."+k, "only the quantile families (%s) have samples", strings.Join(quantileFamilies(), ", "))
				}
				tol.Exact = b
				continue
			}
			var v float64
			switch n := tab[k].(type) {
			case int64:
				v = float64(n)
			case float64:
				v = n
			default:
				return nil, fail(fam+"."+k, "must be a number, not %v", tab[k])
			}
			if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fail(fam+"."+k, "must be a finite number ≥ 0, not %v", tab[k])
			}
			switch k {
			case "min_samples":
				if _, quantiles := samplesFamily[fam]; !quantiles {
					return nil, fail(fam+"."+k, "only the quantile families (%s) have samples", strings.Join(quantileFamilies(), ", "))
				}
				if v != math.Trunc(v) || v > 1e9 {
					return nil, fail(fam+"."+k, "must be a whole number, not %v", tab[k])
				}
				tol.MinSamples = int(v)
			case "margin_rel":
				tol.MarginRel = v
			case "margin_abs":
				tol.MarginAbs = v
			case "margin_sigma":
				tol.MarginSigma = v
			case "rel":
				tol.Rel = v
			case "alpha":
				if v <= 0 || v >= 1 {
					return nil, fail(fam+"."+k, "must lie strictly between 0 and 1, not %v", tab[k])
				}
				tol.Alpha = v
			case "abs":
				tol.Abs = v
			case "max_quantile":
				if v <= 0 || v > 1 {
					return nil, fail(fam+"."+k, "must lie in (0, 1], not %v", tab[k])
				}
				tol.MaxQuantile = v
			}
		}
		if rule == RuleRank {
			if _, quantiles := samplesFamily[fam]; !quantiles {
				return nil, fail(fam+".rule", `"rank" judges quantiles: only %s have them`, strings.Join(quantileFamilies(), ", "))
			}
			if _, ok := tab["alpha"]; !ok {
				return nil, fail(fam+".alpha", `missing: rule "rank" needs alpha`)
			}
		}
		if rule == RuleRelative {
			if _, ok := tab["rel"]; !ok {
				return nil, fail(fam+".rel", `missing: rule "relative" needs rel`)
			}
		}
		t.ByFamily[fam] = tol
	}
	for _, fam := range Families {
		if _, ok := t.ByFamily[fam]; !ok {
			return nil, fail(fam, "missing: every metric family needs a declared rule")
		}
	}
	return t, nil
}

// String is the rule as the table shows it.
func (t Tolerance) String() string {
	switch t.Rule {
	case RuleSpread:
		var parts []string
		if t.MarginRel > 0 {
			parts = append(parts, fmt.Sprintf("%g%%", 100*t.MarginRel))
		}
		if t.MarginAbs > 0 {
			parts = append(parts, fmt.Sprintf("%g", t.MarginAbs))
		}
		if t.MarginSigma > 0 {
			parts = append(parts, fmt.Sprintf("%g√x", t.MarginSigma))
		}
		s := "in [min,max]"
		if len(parts) > 0 {
			s += " ± " + strings.Join(parts, "+")
		}
		if t.MinSamples > 0 {
			s += fmt.Sprintf(", n≥%d", t.MinSamples)
		}
		return s
	case RuleRelative:
		s := fmt.Sprintf("median ± %g%%", 100*t.Rel)
		if t.Abs > 0 {
			s += fmt.Sprintf("+%g", t.Abs)
		}
		if t.MinSamples > 0 {
			s += fmt.Sprintf(", n≥%d", t.MinSamples)
		}
		return s
	case RuleRank:
		s := fmt.Sprintf("rank ± DKW(α=%g)", t.Alpha)
		if t.MarginAbs > 0 {
			s += fmt.Sprintf("+%g", t.MarginAbs)
		}
		if t.MinSamples > 0 {
			s += fmt.Sprintf(", n≥%d", t.MinSamples)
		}
		if t.Exact {
			s += ", exact"
		}
		return s
	}
	return "info"
}

// dkw is the Dvoretzky–Kiefer–Wolfowitz ε for n samples at level alpha.
func dkw(n int, alpha float64) float64 {
	return math.Sqrt(math.Log(2/alpha) / (2 * float64(n)))
}

// rankBounds is the interval the rank rule accepts for a q-quantile of
// nProd samples, given the pooled simulator samples (sorted, non-empty).
// runEps is the run-to-run rank noise the seeds themselves show.
func (t Tolerance) rankBounds(q float64, nProd int, pooled []float64, runEps float64) (lo, hi float64) {
	eps := dkw(nProd, t.Alpha) + dkw(len(pooled), t.Alpha) + runEps
	// Past either end the band stops at the pooled samples' min or max:
	// prod's quantile may not leave everything the seeds ever produced.
	lo = quantile(pooled, max(q-eps, 0)) - t.MarginAbs
	hi = quantile(pooled, min(q+eps, 1)) + t.MarginAbs
	return lo, hi
}

// accepts returns the interval production's value must lie in, given the
// simulator's values (sorted, non-empty) and their median.
func (t Tolerance) accepts(sorted []float64, median float64) (lo, hi float64) {
	switch t.Rule {
	case RuleSpread:
		widen := func(x float64) float64 {
			return t.MarginRel*math.Abs(x) + t.MarginAbs + t.MarginSigma*math.Sqrt(math.Abs(x))
		}
		lo, hi = sorted[0], sorted[len(sorted)-1]
		return lo - widen(lo), hi + widen(hi)
	case RuleRelative:
		w := t.Rel*math.Abs(median) + t.Abs
		return median - w, median + w
	}
	return math.Inf(-1), math.Inf(1)
}

// quantileFamilies lists the families judged on quantiles of samples, in
// table order.
func quantileFamilies() []string {
	var out []string
	for _, f := range Families {
		if _, ok := samplesFamily[f]; ok {
			out = append(out, f)
		}
	}
	return out
}
