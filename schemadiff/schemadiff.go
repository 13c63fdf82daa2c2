// Package schemadiff compares two bundles' event streams at the schema
// level (spec §9.2): which event kinds each emits — a kind is the
// envelope's kind_tag with the event's type — and, per kind, which field
// paths its records hold and with which JSON types. Values are never
// compared.
//
// One bundle is the simulator's, the other production's. The simulator
// must not invent event kinds or fields, and must emit every kind
// production does from a subsystem it models; kinds it does not model are
// listed in its known_gaps.md ("## Events not modelled", see
// ParseKnownGaps) and are ignored when only production emits them. Every
// other difference is a failure (Report.Failed).
//
// Reading streams: memory holds one line and state per distinct kind ×
// field, never per record, and records of a shape already seen (the same
// field paths and types, the same kind) are only counted.
//
// The package reads bundles after a run and is outside the determinism
// fence (spec §7.4); nothing deterministic may import it.
package schemadiff

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/internal/bundleinfo"
	"github.com/detsim/detsim/internal/safefile"
)

// Side names one of the two bundles.
type Side int

const (
	// Auto decides from the manifests: the bundle whose manifest marks it
	// live is production (bundleinfo.Read says how a manifest does); when
	// neither or both are live, B is.
	Auto Side = iota
	A
	B
)

func (s Side) String() string {
	switch s {
	case A:
		return "A"
	case B:
		return "B"
	}
	return "auto"
}

// Options tune a comparison.
type Options struct {
	// Prod says which bundle is production's (default Auto).
	Prod Side
	// KnownGaps, when set, is the known_gaps.md to read the list of
	// unmodelled kinds from; by default it is the simulator bundle's own
	// copy (what that simulator said of itself), or the one built into
	// this binary when the bundle has none.
	KnownGaps string
	// AlsoProd are more production bundles of the same implementation:
	// a kind or field only the simulator has, which the production run
	// happened not to emit (a quiet run: no suspicion, no refutation),
	// is not held against the simulator when one of them shows it. They
	// add nothing production must have: a kind only they emit is not a
	// kind the simulator must.
	AlsoProd []string
}

// Bundle describes one side of a comparison.
type Bundle struct {
	Dir     string `json:"dir"`
	Role    string `json:"role"` // "sim" or "prod"
	Records int64  `json:"records"`
	Kinds   int    `json:"kinds"`
}

// KindOnly is a kind one bundle emits and the other never does.
type KindOnly struct {
	Kind      string `json:"kind"`
	Records   int64  `json:"records"`
	FirstLine int64  `json:"first_line"`
	// ShownBy, for a kind only the simulator emits, is the further
	// production bundle (Options.AlsoProd) that emits it too.
	ShownBy string `json:"shown_by,omitempty"`
	// Ignored names the known-gaps entry that covers the kind (only for a
	// kind only production emits), or is "".
	Ignored string `json:"ignored,omitempty"`
	// Unobserved, for a kind only the simulator emits, is production's
	// declaration that it cannot observe the kind, with its reason.
	Unobserved string `json:"unobserved,omitempty"`
}

// FieldDiff is a field of a kind both bundles emit whose types differ;
// a field one side never has shows "-" (no type) there.
type FieldDiff struct {
	Kind string `json:"kind"`
	Path string `json:"path"`
	A    string `json:"a"`
	B    string `json:"b"`
	// FirstA and FirstB are the lines where A and B first hold the field
	// (0: never).
	FirstA int64 `json:"first_a,omitempty"`
	FirstB int64 `json:"first_b,omitempty"`
	// ShownBy, for a field only the simulator has, is the further
	// production bundle (Options.AlsoProd) that holds it with the
	// simulator's types.
	ShownBy string `json:"shown_by,omitempty"`
	// Unobserved is set when only the simulator has the field and
	// production declares it cannot observe it: the reason.
	Unobserved string `json:"unobserved,omitempty"`
}

