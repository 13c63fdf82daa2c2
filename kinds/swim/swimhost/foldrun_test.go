package swimhost_test

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/detsim/detsim/batch"
	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/scenarios"
)

// TestFold_ExpandsToTheLinesOneByOne: a bundle whose writer folded each
// node's start-up view (docs/bundle.md, "Folded lines") reads, through
// bundle.EachLine, as exactly the lines of the same run written one
// record a line (a run with a Tap, which the engine never folds for):
// the same bytes in the same order with the same numbers, the same
// records count and verdicts.json, and it verifies. Only events.ndjson
// and the digest differ. On the old writer nothing folds and the
// folded file's line count fails it; a fold expanded wrongly fails the
// comparison.
func TestFold_ExpandsToTheLinesOneByOne(t *testing.T) {
	reg := builtin.Registry()
	names := []string{"smoke/three_mesh", "smoke/ring8", "failure_modes/restart_low_incarnation", "topology/churn", "reproduction/gossip_flap"}
	load := map[string]func() (*scenarios.Scenario, error){}
	for _, name := range names {
		load[name] = func() (*scenarios.Scenario, error) { return scenarios.LoadLibrary(name, reg) }
	}
	big := filepath.Join("..", "bench", "testdata", "swim1000_60s.toml")
	if !testing.Short() {
		names = append(names, big)
		load[big] = func() (*scenarios.Scenario, error) {
			data, err := os.ReadFile(big)
			if err != nil {
				return nil, err
			}
			return scenarios.Parse(big, data, reg, os.ReadFile)
		}
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			run := func(out string, tap bool) *batch.Result {
				sc, err := load[name]()
				if err != nil {
					t.Fatal(err)
				}
				cfg := batch.Config{Out: filepath.Join(dir, out)}
				if tap {
					cfg.Tap = func(line, step, at int64, b []byte) {}
				}
				res, err := batch.Run(sc, reg, cfg)
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			folded, plain := run("folded", false), run("plain", true)
			if folded.Records != plain.Records {
				t.Fatalf("records: folded %d, one a line %d", folded.Records, plain.Records)
			}
			if p, err := bundle.Verify(filepath.Join(dir, "folded")); err != nil || len(p) > 0 {
				t.Fatalf("the folded bundle: Verify = %v, %v", p, err)
			}
			lines := physicalLines(t, filepath.Join(dir, "folded", bundle.EventsFile))
			if lines >= plain.Records {
				t.Fatalf("the folded events.ndjson has %d lines for %d records: nothing folded", lines, plain.Records)
			}
			f, err := os.Open(filepath.Join(dir, "plain", bundle.EventsFile))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 64<<20)
			n := 0
			err = bundle.EachLine(filepath.Join(dir, "folded"), func(line int, b []byte) error {
				n++
				if !sc.Scan() {
					t.Fatalf("line %d: the expansion goes on past the %d lines written one by one", line, n-1)
				}
				if line != n || !bytes.Equal(b, sc.Bytes()) {
					t.Fatalf("line %d (record %d) expands to\n%s\nwritten one by one it is\n%s", line, n, b, sc.Bytes())
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if sc.Scan() || int64(n) != plain.Records {
				t.Fatalf("the expansion gave %d lines of %d", n, plain.Records)
			}
			for _, file := range []string{bundle.VerdictsFile, bundle.ScenarioFile} {
				a, _ := os.ReadFile(filepath.Join(dir, "folded", file))
				b, _ := os.ReadFile(filepath.Join(dir, "plain", file))
				if !bytes.Equal(a, b) {
					t.Errorf("%s differs between the folded bundle and the one written a record a line", file)
				}
			}
		})
	}
}

// physicalLines counts the newlines of a file.
func physicalLines(t *testing.T, path string) int64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return int64(bytes.Count(b, []byte{'\n'}))
}
