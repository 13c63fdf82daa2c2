package sweep

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/detsim/detsim/batch"
	"github.com/detsim/detsim/bundle/verdict"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/property"
	"github.com/detsim/detsim/scenarios"
)

// TestRunScenario_MatchesBatch: a sweep's in-memory run reports the
// digest and the verdicts a full --batch run writes to its bundle.
func TestRunScenario_MatchesBatch(t *testing.T) {
	reg := builtin.Registry()
	p := lossy(t)
	var scs []*scenarios.Scenario
	for _, seed := range []uint64{1, 5} { // one failing, one passing
		sc, err := p.Scenario(seed, reg)
		if err != nil {
			t.Fatal(err)
		}
		scs = append(scs, sc)
	}
	ref, err := scenarios.LoadLibrary("reference/echo_parity", reg)
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range append(scs, ref) {
		out, err := RunScenario(context.Background(), sc, reg)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), "b")
		res, err := batch.Run(sc, reg, batch.Config{Out: dir})
		if err != nil {
			t.Fatal(err)
		}
		written, err := os.ReadFile(filepath.Join(dir, "verdicts.json"))
		if err != nil {
			t.Fatal(err)
		}
		if out.Digest != res.Digest || string(verdict.Marshal(out.Verdicts)) != string(written) {
			t.Errorf("%s: sweep digest %s, batch %s; verdicts equal: %v", sc.Name, out.Digest, res.Digest,
				string(verdict.Marshal(out.Verdicts)) == string(written))
		}
		if out.EndNs != res.EndNs || out.Records != res.Records {
			t.Errorf("%s: end %d records %d, batch %d %d", sc.Name, out.EndNs, out.Records, res.EndNs, res.Records)
		}
	}
}

