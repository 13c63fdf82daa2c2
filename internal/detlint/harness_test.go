package detlint

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
)

// This file is a small stand-in for analysistest: analysistest and
// go/packages import golang.org/x/sync and golang.org/x/mod, which go.sum
// does not pin. The expectation syntax is analysistest's — a comment
// `// want "regexp" ...` (or `/* want ... */` on a line that also needs a
// line comment) — so switching to analysistest.Run later is mechanical.

// run type-checks files as package path and returns a's diagnostics.
func run(a *analysis.Analyzer, fset *token.FileSet, path string, files []*ast.File, imp types.Importer) ([]analysis.Diagnostic, error) {
	info := &types.Info{
		Types:      map[ast.Expr]types.TypeAndValue{},
		Defs:       map[*ast.Ident]types.Object{},
		Uses:       map[*ast.Ident]types.Object{},
		Implicits:  map[ast.Node]types.Object{},
		Selections: map[*ast.SelectorExpr]*types.Selection{},
		Scopes:     map[ast.Node]*types.Scope{},
		Instances:  map[*ast.Ident]types.Instance{},
	}
	conf := types.Config{Importer: imp}
	pkg, err := conf.Check(path, fset, files, info)
	if err != nil {
		return nil, fmt.Errorf("type-checking %s: %v", path, err)
	}
	var diags []analysis.Diagnostic
	pass := &analysis.Pass{
		Analyzer:   a,
		Fset:       fset,
		Files:      files,
		Pkg:        pkg,
		TypesInfo:  info,
		TypesSizes: types.SizesFor("gc", "amd64"),
		ResultOf:   map[*analysis.Analyzer]any{},
		Report:     func(d analysis.Diagnostic) { diags = append(diags, d) },
		ReadFile:   os.ReadFile,
	}
	if _, err := a.Run(pass); err != nil {
		return nil, fmt.Errorf("running %s on %s: %v", a.Name, path, err)
	}
	return diags, nil
}

// checkTestdata runs a over testdata/src/<path>, test files included, and
// fails unless its reports are exactly those the want comments expect.
func checkTestdata(t *testing.T, a *analysis.Analyzer, path string) {
	t.Helper()
	fset, files := parseTestdata(t, path)
	diags, err := run(a, fset, path, files, importer.Default())
	if err != nil {
		t.Fatal(err)
	}

	wants := expectations(t, fset, files)
	for _, d := range diags {
		p := fset.Position(d.Pos)
		at := lineKey{p.Filename, p.Line}
		i := matching(wants[at], d.Message)
		if i < 0 {
			t.Errorf("%s: unexpected report: %s", p, d.Message)
			continue
		}
		wants[at] = append(wants[at][:i], wants[at][i+1:]...)
	}
	for at, res := range wants {
		for _, re := range res {
			t.Errorf("%s:%d: no report matching %q", at.file, at.line, re)
		}
	}
}

// parseTestdata parses every Go file of testdata/src/<path>.
func parseTestdata(t *testing.T, path string) (*token.FileSet, []*ast.File) {
	t.Helper()
	names, err := filepath.Glob(filepath.Join("testdata", "src", path, "*.go"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no Go files for testdata package %s (%v)", path, err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range names {
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return fset, files
}

type lineKey struct {
	file string
	line int
}

// expectations collects the regexps of every want comment, by line.
func expectations(t *testing.T, fset *token.FileSet, files []*ast.File) map[lineKey][]*regexp.Regexp {
	t.Helper()
	wants := map[lineKey][]*regexp.Regexp{}
	for _, f := range files {
		for _, g := range f.Comments {
			for _, c := range g.List {
				text := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(c.Text, "//"), "/*"), "*/")
				rest, ok := strings.CutPrefix(strings.TrimSpace(text), "want ")
				if !ok {
					continue
				}
				p := fset.Position(c.Pos())
				at := lineKey{p.Filename, p.Line}
				for rest = strings.TrimSpace(rest); rest != ""; rest = strings.TrimSpace(rest) {
					quoted, err := strconv.QuotedPrefix(rest)
					if err != nil {
						t.Fatalf("%s: malformed want comment: %v", p, err)
					}
					rest = rest[len(quoted):]
					s, _ := strconv.Unquote(quoted)
					wants[at] = append(wants[at], regexp.MustCompile(s))
				}
			}
		}
	}
	return wants
}

func matching(res []*regexp.Regexp, msg string) int {
	for i, re := range res {
		if re.MatchString(msg) {
			return i
		}
	}
	return -1
}
