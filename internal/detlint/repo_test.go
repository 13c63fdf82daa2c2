package detlint

import (
	"bytes"
	"encoding/json"
	"errors"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// listedPackage is the part of `go list -json` output the check needs.
type listedPackage struct {
	ImportPath string
	Dir        string
	GoFiles    []string // build-constrained, no _test.go: gen_normal.go is absent
	Export     string
	DepOnly    bool
	ImportMap  map[string]string
	Error      *struct{ Err string }
}

// TestRepository_DeterministicPackages_7 runs Analyzer over every package
// DeterministicPackages names and fails listing each finding. It loads with
// `go list -export` and the gc importer rather than go/packages, whose
// dependencies go.sum does not pin.
func TestRepository_DeterministicPackages_7(t *testing.T) {
	pkgs := goList(t, DeterministicPackages)
	exports := map[string]string{}
	for _, p := range pkgs {
		exports[p.ImportPath] = p.Export
	}
	fset := token.NewFileSet()
	gc := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		if exports[path] == "" {
			return nil, errors.New("no export data for " + path + " (does it build?)")
		}
		return os.Open(exports[path])
	})

	root := moduleRoot(t)
	var checked []string
	findings := 0
	for _, p := range pkgs {
		if p.DepOnly || !deterministic(p.ImportPath) {
			continue
		}
		if p.Error != nil {
			t.Errorf("cannot check %s: %s", p.ImportPath, p.Error.Err)
			continue
		}
		var files []*ast.File
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		imp := importerFunc(func(path string) (*types.Package, error) {
			if mapped, ok := p.ImportMap[path]; ok {
				path = mapped
			}
			return gc.Import(path)
		})
		diags, err := run(Analyzer, fset, p.ImportPath, files, imp)
		if err != nil {
			t.Errorf("cannot check %s: %v", p.ImportPath, err)
			continue
		}
		for _, d := range diags {
			pos := fset.Position(d.Pos)
			if rel, err := filepath.Rel(root, pos.Filename); err == nil {
				pos.Filename = rel
			}
			t.Errorf("%s: %s", pos, d.Message)
			findings++
		}
		checked = append(checked, p.ImportPath)
	}
	if len(checked) == 0 {
		t.Fatal("no deterministic package was checked; is DeterministicPackages right?")
	}
	if findings > 0 {
		t.Logf("%d determinism findings: fix each, or silence one with `//detlint:allow <rule> <reason>` on its line (reviewed, spec §15)", findings)
	}
	t.Logf("checked %d deterministic packages: %s", len(checked), strings.Join(checked, " "))
}

// deterministic reports whether a package matched by DeterministicPackages
// is held to the contract: user- and host-facing tui and cmd packages are
// not.
func deterministic(path string) bool {
	elems := strings.Split(path, "/")
	return !slices.Contains(elems, "tui") && !slices.Contains(elems, "cmd")
}

// goList returns the packages matching patterns and all their
// dependencies, each with the path of its compiled export data.
func goList(t *testing.T, patterns []string) []listedPackage {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-e", "-export", "-deps", "-json"}, patterns...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	var pkgs []listedPackage
	for dec := json.NewDecoder(bytes.NewReader(out)); dec.More(); {
		var p listedPackage
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("decoding go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// moduleRoot returns the directory holding go.mod, so findings print as
// repository-relative paths.
func moduleRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	return filepath.Dir(strings.TrimSpace(string(out)))
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }
