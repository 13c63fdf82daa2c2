// Package detlint is the static half of the determinism contract (spec §7):
// a go/analysis Analyzer that forbids, in the packages it is applied to,
// every source of run-to-run divergence the compiler can see. The dynamic
// half is the golden-checksum parity test (§7.6).
//
// Rules, by the name a report and an allow comment use:
//
//   - time: reading the host clock or starting a host timer — time.Now,
//     Since, Until, After, AfterFunc, NewTimer, NewTicker, Tick, Sleep
//     (§7.1, §7.5). Methods such as time.Time.After are pure and allowed.
//   - env: reading the host process — os.Getenv, LookupEnv, Environ,
//     Hostname, Getpid, Getppid, Getuid, os.Args and the syscall
//     equivalents (§7.1).
//   - rand: importing math/rand, math/rand/v2, crypto/rand or hash/maphash;
//     randomness comes from rng only (§7.2).
//   - fileread: reading host files or their metadata — os.ReadFile, Open,
//     OpenFile, ReadDir, Stat, Lstat, OpenRoot, OpenInRoot,
//     filepath.Walk, filepath.WalkDir, ioutil.ReadFile, ioutil.ReadDir
//     (§7.1): whether a path exists, its size and its listing differ
//     between machines as much as its bytes do. Packages whose job is file
//     I/O are exempted by name in Exemptions.
//   - goroutine: a go statement (§7.5).
//   - select: a select statement, which picks among ready cases at random
//     (§7.5).
//   - maprange: range over a map, a named map type, or a type parameter
//     whose type set holds only maps (§7.3).
//   - mapiter: maps.Keys, maps.Values or maps.All whose result is not the
//     direct argument of slices.Sorted, SortedFunc or SortedStableFunc
//     (§7.3).
//   - float: any typed float32, float64 or complex expression or type,
//     reported once per line (§7.4). Untyped constants such as 1e9 that
//     end up as integers are not floats at run time and are allowed, and
//     so is a type-switch case naming a float type: detecting a float to
//     reject it is not computing with one.
//
// Files named *_test.go are not checked.
//
// A finding is silenced only by a comment on the same line of the form
//
//	//detlint:allow <rule> <reason>
//
// The reason is mandatory: spec §15 requires every exemption to surface in
// review, so an allow without a reason, naming an unknown rule, or
// silencing nothing is itself reported (under the rule name "allow").
package detlint

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// Analyzer checks a package against every rule, honouring Exemptions.
var Analyzer = New(Exemptions)

// Exemption switches rules off for one package, by its exact import path,
// or only for some of its files when Files names them (base names, such as
// "progress.go"): a package whose deterministic decisions share it with
// one host-facing file keeps the rules everywhere else. Why is there so
// that the table reads as a justification in review.
type Exemption struct {
	Package string
	Files   []string // empty: the whole package
	Rules   []string
	Why     string
}

// New returns an Analyzer that checks every rule except those exempted for
// the package (or the file) under analysis. An exemption naming a file the
// package does not have is reported, so a renamed file cannot leave a
// stale row behind or silently lose its exemption.
func New(exemptions []Exemption) *analysis.Analyzer {
	byPkg := make(map[string][]Exemption)
	for _, e := range exemptions {
		byPkg[e.Package] = append(byPkg[e.Package], e)
	}
	return &analysis.Analyzer{
		Name: "detlint",
		Doc:  "forbid sources of nondeterminism in simulator packages (spec §7)",
		URL:  "https://pkg.go.dev/github.com/detsim/detsim/internal/detlint",
		Run: func(pass *analysis.Pass) (any, error) {
			exempt := byPkg[pass.Pkg.Path()]
			seen := map[string]bool{}
			var first *ast.File
			for _, f := range pass.Files {
				name := filepath.Base(pass.Fset.Position(f.Package).Filename)
				if strings.HasSuffix(name, "_test.go") {
					continue
				}
				seen[name] = true
				if first == nil {
					first = f
				}
				c := &checker{pass: pass, off: offIn(exempt, name), allows: parseAllows(pass.Fset, f), floatLines: map[int]bool{}}
				c.file(f)
				c.reportAllowProblems()
			}
			for _, e := range exempt {
				for _, name := range e.Files {
					if !seen[name] && first != nil {
						pass.Report(analysis.Diagnostic{Pos: first.Package, Category: "allow",
							Message: "detlint(allow): exemption for file " + name + " of " + e.Package + " names no file of the package; fix or delete the row"})
					}
				}
			}
			return nil, nil
		},
	}
}

