// Package arch holds the import rules of the module's layers, one place
// for all of them (docs/architecture.md): the core knows no kind, kinds
// do not know each other, only the registry the detsim command builds
// (hosts/builtin) and the kind-specific commands of cli reach into
// kinds/, and the contract (hosts) imports nothing of the core but rng. It also draws the package graph that docs/architecture.md
// shows, from the same import lists, so the picture cannot drift from
// the code.
package arch

import (
	"fmt"
	"slices"
	"strings"
)

// Module is the import path every rule is relative to.
const Module = "github.com/detsim/detsim"

// Package is one package of the module and the packages it imports
// (non-test files: what links into a binary).
type Package struct {
	Path    string // relative to Module: "engine", "kinds/swim/swim"
	Imports []string
}

// KindOf returns the kind a package belongs to ("swim" for
// kinds/swim/live) and false for a package outside kinds/.
func KindOf(rel string) (string, bool) {
	rest, ok := strings.CutPrefix(rel, "kinds/")
	if !ok {
		return "", false
	}
	k, _, _ := strings.Cut(rest, "/")
	return k, true
}

// MayImportKinds are the packages outside kinds/ allowed to import a
// kind, and why: the registry links every built-in kind into the detsim
// command, and cli's kind-specific subcommands (live, testbed, calibrate
// for SWIM; edge and provider-serve for the agent family) are commands of
// that one binary.
var MayImportKinds = map[string]string{
	"hosts/builtin": "the registry of built-in kinds the detsim command links",
	"cli":           "the kind-specific subcommands: live, testbed, calibrate (swim); edge, provider-serve (agent)",
}

// IsContract says rel is the contract between the core and the kinds:
// hosts and its subpackages but the registry (hosts/builtin).
func IsContract(rel string) bool {
	return (rel == "hosts" || strings.HasPrefix(rel, "hosts/")) && rel != "hosts/builtin"
}

// contractMayImport are the packages of the module the contract may
// import besides itself and internal/ helpers: what a host is handed
// (its random stream). The contract names no viewer's or oracle's
// internals (the causal index, the stepper), so a kind implementing it
// links only what it uses (issue 33).
var contractMayImport = []string{"rng"}

// Fenced-out packages read the wall clock or use floating point in
// judgement; no package inside the determinism fence may depend on one
// (docs/spec.md, the determinism fence).
var outsideFence = []string{
	"kinds/swim/live", "kinds/swim/cmd/swimd", "kinds/swim/testbed",
	"kinds/swim/calibrate", "schemadiff", "kinds/agent/edge",
	"internal/supervise",
}

// Violations returns every import of pkgs that breaks a layer rule, one
// line each, sorted. fenced are the relative paths inside the
// determinism fence with everything they depend on (go list -deps).
func Violations(pkgs []Package) []string {
	var out []string
	for _, p := range pkgs {
		from, inKind := KindOf(p.Path)
		for _, imp := range p.Imports {
			rel, ok := strings.CutPrefix(imp, Module+"/")
			if !ok {
				continue
			}
			if IsContract(p.Path) && !IsContract(rel) && !strings.HasPrefix(rel, "internal/") && !slices.Contains(contractMayImport, rel) {
				out = append(out, fmt.Sprintf("%s imports %s: the contract imports only %s and internal/ helpers", p.Path, rel, strings.Join(contractMayImport, ", ")))
				continue
			}
			to, isKind := KindOf(rel)
			switch {
			case !isKind:
			case inKind && from != to:
				out = append(out, fmt.Sprintf("%s imports %s: kinds do not import each other", p.Path, rel))
			case !inKind && MayImportKinds[p.Path] == "":
				out = append(out, fmt.Sprintf("%s imports %s: nothing outside kinds/ imports a kind but %s", p.Path, rel, strings.Join(sortedKeys(MayImportKinds), ", ")))
			}
		}
	}
	slices.Sort(out)
	return out
}

// FenceViolations returns each package of deps (everything the fenced
// packages depend on, relative paths) that lies outside the fence.
func FenceViolations(deps []string) []string {
	var out []string
	for _, d := range deps {
		for _, o := range outsideFence {
			if d == o || strings.HasPrefix(d, o+"/") {
				out = append(out, fmt.Sprintf("a fenced package depends on %s", d))
			}
		}
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// Group names the room of the house a package lives in: the kind for
// kinds/<k>/..., the registry, the contract (hosts and its subpackages),
// or its top-level folder.
func Group(rel string) string {
	if k, ok := KindOf(rel); ok {
		return "kinds/" + k
	}
	switch {
	case rel == "hosts/builtin":
		return rel
	case IsContract(rel):
		return "hosts"
	}
	top, _, _ := strings.Cut(rel, "/")
	return top
}

// Graph draws pkgs as a mermaid flowchart of groups (an edge where some
// package of one group imports one of another; internal/ helpers left
// out) followed by every package's imports inside the module, one line a
// package.
func Graph(pkgs []Package) string {
	var b strings.Builder
	edges := map[[2]string]bool{}
	var lines []string
	for _, p := range pkgs {
		if strings.HasPrefix(p.Path, "internal/") {
			continue
		}
		var deps []string
		for _, imp := range p.Imports {
			rel, ok := strings.CutPrefix(imp, Module+"/")
			if !ok || strings.HasPrefix(rel, "internal/") {
				continue
			}
			deps = append(deps, rel)
			if g, h := Group(p.Path), Group(rel); g != h {
				edges[[2]string{g, h}] = true
			}
		}
		slices.Sort(deps)
		lines = append(lines, fmt.Sprintf("%s → %s", p.Path, strings.Join(deps, " ")))
	}
	var es [][2]string
	for e := range edges {
		es = append(es, e)
	}
	slices.SortFunc(es, func(a, b [2]string) int {
		if c := strings.Compare(a[0], b[0]); c != 0 {
			return c
		}
		return strings.Compare(a[1], b[1])
	})
	b.WriteString("```mermaid\nflowchart LR\n")
	for _, e := range es {
		fmt.Fprintf(&b, "  %s --> %s\n", id(e[0]), id(e[1]))
	}
	b.WriteString("```\n\n```\n")
	slices.Sort(lines)
	for _, l := range lines {
		b.WriteString(strings.TrimRight(l, " →") + "\n")
	}
	b.WriteString("```\n")
	return b.String()
}

// id spells a group as a mermaid node whose label is the path.
func id(g string) string {
	return strings.NewReplacer("/", "_", "-", "_").Replace(g) + `["` + g + `"]`
}