// Report is the outcome of a comparison.
type Report struct {
	A Bundle `json:"a"`
	B Bundle `json:"b"`
	// Prod is the side taken as production, ProdWhy why.
	Prod    Side   `json:"-"`
	ProdWhy string `json:"prod_why"`
	// AlsoProd are the further production bundles whose schemas joined
	// production's (Options.AlsoProd).
	AlsoProd []string `json:"also_prod,omitempty"`
	// GapsFrom is where the known-gaps list was read; Gaps is the list.
	GapsFrom string      `json:"gaps_from"`
	Gaps     []string    `json:"gaps"`
	OnlyA    []KindOnly  `json:"only_a"`
	OnlyB    []KindOnly  `json:"only_b"`
	Fields   []FieldDiff `json:"fields"`
	// SimGaps are kinds the simulator emits although its known-gaps list
	// says it does not model them.
	SimGaps []KindOnly `json:"sim_gaps"`
}

// Failed reports whether the bundles differ in anything but kinds only
// production emits that known_gaps.md lists.
func (r *Report) Failed() bool {
	if len(r.SimGaps) > 0 {
		return true
	}
	for _, f := range r.Fields {
		if f.Unobserved == "" && f.ShownBy == "" {
			return true
		}
	}
	for _, k := range append(slices.Clip(r.OnlyA), r.OnlyB...) {
		if k.Ignored == "" && k.Unobserved == "" && k.ShownBy == "" {
			return true
		}
	}
	return false
}

// Compare reads the schemas of the bundles in directories a and b and
// compares them. An error is an input problem: a bundle or its
// events.ndjson unreadable, a malformed line (*LineError), a malformed
// known-gaps list.
func Compare(a, b string, opts Options) (*Report, error) {
	r := &Report{A: Bundle{Dir: a}, B: Bundle{Dir: b}}
	infoA, err := bundleinfo.Read(a)
	if err != nil {
		return nil, err
	}
	infoB, err := bundleinfo.Read(b)
	if err != nil {
		return nil, err
	}
	switch {
	case opts.Prod == A || opts.Prod == B:
		r.Prod, r.ProdWhy = opts.Prod, "given explicitly"
	case infoA.Live && !infoB.Live:
		r.Prod, r.ProdWhy = A, "A is live ("+infoA.Why+"), B is not"
	case infoB.Live && !infoA.Live:
		r.Prod, r.ProdWhy = B, "B is live ("+infoB.Why+"), A is not"
	case infoA.Live:
		r.Prod, r.ProdWhy = B, "both bundles are live; B is taken as production"
	default:
		r.Prod, r.ProdWhy = B, "neither bundle is live; B is taken as production"
	}
	simDir, prodInfo := a, infoB
	r.A.Role, r.B.Role = "sim", "prod"
	if r.Prod == A {
		simDir, prodInfo = b, infoA
		r.A.Role, r.B.Role = "prod", "sim"
	}

	gaps, from, err := loadGaps(simDir, opts.KnownGaps)
	if err != nil {
		return nil, err
	}
	r.GapsFrom = from
	r.Gaps = []string{}
	for _, g := range gaps {
		r.Gaps = append(r.Gaps, g.String())
	}

	// The two streams are read at once, one goroutine each.
	type result struct {
		s   *Schema
		err error
	}
	ch := make(chan result, 1)
	go func() {
		s, err := ReadSchema(b)
		ch <- result{s, err}
	}()
	sa, errA := ReadSchema(a)
	rb := <-ch
	if errA != nil {
		return nil, errA
	}
	if rb.err != nil {
		return nil, rb.err
	}
	r.diff(sa, rb.s, gaps)
	for _, dir := range opts.AlsoProd {
		s, err := ReadSchema(dir)
		if err != nil {
			return nil, err
		}
		r.AlsoProd = append(r.AlsoProd, dir)
		r.markShown(s, dir)
	}
	r.markUnobserved(prodInfo.Unobserved)
	return r, nil
}

// loadGaps reads the known-gaps list: from path when given, else from
// the simulator bundle's known_gaps.md, else the built-in document.
func loadGaps(simDir, path string) ([]Gap, string, error) {
	from := path
	var doc []byte
	var err error
	if path != "" {
		doc, err = safefile.ReadFile(path, 16<<20)
	} else {
		from = filepath.Join(simDir, bundle.KnownGapsFile)
		doc, err = bundle.ReadFile(simDir, bundle.KnownGapsFile, 16<<20)
		if errors.Is(err, fs.ErrNotExist) {
			from, doc, err = "the known_gaps.md built into this detsim (the sim bundle has none)", []byte(bundle.KnownGaps()), nil
		}
	}
	if err != nil {
		return nil, "", err
	}
	gaps, err := ParseKnownGaps(string(doc))
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", from, err)
	}
	return gaps, from, nil
}

