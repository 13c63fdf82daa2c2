package batch

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/bundle/verdict"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/scenarios"
)

// runPostRun runs sc as `detsim --batch` does, bundle on disk, and
// returns its verdicts after checking that they are, byte for byte, what
// the authoritative post-run evaluation reads from the bundle written
// (the run judges the values its hosts built as it writes them), and
// that the streaming evaluator, fed the same run in memory, reached the
// same ones. Post-run evaluation reads only the payloads its checkers
// need (bundle.ScanEvents); this is where that shortcut meets real runs.
func runPostRun(t *testing.T, sc *scenarios.Scenario) []verdict.Verdict {
	t.Helper()
	res, err := Run(sc, builtin.Registry(), Config{Out: filepath.Join(t.TempDir(), "bundle"), Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	written, err := os.ReadFile(filepath.Join(res.Out, bundle.VerdictsFile))
	if err != nil {
		t.Fatal(err)
	}
	evaluate := verdict.EvaluateBundle
	if res.Truncated != "" {
		evaluate = verdict.EvaluateCutBundle
	}
	read, err := evaluate(res.Out, sc.Assertions, res.EndNs)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(verdict.Marshal(read)); got != string(written) {
		t.Fatalf("%s: verdicts.json differs from the post-run evaluation of the bundle:\nwritten:\n%s\npost-run:\n%s", sc.Path, written, got)
	}
	if streamed := runVerdicts(t, sc); !reflect.DeepEqual(res.Verdicts, streamed) {
		t.Fatalf("%s: post-run verdicts differ from streaming ones:\npost-run  %+v\nstreaming %+v", sc.Path, res.Verdicts, streamed)
	}
	return res.Verdicts
}

// TestRun_PostRunAgreesWithStreaming_Library runs every library scenario
// and every fail fixture both ways.
func TestRun_PostRunAgreesWithStreaming_Library(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every library scenario twice (about 150 s on two cores); .ci/run runs it")
	}
	reg := builtin.Registry()
	for _, name := range scenarios.LibraryNames(reg) {
		t.Run(name, func(t *testing.T) {
			sc, err := scenarios.LoadLibrary(name, reg)
			if err != nil {
				t.Fatal(err)
			}
			runPostRun(t, sc)
		})
	}
	fixtures, err := filepath.Glob(filepath.Join("testdata", "fail", "*.toml"))
	if err != nil || len(fixtures) == 0 {
		t.Fatalf("no fail fixtures: %v", err)
	}
	for _, path := range fixtures {
		t.Run(path, func(t *testing.T) {
			runPostRun(t, loadFile(t, path))
		})
	}
}

// loadFile parses the scenario file at path, its extends resolved from
// disk.
func loadFile(t *testing.T, path string) *scenarios.Scenario {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenarios.Parse(path, data, builtin.Registry(), os.ReadFile)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}
