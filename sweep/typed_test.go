package sweep

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/detsim/detsim/batch"
	"github.com/detsim/detsim/bundle/verdict"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/property"
	"github.com/detsim/detsim/scenarios"
)

// TestTypedJudging_MatchesBundle: judging a run from the values its hosts
// built (batch.Judge, what a sweep does per seed) gives byte for byte the
// verdicts.json the post-run evaluation over the bundle writes (the
// authority `verify` uses), and the verdicts the JSON stream gives
// (batch.Watch, the path before typed judging), on every library
// scenario and on the first seeds of every library property, for every
// kind. It is what lets a sweep skip serialising its seeds.
func TestTypedJudging_MatchesBundle(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every library scenario and three seeds of every property twice; .ci/run runs it")
	}
	reg := builtin.Registry()
	type run struct {
		name string
		sc   *scenarios.Scenario
	}
	var runs []run
	for _, name := range scenarios.LibraryNames(reg) {
		sc, err := scenarios.LoadLibrary(name, reg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		runs = append(runs, run{name, sc})
	}
	seeds := uint64(3)
	if testing.Short() {
		seeds = 1
	}
	for _, name := range property.LibraryNames(reg) {
		p, err := property.LoadLibrary(name, reg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for seed := range seeds {
			sc, err := p.Scenario(seed, reg)
			if err != nil {
				t.Fatalf("%s seed %d: %v", name, seed, err)
			}
			runs = append(runs, run{fmt.Sprintf("property/%s#%d", name, seed), sc})
		}
	}
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			big := len(r.sc.Peers) > 100 // a thousand peers: a minute and more on a loaded machine
			if big && testing.Short() {
				t.Skip("a thousand peers; run without -short")
			}
			dir := filepath.Join(t.TempDir(), "b")
			res, err := batch.Run(r.sc, reg, batch.Config{Out: dir})
			if err != nil {
				t.Fatal(err)
			}
			written, err := os.ReadFile(filepath.Join(dir, "verdicts.json"))
			if err != nil {
				t.Fatal(err)
			}
			judged, err := judgeScenario(context.Background(), r.sc, reg)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(verdict.Marshal(judged.Verdicts)); got != string(written) {
				t.Errorf("typed verdicts differ from the bundle's:\ntyped:\n%s\nbundle:\n%s", got, written)
			}
			if !big {
				streamed, err := RunScenario(context.Background(), r.sc, reg)
				if err != nil {
					t.Fatal(err)
				}
				if got := string(verdict.Marshal(streamed.Verdicts)); got != string(written) {
					t.Errorf("JSON-streamed verdicts differ from the bundle's:\nstreamed:\n%s\nbundle:\n%s", got, written)
				}
			}
			if judged.EndNs != res.EndNs || judged.Records != res.Records || judged.Digest != "" {
				t.Errorf("typed run: end %d, %d records, digest %q; batch: end %d, %d records", judged.EndNs, judged.Records, judged.Digest, res.EndNs, res.Records)
			}
		})
	}
}