func TestRunScenario_AbandonedWhenTheContextEnds(t *testing.T) {
	reg := builtin.Registry()
	sc, err := scenarios.LoadLibrary("reproduction/gossip_flap", reg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := RunScenario(ctx, sc, reg); err != ErrAbandoned {
		t.Errorf("err = %v, want ErrAbandoned", err)
	}
}

// sweepLines runs a sweep and renders what OnSeed saw, one line a seed.
func sweepLines(t *testing.T, cfg Config) ([]string, *Summary) {
	t.Helper()
	var lines []string
	cfg.OnSeed = func(r SeedResult) {
		if r.Err != nil {
			t.Fatalf("seed %d: %v", r.Seed, r.Err)
		}
		lines = append(lines, fmt.Sprintf("%d %d %v %s", r.Seed, r.Peers, r.Outcome.Failing(), r.Outcome.Digest))
	}
	s, err := Run(context.Background(), lossy(t), builtin.Registry(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return lines, s
}

// TestRun_SeedOrderAndPinsWhateverTheWorkers: the report is in seed order
// and identical on 1 and 4 workers; every failing seed is pinned, and the
// pin replays byte for byte.
func TestRun_SeedOrderAndPinsWhateverTheWorkers_10_3(t *testing.T) {
	corpus := t.TempDir()
	one, s1 := sweepLines(t, Config{Start: 0, Count: 16, Workers: 1, Digests: true})
	four, s4 := sweepLines(t, Config{Start: 0, Count: 16, Workers: 4, Corpus: corpus, Digests: true})
	if !slices.Equal(one, four) {
		t.Fatalf("1 and 4 workers differ:\n%s\n----\n%s", strings.Join(one, "\n"), strings.Join(four, "\n"))
	}
	if len(s1.Failed) == 0 || len(s1.Failed) == 16 || !slices.Equal(s1.Failed, s4.Failed) || s4.Ran != 16 || s4.Interrupted {
		t.Fatalf("failed %v / %v, ran %d", s1.Failed, s4.Failed, s4.Ran)
	}
	if s1.Met() {
		t.Error("an expect = pass sweep with failures met its expectation")
	}
	if len(s4.Pinned) != len(s4.Failed) || len(s1.Pinned) != 0 {
		t.Fatalf("pinned %v for failures %v", s4.Pinned, s4.Failed)
	}
	for i, path := range s4.Pinned {
		if path != PinPath(corpus, "echo_lossy", s4.Failed[i]) {
			t.Errorf("pinned %s", path)
		}
		r, err := ReplayPin(context.Background(), path, builtin.Registry())
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Mismatches) > 0 || r.Header.Seed != s4.Failed[i] || r.Header.Property != "echo_lossy" ||
			r.Header.Expected != "pass" || !slices.Equal(r.Header.Failing, []string{"no_loss"}) {
			t.Errorf("%s: %+v", path, r)
		}
		sc, err := scenarios.Load(path, builtin.Registry())
		if err != nil || sc.Expect != "fail-until-fix" {
			t.Errorf("%s: expect %q, %v", path, sc.Expect, err)
		}
	}
	entries, _ := os.ReadDir(corpus)
	if len(entries) != 2*len(s4.Failed) {
		t.Errorf("corpus holds %d files for %d failures", len(entries), len(s4.Failed))
	}
}

// TestRun_DigestsOnlyWhereWanted: a sweep serialises a seed only for a
// digest someone reads: every seed's with Digests (--json), else only a
// failing seed's that is pinned, taken by running it again, and equal to
// the digest --batch reports. The verdicts are the same either way.
func TestRun_DigestsOnlyWhereWanted(t *testing.T) {
	reg := builtin.Registry()
	results := func(cfg Config) map[uint64]SeedResult {
		out := map[uint64]SeedResult{}
		cfg.Start, cfg.Count, cfg.Workers = 0, 8, 2
		cfg.OnSeed = func(r SeedResult) {
			if r.Err != nil {
				t.Fatalf("seed %d: %v", r.Seed, r.Err)
			}
			out[r.Seed] = r
		}
		if _, err := Run(context.Background(), lossy(t), reg, cfg); err != nil {
			t.Fatal(err)
		}
		return out
	}
	all := results(Config{Digests: true})
	bare := results(Config{})
	pinned := results(Config{Corpus: t.TempDir()})
	failures := 0
	for seed, a := range all {
		b, p := bare[seed], pinned[seed]
		full, err := RunScenario(context.Background(), a.Scenario, reg)
		if err != nil {
			t.Fatal(err)
		}
		if a.Outcome.Digest != full.Digest || b.Outcome.Digest != "" {
			t.Errorf("seed %d: digest %q with Digests, %q without; --batch's %q", seed, a.Outcome.Digest, b.Outcome.Digest, full.Digest)
		}
		want := ""
		if a.Failed() {
			failures++
			want = full.Digest
		}
		if p.Outcome.Digest != want {
			t.Errorf("seed %d (failed %v), pinning: digest %q, want %q", seed, a.Failed(), p.Outcome.Digest, want)
		}
		for _, o := range []*Outcome{b.Outcome, p.Outcome} {
			if string(verdict.Marshal(o.Verdicts)) != string(verdict.Marshal(a.Outcome.Verdicts)) || o.Records != a.Outcome.Records {
				t.Errorf("seed %d: verdicts or records differ between the digest policies", seed)
			}
		}
	}
	if failures == 0 || failures == len(all) {
		t.Fatalf("%d of %d seeds failed: the test needs both", failures, len(all))
	}
}

// TestRun_ShardsConcatenateToTheWholeSweep.
func TestRun_ShardsConcatenateToTheWholeSweep(t *testing.T) {
	whole, _ := sweepLines(t, Config{Start: 3, Count: 10, Workers: 2})
	var joined []string
	for i := uint64(1); i <= 3; i++ {
		part, s := sweepLines(t, Config{Start: 3, Count: 10, Workers: 2, Shard: Shard{i, 3}})
		if s.Planned != uint64(len(part)) {
			t.Errorf("shard %d planned %d, ran %d", i, s.Planned, len(part))
		}
		joined = append(joined, part...)
	}
	if !slices.Equal(whole, joined) {
		t.Errorf("shards:\n%s\nwhole:\n%s", strings.Join(joined, "\n"), strings.Join(whole, "\n"))
	}
}

// TestRun_InterruptKeepsTheFailuresFound: cancelling after the first
// failure stops the sweep; the failure is already pinned.
func TestRun_InterruptKeepsTheFailuresFound(t *testing.T) {
	corpus := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := Config{Start: 0, Count: 10_000, Workers: 2, Corpus: corpus,
		OnProgress: func(done, failed, total uint64) {
			if failed > 0 {
				cancel()
			}
		}}
	s, err := Run(ctx, lossy(t), builtin.Registry(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Interrupted || s.Ran >= 10_000 || len(s.Failed) == 0 {
		t.Fatalf("interrupted %v, ran %d, failed %v", s.Interrupted, s.Ran, s.Failed)
	}
	for _, seed := range s.Failed {
		if _, err := os.Stat(PinPath(corpus, "echo_lossy", seed)); err != nil {
			t.Errorf("failure %d not pinned: %v", seed, err)
		}
	}
}

func TestRun_RefusesAnUnwritableCorpusBeforeAnySeed(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, []byte("x"), 0o644)
	ran := false
	_, err := Run(context.Background(), lossy(t), builtin.Registry(), Config{Count: 3, Corpus: filepath.Join(file, "sub"),
		OnSeed: func(SeedResult) { ran = true }})
	if err == nil || ran {
		t.Fatalf("err %v, ran %v", err, ran)
	}
}

func TestRun_RefusesSeedsPastTheMaximum(t *testing.T) {
	_, err := Run(context.Background(), lossy(t), builtin.Registry(), Config{Start: scenarios.MaxSeed, Count: 2})
	if err == nil || !strings.Contains(err.Error(), "seeds go up to") {
		t.Errorf("err = %v", err)
	}
}

func TestSummary_Met(t *testing.T) {
	for _, c := range []struct {
		expect  property.Expectation
		pct     int64
		ran     uint64
		failed  int
		errors  int
		met     bool
		comment string
	}{
		{property.ExpectPass, 0, 200, 0, 0, true, "all pass"},
		{property.ExpectPass, 0, 200, 1, 0, false, "one failure"},
		{property.ExpectPass, 0, 200, 0, 1, false, "a seed that could not run"},
		{property.ExpectPass, 0, 0, 0, 0, false, "nothing ran"},
		{property.ExpectFail, 1, 200, 1, 0, false, "1 of 200 is under 1 %"},
		{property.ExpectFail, 1, 200, 2, 0, true, "2 of 200 is 1 %"},
		{property.ExpectFail, 1, 50, 1, 0, true, "any failure when 1 % is under one seed"},
		{property.ExpectFail, 50, 200, 99, 0, false, "not most"},
		{property.ExpectFail, 50, 200, 100, 0, true, "half"},
		{property.ExpectFail, 50, 200, 0, 0, false, "none failed"},
	} {
		s := &Summary{Expect: c.expect, MinFailingPercent: c.pct, Ran: c.ran, Failed: make([]uint64, c.failed), Errors: make([]SeedResult, c.errors)}
		if s.Met() != c.met {
			t.Errorf("%s: Met() = %v", c.comment, s.Met())
		}
	}
}

// TestRun_SeedsBuiltWithoutTheirFileRunAsBefore: a sweep builds each
// seed's scenario without encoding its file
// (property.Property.ScenarioWithoutFile); every library property's
// first seeds, swept with digests, report the digest and the verdicts of
// running the scenario Scenario parses from the file, and pin the same
// scenario bytes.
func TestRun_SeedsBuiltWithoutTheirFileRunAsBefore(t *testing.T) {
	reg := builtin.Registry()
	for _, name := range property.LibraryNames(reg) {
		p := libraryProperty(t, name, reg)
		cfg := Config{Start: 0, Count: 4, Workers: 2, Digests: true, OnSeed: func(r SeedResult) {
			if r.Err != nil {
				t.Fatalf("%s seed %d: %v", name, r.Seed, r.Err)
			}
			sc, want := runSeedAlone(t, p, r.Seed, reg)
			if r.Outcome.Digest != want.Digest || r.Outcome.EndNs != want.EndNs || r.Outcome.Records != want.Records ||
				string(verdict.Marshal(r.Outcome.Verdicts)) != string(verdict.Marshal(want.Verdicts)) {
				t.Errorf("%s seed %d: the sweep's outcome differs from the parsed file's", name, r.Seed)
			}
			if pinned, parsed := pinOf(p, &r).Scenario, bareTOML(sc); string(pinned) != string(parsed) {
				t.Errorf("%s seed %d: the pin's scenario differs from the parsed file's", name, r.Seed)
			}
		}}
		if _, err := Run(context.Background(), p, reg, cfg); err != nil {
			t.Fatal(err)
		}
	}
}
