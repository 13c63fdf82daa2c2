package detlint

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/detsim/detsim"

// fenceRoots are the packages whose whole import graph the determinism
// contract must cover: the engine, the evaluator, and batch, which runs
// the engine. Every package DeterministicPackages names is a root too, so
// a fenced package cannot import an unfenced one either.
var fenceRoots = []string{module + "/engine", module + "/bundle/verdict", module + "/batch"}

// importGraph maps each package of this module to the packages of this
// module it imports.
type importGraph map[string][]string

// fenceHoles walks g from roots and returns, for every package of the
// module it reaches that is neither covered nor outside, the import chain
// that reaches it ("a -> b -> c"). The walk does not descend into outside
// packages: what they import never reaches a decision through them. Holes
// come out sorted, so a failure reads the same on every run.
func fenceHoles(g importGraph, roots []string, covered func(string) bool, outside map[string]bool) []string {
	from := map[string]string{}
	seen := map[string]bool{}
	queue := slices.Clone(roots)
	for _, r := range roots {
		seen[r] = true
	}
	var holes []string
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if outside[p] {
			continue
		}
		if !covered(p) {
			chain := []string{p}
			for q := from[p]; q != ""; q = from[q] {
				chain = append(chain, q)
			}
			slices.Reverse(chain)
			holes = append(holes, strings.Join(chain, " -> "))
			continue // its own imports are reported once it is fenced
		}
		for _, dep := range g[p] {
			if !seen[dep] {
				seen[dep] = true
				from[dep] = p
				queue = append(queue, dep)
			}
		}
	}
	slices.Sort(holes)
	return holes
}

// matchPattern reports whether path matches a go list pattern of the
// forms DeterministicPackages uses: an exact path, or "x/..." for x and
// everything under it.
func matchPattern(pattern, path string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return path == base || strings.HasPrefix(path, base+"/")
	}
	return path == pattern
}

// fenced reports whether the contract covers path under patterns.
func fenced(patterns []string, path string) bool {
	return deterministic(path) && slices.ContainsFunc(patterns, func(p string) bool { return matchPattern(p, path) })
}

// TestFence_CoversImportGraph_7 keeps DeterministicPackages from rotting:
// every package of this module that the engine, the evaluator, batch or a
// fenced package imports, directly or not, is fenced itself or named in
// OutsideFence with a reason; and every OutsideFence row is still needed.
func TestFence_CoversImportGraph_7(t *testing.T) {
	g, listed := moduleImportGraph(t, append(slices.Clone(fenceRoots), DeterministicPackages...))
	outside := map[string]bool{}
	for _, o := range OutsideFence {
		if strings.TrimSpace(o.Why) == "" {
			t.Errorf("OutsideFence row %s has no Why: every hole in the fence is justified (spec §15)", o.Package)
		}
		outside[o.Package] = true
	}
	roots := slices.Clone(fenceRoots)
	for _, p := range listed {
		if fenced(DeterministicPackages, p) {
			roots = append(roots, p)
		}
	}
	covered := func(p string) bool { return fenced(DeterministicPackages, p) }
	for _, h := range fenceHoles(g, roots, covered, outside) {
		t.Errorf("not fenced: %s\n\tadd it to DeterministicPackages (and fix its findings), or to OutsideFence with the reason it never reaches a decision", h)
	}

	reached := map[string]bool{}
	for _, deps := range g {
		for _, d := range deps {
			reached[d] = true
		}
	}
	for _, o := range OutsideFence {
		switch {
		case covered(o.Package):
			t.Errorf("OutsideFence row %s is also in DeterministicPackages; drop one", o.Package)
		case !reached[o.Package]:
			t.Errorf("OutsideFence row %s: no fenced package imports it any more; delete the row", o.Package)
		}
	}
	for _, e := range Exemptions {
		if !covered(e.Package) {
			t.Errorf("Exemptions row %s names a package DeterministicPackages does not fence; delete or fix it", e.Package)
		}
	}
}