// diff fills the report from the two schemas.
func (r *Report) diff(sa, sb *Schema, gaps []Gap) {
	r.A.Records, r.A.Kinds = sa.Records, len(sa.Kinds)
	r.B.Records, r.B.Kinds = sb.Records, len(sb.Kinds)
	r.OnlyA, r.OnlyB, r.Fields, r.SimGaps = []KindOnly{}, []KindOnly{}, []FieldDiff{}, []KindOnly{}
	gapOf := func(k *Kind) string {
		for _, g := range gaps {
			if g.Matches(k.Tag, k.Type) {
				return g.String()
			}
		}
		return ""
	}
	sim := sa
	if r.Prod == A {
		sim = sb
	}
	for _, name := range sim.kindNames() {
		k := sim.Kinds[name]
		if g := gapOf(k); g != "" {
			r.SimGaps = append(r.SimGaps, KindOnly{Kind: name, Records: k.Records, FirstLine: k.FirstLine, Ignored: g})
		}
	}
	for _, name := range sa.kindNames() {
		ka := sa.Kinds[name]
		kb, ok := sb.Kinds[name]
		if !ok {
			o := KindOnly{Kind: name, Records: ka.Records, FirstLine: ka.FirstLine}
			if r.Prod == A {
				o.Ignored = gapOf(ka)
			}
			r.OnlyA = append(r.OnlyA, o)
			continue
		}
		r.Fields = append(r.Fields, fieldDiffs(name, ka, kb)...)
	}
	for _, name := range sb.kindNames() {
		if kb := sb.Kinds[name]; sa.Kinds[name] == nil {
			o := KindOnly{Kind: name, Records: kb.Records, FirstLine: kb.FirstLine}
			if r.Prod == B {
				o.Ignored = gapOf(kb)
			}
			r.OnlyB = append(r.OnlyB, o)
		}
	}
}

// markShown marks what only the simulator has that the further
// production run in dir (schema other) shows too: a kind it emits, or a
// field it holds with the simulator's types.
func (r *Report) markShown(other *Schema, dir string) {
	simOnly, sim := &r.OnlyA, A
	if r.Prod == A {
		simOnly, sim = &r.OnlyB, B
	}
	for i := range *simOnly {
		if k := &(*simOnly)[i]; k.ShownBy == "" && other.Kinds[k.Kind] != nil {
			k.ShownBy = dir
		}
	}
	for i := range r.Fields {
		f := &r.Fields[i]
		simTypes, prodTypes := f.A, f.B
		if sim == B {
			simTypes, prodTypes = f.B, f.A
		}
		if f.ShownBy != "" || prodTypes != "-" {
			continue // production has the field: a type difference is real
		}
		if k := other.Kinds[f.Kind]; k != nil {
			if of := k.Fields[f.Path]; of != nil && of.Types.String() == simTypes {
				f.ShownBy = dir
			}
		}
	}
}

// markUnobserved marks what only the simulator has and production
// declares it cannot observe: a kind ("kind_tag/type" or "kind_tag/*")
// or a field ("kind_tag/type event.field") the production side never
// holds.
func (r *Report) markUnobserved(un []bundle.Unobserved) {
	if len(un) == 0 {
		return
	}
	simOnly := &r.OnlyA
	if r.Prod == A {
		simOnly = &r.OnlyB
	}
	for i := range *simOnly {
		k := &(*simOnly)[i]
		tag, _, _ := strings.Cut(k.Kind, "/")
		for _, u := range un {
			if u.What == k.Kind || u.What == tag+"/*" {
				k.Unobserved = u.Why
				break
			}
		}
	}
	for i := range r.Fields {
		f := &r.Fields[i]
		prodHas := f.B
		if r.Prod == A {
			prodHas = f.A
		}
		if prodHas != "-" {
			continue // production has the field: a type difference is real
		}
		for _, u := range un {
			if u.What == f.Kind+" "+f.Path {
				f.Unobserved = u.Why
				break
			}
		}
	}
}