// offIn returns the rules exempted for the file named name (a base name)
// by the exemptions of its package.
func offIn(exempt []Exemption, name string) map[string]bool {
	off := map[string]bool{}
	for _, e := range exempt {
		if len(e.Files) > 0 && !slices.Contains(e.Files, name) {
			continue
		}
		for _, r := range e.Rules {
			off[r] = true
		}
	}
	return off
}

// checker holds the state of checking one file.
type checker struct {
	pass       *analysis.Pass
	off        map[string]bool // rules exempted for this package
	allows     []*allow
	floatLines map[int]bool // lines already holding a float report
	sortedArgs map[*ast.Ident]bool
}

func (c *checker) file(f *ast.File) {
	for _, spec := range f.Imports {
		path := strings.Trim(spec.Path.Value, "`\"")
		if why, ok := forbiddenImports[path]; ok {
			c.report(spec.Pos(), ruleRand, "import of %s (%s)", path, why)
		}
	}
	c.sortedArgs = sortedMapIterators(c.pass.TypesInfo, f)
	ast.Inspect(f, c.node)
}

func (c *checker) node(n ast.Node) bool {
	switch n := n.(type) {
	case *ast.ImportSpec:
		return false // checked in file; their names are not uses
	case *ast.TypeSwitchStmt:
		// A case naming float64 detects a float, typically to reject it
		// with a clear error; only the clause bodies can compute with one.
		for _, part := range []ast.Node{n.Init, n.Assign} {
			if part != nil {
				ast.Inspect(part, c.node)
			}
		}
		for _, clause := range n.Body.List {
			for _, stmt := range clause.(*ast.CaseClause).Body {
				ast.Inspect(stmt, c.node)
			}
		}
		return false
	case *ast.GoStmt:
		c.report(n.Pos(), ruleGoroutine, "go statement (work outside the scheduler; every effect must come from a popped event)")
	case *ast.SelectStmt:
		c.report(n.Pos(), ruleSelect, "select statement (picks among ready cases at random; there is one thread and no channels)")
	case *ast.RangeStmt:
		if isMap(c.pass.TypesInfo.TypeOf(n.X)) {
			c.report(n.X.Pos(), ruleMapRange, "range over map (iteration order is random; iterate slices.Sorted(maps.Keys(m)))")
		}
	case *ast.Ident:
		c.ident(n)
	}
	if e, ok := n.(ast.Expr); ok {
		if t := c.pass.TypesInfo.TypeOf(e); t != nil && isFloat(t) {
			line := c.pass.Fset.Position(e.Pos()).Line
			if !c.floatLines[line] {
				c.floatLines[line] = true
				c.report(e.Pos(), ruleFloat, "%s expression (floating point is forbidden in decisions, spec §7.4; use integer ns or ppm)", t)
			}
			return false // one report per float expression tree
		}
	}
	return true
}

// ident reports a use of a forbidden package-level function or variable,
// whether called or taken as a value.
func (c *checker) ident(id *ast.Ident) {
	obj := c.pass.TypesInfo.Uses[id]
	if obj == nil || obj.Pkg() == nil || obj.Parent() != obj.Pkg().Scope() {
		return // not a package-level object: methods such as Time.After are fine
	}
	name := obj.Pkg().Path() + "." + obj.Name()
	if f, ok := forbiddenObjects[name]; ok {
		c.report(id.Pos(), f.rule, "%s (%s)", name, f.why)
	}
	if mapIterators[name] && !c.sortedArgs[id] {
		c.report(id.Pos(), ruleMapIter, "%s yields in random order (pass it directly to slices.Sorted or slices.SortedFunc)", name)
	}
}