// TestFenceHoles_SyntheticGraphs_7 shows the check on made-up graphs: a
// fenced package's new unfenced dependency fails it, wherever in the graph
// it appears, and only an OutsideFence row stops the walk.
func TestFenceHoles_SyntheticGraphs_7(t *testing.T) {
	patterns := []string{module + "/engine/...", module + "/bundle/...", module + "/internal/jsonw", module + "/sweep/..."}
	covered := func(p string) bool { return fenced(patterns, p) }
	m := func(s string) string { return module + "/" + s }
	tests := []struct {
		name    string
		g       importGraph
		roots   []string
		outside []string
		want    []string
	}{
		{
			name:  "all fenced",
			g:     importGraph{m("engine"): {m("bundle"), m("internal/jsonw")}, m("bundle"): {m("internal/jsonw"), m("bundle/internal/jsonscan")}},
			roots: []string{m("engine")},
		},
		{
			name:  "transitive new dependency",
			g:     importGraph{m("engine"): {m("bundle")}, m("bundle"): {m("internal/jsonw"), m("internal/newdep")}},
			roots: []string{m("engine")},
			want:  []string{m("engine") + " -> " + m("bundle") + " -> " + m("internal/newdep")},
		},
		{
			name:  "fenced non-root gains a dependency",
			g:     importGraph{m("engine"): {m("internal/jsonw")}, m("sweep"): {m("internal/outfile")}},
			roots: []string{m("engine"), m("sweep")},
			want:  []string{m("sweep") + " -> " + m("internal/outfile")},
		},
		{
			name:  "a tui package is never fenced",
			g:     importGraph{m("engine"): {m("engine/tui")}},
			roots: []string{m("engine")},
			want:  []string{m("engine") + " -> " + m("engine/tui")},
		},
		{
			name:    "outside by design, and what it imports",
			g:       importGraph{m("engine"): {m("bundle")}, m("bundle"): {m("internal/scratch")}, m("internal/scratch"): {m("internal/lockfile")}},
			roots:   []string{m("engine")},
			outside: []string{m("internal/scratch")},
		},
		{
			name:    "outside does not hide a second path",
			g:       importGraph{m("engine"): {m("bundle"), m("internal/lockfile")}, m("bundle"): {m("internal/scratch")}, m("internal/scratch"): {m("internal/lockfile")}},
			roots:   []string{m("engine")},
			outside: []string{m("internal/scratch")},
			want:    []string{m("engine") + " -> " + m("internal/lockfile")},
		},
		{
			name:  "an unfenced root",
			g:     importGraph{m("batch"): {m("engine")}},
			roots: []string{m("batch")},
			want:  []string{m("batch")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			outside := map[string]bool{}
			for _, o := range tt.outside {
				outside[o] = true
			}
			got := fenceHoles(tt.g, tt.roots, covered, outside)
			if !slices.Equal(got, tt.want) {
				t.Errorf("holes:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// moduleImportGraph lists patterns and their dependencies and returns the
// import graph restricted to this module, and every package listed.
func moduleImportGraph(t *testing.T, patterns []string) (importGraph, []string) {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-e", "-deps", "-json=ImportPath,Imports,Module,Error"}, patterns...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	g := importGraph{}
	var listed []string
	for dec := json.NewDecoder(bytes.NewReader(out)); dec.More(); {
		var p struct {
			ImportPath string
			Imports    []string
			Module     *struct{ Path string }
			Error      *struct{ Err string }
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("decoding go list output: %v", err)
		}
		if p.Error != nil {
			t.Errorf("go list %s: %s", p.ImportPath, p.Error.Err)
		}
		if p.Module == nil || p.Module.Path != module {
			continue
		}
		listed = append(listed, p.ImportPath)
		for _, imp := range p.Imports {
			if imp == module || strings.HasPrefix(imp, module+"/") {
				g[p.ImportPath] = append(g[p.ImportPath], imp)
			}
		}
	}
	if len(listed) == 0 {
		t.Fatal("go list found no package of " + module)
	}
	return g, listed
}
