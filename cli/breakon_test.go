package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The headless --break-on path draws the panes with package screen, not
// the stepper: the file holding runToBreak imports tui/screen and nothing
// of the interactive program (package tui, bubbletea, bubbles). That the
// screen itself pulls none of them in is tui/screen's
// TestImportsNoBubbletea.
func TestBatchBreakOn_ImportsNoStepper(t *testing.T) {
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var found *ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == "runToBreak" {
				found = f
			}
		}
	}
	if found == nil {
		t.Fatal("no file declares runToBreak")
	}
	name := fset.Position(found.Pos()).Filename
	screen := false
	for _, imp := range found.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		screen = screen || p == "github.com/detsim/detsim/tui/screen"
		if p == "github.com/detsim/detsim/tui" || strings.HasPrefix(p, "charm.land/bubbletea") || strings.HasPrefix(p, "charm.land/bubbles") {
			t.Errorf("%s, which holds runToBreak, imports %s", name, p)
		}
	}
	if !screen {
		t.Errorf("%s, which holds runToBreak, does not draw with tui/screen", name)
	}
}

// --break-on or --until with --out is refused, and nothing is written:
// a run stopped part-way writes no bundle, and taking --out left the
// directory silently empty (issue 33).
func TestBatchBreakOn_RefusesOut(t *testing.T) {
	for _, stop := range [][]string{{"--break-on", "fail"}, {"--until", "5s"}} {
		out := filepath.Join(t.TempDir(), "b")
		args := append([]string{"--batch", "--out", out}, stop...)
		r := runIn(append(args, "reference/echo_parity")...)
		if r.code != exitUsage || !strings.Contains(r.stderr, "--out goes with a whole --batch run") || !strings.Contains(r.stderr, "write no bundle") {
			t.Errorf("%v: exit %d, stderr %q", args, r.code, r.stderr)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%v: %s exists (%v)", args, out, err)
		}
	}
}
