package builtin_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/hosts/builtin"
)

// corePackages are the directories of the packages that route by
// kind_tag and the kinds' declarations (spec §6.3, §13; docs/kinds.md):
// none of them may name a kind.
var corePackages = []string{
	"scenarios", "engine", "bundle", "bundle/verdict", "render",
	"tui", "tui/screen", "debugger", "causal",
}

// TestCoreNamesNoKind fails when a non-test file of a core package holds
// a string literal equal to a registered kind's tag or one of its event
// types: such a name is knowledge of a kind that belongs in the kind's
// declarations, and a second kind naming an event the same way would be
// read as the first.
func TestCoreNamesNoKind(t *testing.T) {
	names := map[string]string{} // literal -> what it names
	for _, k := range builtin.Registry().Kinds() {
		tag := k.Tag()
		names[tag] = "kind " + tag
		for _, e := range hosts.EventsOf(k) {
			names[e.Type()] = "an event type of kind " + tag
		}
		if a := hosts.AssertionsOf(k); a != nil {
			for _, a := range a.Kinds {
				names[a.Name] = "an assertion kind of kind " + tag
			}
		}
	}
	for _, dir := range corePackages {
		for _, f := range coreNames(t, filepath.Join("..", "..", dir), names) {
			t.Error(f)
		}
	}
}

// TestCoreNames_FindsAPlantedName: the scan is real: a "swim" planted in
// a core package's source is found, and the same word in a comment or a
// test file is not.
func TestCoreNames_FindsAPlantedName(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"page.go":      "package render\n\n// swim is fine in a comment.\nfunc label() string { return \"swim\" }\n",
		"page_test.go": "package render\n\nvar x = \"swim\"\n",
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := coreNames(t, dir, map[string]string{"swim": "kind swim"})
	if len(got) != 1 || !strings.HasSuffix(got[0], `page.go:4:30: "swim" is kind swim`) {
		t.Fatalf("found %q, want the one literal in page.go", got)
	}
}

// coreNames lists the literals of dir's non-test Go files found in names.
func coreNames(t *testing.T, dir string, names map[string]string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	fset := token.NewFileSet()
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(x ast.Node) bool {
			lit, ok := x.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			if what, ok := names[s]; ok {
				out = append(out, fset.Position(lit.Pos()).String()+": "+strconv.Quote(s)+" is "+what)
			}
			return true
		})
	}
	sort.Strings(out)
	return out
}
