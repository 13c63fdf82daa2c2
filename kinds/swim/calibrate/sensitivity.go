package calibrate

import (
	_ "embed"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/internal/safefile"
	"github.com/detsim/detsim/internal/tomlguard"
	"github.com/detsim/detsim/scenarios"
)

// The sensitivity suite proves calibration can fail (issue 20): every
// perturbation of the model in the table must make at least one row fail
// on at least one corpus pair that did not fail unperturbed, or be
// listed as a blind spot with the reason. A comparison that passes
// whatever the model is proves nothing.

//go:embed sensitivity.toml
var shippedSensitivity []byte

// ShippedSensitivity is the table kinds/swim/calibrate/sensitivity.toml.
func ShippedSensitivity() []Perturbation {
	ps, err := ParseSensitivity("kinds/swim/calibrate/sensitivity.toml", shippedSensitivity)
	if err != nil {
		panic(err) // a test holds the shipped table valid
	}
	return ps
}

// LoadSensitivity reads a perturbation table from a file.
func LoadSensitivity(path string) ([]Perturbation, error) {
	b, err := safefile.ReadFile(path, 1<<20)
	if err != nil {
		return nil, &InputError{err}
	}
	return ParseSensitivity(path, b)
}

// ParseSensitivity parses a perturbation table: [[perturbation]] rows of
// name, field, scale or set, and optional edges and blind_spot. A row that
// names an unknown key or field, or asks an impossible value, is an
// error naming the row.
func ParseSensitivity(source string, b []byte) ([]Perturbation, error) {
	if err := tomlguard.Check(b); err != nil {
		return nil, &InputError{fmt.Errorf("%s: %v", source, err)}
	}
	var raw struct {
		Perturbation []map[string]any `toml:"perturbation"`
	}
	md, err := toml.Decode(string(b), &raw)
	if err != nil {
		return nil, &InputError{fmt.Errorf("%s: not valid TOML: %v", source, err)}
	}
	if und := md.Undecoded(); len(und) > 0 {
		return nil, &InputError{fmt.Errorf("%s: %s: not a table of the sensitivity file (only [[perturbation]] rows)", source, und[0])}
	}
	var out []Perturbation
	names := map[string]bool{}
	for i, row := range raw.Perturbation {
		name, _ := row["name"].(string)
		where := fmt.Sprintf("%s: perturbation %d", source, i+1)
		if name != "" {
			where += fmt.Sprintf(" (%q)", name)
		}
		fail := func(format string, args ...any) error {
			return &InputError{fmt.Errorf("%s: %s", where, fmt.Sprintf(format, args...))}
		}
		if strings.TrimSpace(name) == "" {
			return nil, fail("name: missing")
		}
		if names[name] {
			return nil, fail("name: given twice")
		}
		names[name] = true
		p := Perturbation{Name: name, Row: where}
		for _, k := range slices.Sorted(maps.Keys(row)) {
			// One case a key, alike in shape: each checks its
			// own value's type.
			switch k {
			case "name":
			case "field":
				s, ok := row[k].(string)
				if !ok {
					return nil, fail("field: want a string")
				}
				p.Field = s
			case "scale":
				switch v := row[k].(type) {
				case float64:
					p.Scale = v
				case int64:
					p.Scale = float64(v)
				default:
					return nil, fail("scale: want a number")
				}
				if !(p.Scale > 0) {
					return nil, fail("scale %v: want a finite number above 0", row[k])
				}
			case "set":
				p.Set = row[k]
			case "edges":
				s, ok := row[k].(string)
				if !ok {
					return nil, fail("edges: want a string")
				}
				p.Edges = s
			case "blind_spot":
				s, ok := row[k].(string)
				if !ok || strings.TrimSpace(s) == "" {
					return nil, fail("blind_spot: want the reason, a string")
				}
				p.BlindSpot = strings.TrimSpace(s)
			default:
				return nil, fail("%s: not a key of a perturbation (name, field, scale or set, edges, blind_spot)", k)
			}
		}
		if err := p.check(); err != nil {
			return nil, fail("%v", err)
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, &InputError{fmt.Errorf("%s: no [[perturbation]] rows", source)}
	}
	return out, nil
}

// Pair is one corpus pair for the sensitivity suite: a calibration
// scenario, its production bundle, and the rows it fails unperturbed.
type Pair struct {
	Name     string
	Scenario *scenarios.Scenario
	Prod     string
	// Known are the rows the pair fails with the model as it is
	// (NAME.known_failures): a perturbation is caught by a row outside
	// them.
	Known []string
}

// Catch is one perturbation's outcome on one pair.
type Catch struct {
	Pair string
	// Rows are the rows that failed perturbed and were judged and
	// passed (or had no value) unperturbed.
	Rows []string
}

// SensitivityResult is one perturbation's outcome over the corpus.
type SensitivityResult struct {
	Perturbation Perturbation
	Catches      []Catch // pairs where some row caught it
}

// Caught reports whether some row on some pair caught it.
func (r SensitivityResult) Caught() bool { return len(r.Catches) > 0 }

// Baseline is a pair's outcome unperturbed: the rows it fails beyond
// its known failures, and known failures that now pass.
type Baseline struct {
	Pair        string
	New, Passed []string
}

// SensitivityReport is the whole suite's outcome.
type SensitivityReport struct {
	Baselines []Baseline
	Results   []SensitivityResult
}

// Failed reports whether the suite does not hold: an unperturbed pair
// fails other rows than its known ones, a perturbation that is not a
// blind spot is caught by nothing, or a listed blind spot is caught (the
// listing is stale).
func (r *SensitivityReport) Failed() bool {
	for _, b := range r.Baselines {
		if len(b.New) > 0 || len(b.Passed) > 0 {
			return true
		}
	}
	for _, res := range r.Results {
		if res.Caught() == (res.Perturbation.BlindSpot != "") {
			return true
		}
	}
	return false
}

// failing lists a report's failing rows.
func failing(r *Report) []string {
	var out []string
	for _, row := range r.Rows {
		if row.Status == Fail {
			out = append(out, row.Metric)
		}
	}
	return out
}

// Sensitivity runs every pair unperturbed and under every perturbation,
// with opts as Run takes them (K seeds each), and reports which rows
// caught what. progress, when set, is told each step as it starts.
func Sensitivity(pairs []Pair, table []Perturbation, opts Options, progress func(string)) (*SensitivityReport, error) {
	reg := opts.Registry
	if reg == nil {
		reg = builtin.Registry()
	}
	rep := &SensitivityReport{}
	base := make([][]string, len(pairs))
	// unjudged are the rows each pair's baseline left "not judged" for
	// too few samples: a perturbation that makes such a row judgeable
	// (a few more samples, or every seed's sizes now the same set) and
	// fail is no evidence it moved the row — the baseline never said
	// where the row stood — so it is not a catch.
	unjudged := make([][]string, len(pairs))
	for i, pr := range pairs {
		if progress != nil {
			progress(pr.Name + ", unperturbed")
		}
		r, err := Run(pr.Scenario, pr.Prod, opts)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", pr.Name, err)
		}
		base[i] = failing(r)
		for _, row := range r.Rows {
			if row.Status == Unjudged {
				unjudged[i] = append(unjudged[i], row.Metric)
			}
		}
		b := Baseline{Pair: pr.Name}
		for _, m := range base[i] {
			if !slices.Contains(pr.Known, m) {
				b.New = append(b.New, m)
			}
		}
		for _, m := range pr.Known {
			if !slices.Contains(base[i], m) {
				b.Passed = append(b.Passed, m)
			}
		}
		rep.Baselines = append(rep.Baselines, b)
	}
	for _, p := range table {
		res := SensitivityResult{Perturbation: p}
		for i, pr := range pairs {
			if progress != nil {
				progress(pr.Name + ", " + p.Name)
			}
			sc, err := p.Apply(pr.Scenario, reg)
			if err != nil {
				row := p.Row
				if row == "" {
					row = fmt.Sprintf("perturbation %q", p.Name)
				}
				return nil, &InputError{fmt.Errorf("%s: on %s: %w", row, pr.Name, err)}
			}
			r, err := Run(sc, pr.Prod, opts)
			if err != nil {
				return nil, fmt.Errorf("perturbation %q on %s: %w", p.Name, pr.Name, err)
			}
			if caught := catches(base[i], unjudged[i], r); len(caught) > 0 {
				res.Catches = append(res.Catches, Catch{Pair: pr.Name, Rows: caught})
			}
		}
		rep.Results = append(rep.Results, res)
	}
	return rep, nil
}