// report emits a finding unless the rule is exempted for the package or a
// well-formed allow comment on the same line names it.
func (c *checker) report(pos token.Pos, rule, format string, args ...any) {
	if c.off[rule] {
		return
	}
	line := c.pass.Fset.Position(pos).Line
	for _, a := range c.allows {
		if a.line == line && a.rule == rule && a.reason != "" {
			a.used = true
			return
		}
	}
	c.pass.Report(analysis.Diagnostic{
		Pos:      pos,
		Category: rule,
		Message:  fmt.Sprintf("detlint(%s): ", rule) + fmt.Sprintf(format, args...),
	})
}

// isMap reports whether ranging over a value of type t iterates a map.
func isMap(t types.Type) bool {
	if t == nil {
		return false
	}
	if tp, ok := types.Unalias(t).(*types.TypeParam); ok {
		return onlyMaps(tp)
	}
	_, ok := t.Underlying().(*types.Map)
	return ok
}

// onlyMaps reports whether every type in tp's type set is a map, so that
// ranging over a value of type tp is a map range.
func onlyMaps(tp *types.TypeParam) bool {
	iface, ok := tp.Constraint().Underlying().(*types.Interface)
	if !ok {
		return false
	}
	found := false
	for i := range iface.NumEmbeddeds() {
		switch e := iface.EmbeddedType(i).(type) {
		case *types.Union:
			for j := range e.Len() {
				if !isMap(e.Term(j).Type()) {
					return false
				}
				found = true
			}
		default:
			if !isMap(e) {
				return false
			}
			found = true
		}
	}
	return found
}

// isFloat reports whether t is a typed floating-point or complex type.
func isFloat(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&(types.IsFloat|types.IsComplex) != 0 && b.Info()&types.IsUntyped == 0
}

// sortedMapIterators returns the identifiers naming maps.Keys, maps.Values
// or maps.All in calls that are the direct argument of a slices.Sorted*
// call: the only order-safe way to consume them.
func sortedMapIterators(info *types.Info, f *ast.File) map[*ast.Ident]bool {
	ok := make(map[*ast.Ident]bool)
	ast.Inspect(f, func(n ast.Node) bool {
		call, isCall := n.(*ast.CallExpr)
		if !isCall || len(call.Args) == 0 || !sorters[funcName(info, call.Fun)] {
			return true
		}
		if inner, isCall := ast.Unparen(call.Args[0]).(*ast.CallExpr); isCall {
			if id := calleeIdent(inner.Fun); id != nil {
				ok[id] = true
			}
		}
		return true
	})
	return ok
}

// calleeIdent returns the identifier that names the function in fun,
// looking through parentheses, package qualifiers and instantiation.
func calleeIdent(fun ast.Expr) *ast.Ident {
	switch f := ast.Unparen(fun).(type) {
	case *ast.Ident:
		return f
	case *ast.SelectorExpr:
		return f.Sel
	case *ast.IndexExpr:
		return calleeIdent(f.X)
	case *ast.IndexListExpr:
		return calleeIdent(f.X)
	}
	return nil
}

// funcName returns "pkgpath.Name" for a package-level function named by
// fun, or "" otherwise.
func funcName(info *types.Info, fun ast.Expr) string {
	id := calleeIdent(fun)
	if id == nil {
		return ""
	}
	obj, ok := info.Uses[id].(*types.Func)
	if !ok || obj.Pkg() == nil || obj.Parent() != obj.Pkg().Scope() {
		return ""
	}
	return obj.Pkg().Path() + "." + obj.Name()
}