// fieldDiffs lists the fields of one kind whose types differ, by path.
func fieldDiffs(name string, ka, kb *Kind) []FieldDiff {
	paths := make([]string, 0, len(ka.Fields)+len(kb.Fields))
	for p := range ka.Fields {
		paths = append(paths, p)
	}
	for p := range kb.Fields {
		if ka.Fields[p] == nil {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	var out []FieldDiff
	for _, p := range paths {
		fa, fb := ka.Fields[p], kb.Fields[p]
		var ta, tb Types
		var la, lb int64
		if fa != nil {
			ta, la = fa.Types, fa.firstLine()
		}
		if fb != nil {
			tb, lb = fb.Types, fb.firstLine()
		}
		if ta != tb {
			out = append(out, FieldDiff{Kind: name, Path: p, A: ta.String(), B: tb.String(), FirstA: la, FirstB: lb})
		}
	}
	return out
}

// Write prints the report for a person: the two bundles, every
// difference with where it was first seen, and the outcome.
func (r *Report) Write(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "A  %s (%s): %d records, %d kinds\n", r.A.Dir, r.A.Role, r.A.Records, r.A.Kinds)
	fmt.Fprintf(&b, "B  %s (%s): %d records, %d kinds\n", r.B.Dir, r.B.Role, r.B.Records, r.B.Kinds)
	fmt.Fprintf(&b, "production is %s: %s\n", r.Prod, r.ProdWhy)
	if len(r.AlsoProd) > 0 {
		fmt.Fprintf(&b, "further production runs, for what this one happened not to emit: %s\n", strings.Join(r.AlsoProd, ", "))
	}
	fmt.Fprintf(&b, "events not modelled (%s): %s\n", r.GapsFrom, listOrNone(r.Gaps))
	only := func(side string, bundle Bundle, ks []KindOnly) {
		for _, k := range ks {
			verdict := "FAIL"
			if k.Ignored != "" {
				verdict = "ignored (known gap " + k.Ignored + ")"
			}
			if k.Unobserved != "" {
				verdict = "ignored (production cannot observe it: " + k.Unobserved + ")"
			}
			if k.ShownBy != "" {
				verdict = "ignored (production emits it too, in " + k.ShownBy + ")"
			}
			fmt.Fprintf(&b, "  %-5s kind %s only in %s (%s): %d records, first at events.ndjson#L%d\n",
				verdict, k.Kind, side, bundle.Role, k.Records, k.FirstLine)
		}
	}
	only("A", r.A, r.OnlyA)
	only("B", r.B, r.OnlyB)
	for _, k := range r.SimGaps {
		fmt.Fprintf(&b, "  FAIL  kind %s is emitted by the simulator, which lists it as not modelled (%s): first at events.ndjson#L%d\n", k.Kind, k.Ignored, k.FirstLine)
	}
	n := 0
	for _, f := range r.Fields {
		verdict := "FAIL "
		switch {
		case f.Unobserved != "":
			verdict = "ignored (production cannot observe it: " + f.Unobserved + ")"
		case f.ShownBy != "":
			verdict = "ignored (production holds it too, in " + f.ShownBy + ")"
		default:
			n++
		}
		fmt.Fprintf(&b, "  %s %s %s: A %s, B %s%s\n", verdict, f.Kind, f.Path, f.A, f.B, firstLines(f))
	}
	for _, k := range append(slices.Clip(r.OnlyA), r.OnlyB...) {
		if k.Ignored == "" && k.Unobserved == "" && k.ShownBy == "" {
			n++
		}
	}
	n += len(r.SimGaps)
	if n == 0 {
		b.WriteString("schemadiff: no schema differences\n")
	} else {
		fmt.Fprintf(&b, "schemadiff: FAIL, %d schema difference(s)\n", n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON writes the report as one JSON object.
func (r *Report) WriteJSON(w io.Writer) error {
	out := struct {
		*Report
		Prod   string `json:"prod"`
		Failed bool   `json:"failed"`
	}{r, r.Prod.String(), r.Failed()}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func firstLines(f FieldDiff) string {
	var parts []string
	if f.FirstA > 0 {
		parts = append(parts, fmt.Sprintf("A first at events.ndjson#L%d", f.FirstA))
	}
	if f.FirstB > 0 {
		parts = append(parts, fmt.Sprintf("B first at events.ndjson#L%d", f.FirstB))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}