// catches are the rows of a perturbed run r that caught the
// perturbation: failing, where the baseline neither failed them
// (baseFail) nor left them not judged (baseUnjudged).
func catches(baseFail, baseUnjudged []string, r *Report) []string {
	var out []string
	for _, m := range failing(r) {
		if !slices.Contains(baseFail, m) && !slices.Contains(baseUnjudged, m) {
			out = append(out, m)
		}
	}
	return out
}

// ShownRows is how many catching rows Write lists per pair unless told
// to list every one; the rest are counted ("and N more").
const ShownRows = 6

// Write prints the suite's outcome: each pair's baseline, then each
// perturbation with the rows that caught it, pair by pair: the first
// ShownRows of each pair's, or, with every, all of them.
func (r *SensitivityReport) Write(w io.Writer, every bool) error {
	var b strings.Builder
	for _, base := range r.Baselines {
		switch {
		case len(base.New) > 0:
			fmt.Fprintf(&b, "baseline  %s: FAIL, unperturbed it fails rows its known failures do not list: %s\n", base.Pair, strings.Join(base.New, ", "))
		case len(base.Passed) > 0:
			fmt.Fprintf(&b, "baseline  %s: FAIL, known failures that now pass (remove them): %s\n", base.Pair, strings.Join(base.Passed, ", "))
		default:
			fmt.Fprintf(&b, "baseline  %s: as known\n", base.Pair)
		}
	}
	for _, res := range r.Results {
		p := res.Perturbation
		how := fmt.Sprintf("%s × %g", p.Field, p.Scale)
		if p.Scale == 0 {
			how = fmt.Sprintf("%s = %v", p.Field, p.Set)
		}
		if p.Edges == EdgesLowest {
			how += ", on the edges of its lowest value"
		}
		switch {
		case res.Caught() && p.BlindSpot != "":
			fmt.Fprintf(&b, "STALE     %s (%s): listed as a blind spot, but caught: remove blind_spot from the table\n", p.Name, how)
		case res.Caught():
			fmt.Fprintf(&b, "caught    %s (%s)\n", p.Name, how)
		case p.BlindSpot != "":
			fmt.Fprintf(&b, "blind     %s (%s): %s\n", p.Name, how, p.BlindSpot)
		default:
			fmt.Fprintf(&b, "MISSED    %s (%s): no row on any pair caught it; catch it with a metric or list it as a blind spot with the reason\n", p.Name, how)
		}
		for _, c := range res.Catches {
			rows := c.Rows
			more := ""
			if len(rows) > ShownRows && !every {
				more = fmt.Sprintf(" and %d more", len(rows)-ShownRows)
				rows = rows[:ShownRows]
			}
			fmt.Fprintf(&b, "            %s: %s%s\n", c.Pair, strings.Join(rows, ", "), more)
		}
	}
	caught, blind := 0, 0
	for _, res := range r.Results {
		if res.Caught() {
			caught++
		} else if res.Perturbation.BlindSpot != "" {
			blind++
		}
	}
	verdict := "holds"
	if r.Failed() {
		verdict = "FAIL"
	}
	fmt.Fprintf(&b, "sensitivity: %s: %d of %d perturbations caught, %d listed blind spots, on %d pairs\n", verdict, caught, len(r.Results), blind, len(r.Baselines))
	_, err := io.WriteString(w, b.String())
	return err
}
