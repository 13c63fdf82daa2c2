package sweep

import (
	"context"
	"errors"
	"fmt"
	"math/bits"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/property"
	"github.com/detsim/detsim/scenarios"
)

// Config says which seeds of a property a sweep runs and where failures go.
type Config struct {
	// Start and Count name the seeds Start … Start+Count−1; Shard narrows
	// them to one block (see Shard.Seeds).
	Start, Count uint64
	Shard        Shard
	// Workers is the number of runs at once; <= 0 means every core.
	Workers int
	// Corpus, when set, is the directory every failing seed is pinned to,
	// as soon as it is found (WritePin).
	Corpus string
	// Force lets a pin replace a different pin of the same seed, or any
	// file at its path (WritePin).
	Force bool
	// Digests, when set, gives every seed's Outcome its digest (the
	// CLI's --json prints them). Otherwise a seed is judged with nothing
	// serialised and only the digest of a failing seed that is pinned
	// (Corpus) is taken, by running it again (RunScenario); every other
	// seed's is "".
	Digests bool
	// OnSeed, when set, sees each finished seed in seed order.
	OnSeed func(SeedResult)
	// OnProgress, when set, sees the running totals after each seed
	// finishes, in finishing order.
	OnProgress func(done, failed, total uint64)
}

// SeedResult is one seed of a sweep.
type SeedResult struct {
	Seed uint64
	// Scenario is the seed's scenario as the sweep built it, without its
	// file (property.Property.ScenarioWithoutFile): its SourceSHA256 is
	// zero. A sweep writes no bundle, and a pin writes Scenario.TOML().
	Scenario *scenarios.Scenario
	Peers    int
	// Outcome is nil when Err is set.
	Outcome *Outcome
	// Err is a seed whose scenario could not be built (an input problem)
	// or whose run panicked (a *batch.PanicError: a bug).
	Err error
	// Pinned is the corpus file the seed was written to, if any.
	Pinned string
	// PinErr is why writing it failed.
	PinErr error
}

// Failed reports whether the seed ran and an assertion failed.
func (r *SeedResult) Failed() bool { return r.Outcome != nil && r.Outcome.Failed() }

// Summary is a sweep's result.
type Summary struct {
	Property          string
	Expect            property.Expectation
	MinFailingPercent int64
	// First and Planned are the seeds this sweep (or shard) was to run.
	First, Planned uint64
	// Ran counts seeds that finished; Failed lists those with a Fail, and
	// Errors those that could not run, both in seed order.
	Ran    uint64
	Failed []uint64
	Errors []SeedResult
	// Interrupted says the context ended the sweep before every seed ran.
	Interrupted bool
	Pinned      []string
	// NotPinned lists, in seed order, the failing seeds a corpus was
	// given for whose pin could not be written (SeedResult.PinErr says
	// why). The sweep did not do what it was asked: the CLI exits 2.
	NotPinned []uint64
}

// Met reports whether the seeds that ran meet the property's
// expectation: for "pass", none failed; for "fail", at least one did,
// and at least MinFailingPercent of them. A sweep with a seed that could
// not run meets nothing.
func (s *Summary) Met() bool {
	if len(s.Errors) > 0 || s.Ran == 0 {
		return false
	}
	failed := uint64(len(s.Failed))
	if s.Expect == property.ExpectPass {
		return failed == 0
	}
	// failed·100 ≥ percent·ran, in 128 bits.
	fHi, fLo := bits.Mul64(failed, 100)
	rHi, rLo := bits.Mul64(uint64(s.MinFailingPercent), s.Ran)
	return failed > 0 && (fHi > rHi || fHi == rHi && fLo >= rLo)
}

// CheckSeeds returns an error if the seeds a sweep of count seeds from
// start (narrowed to shard) would run pass scenarios.MaxSeed, the largest
// seed a scenario file can hold. The CLI calls it before it prints
// anything.
func CheckSeeds(shard Shard, start, count uint64) error {
	first, n := shard.Seeds(start, count)
	if n > 0 && (first > scenarios.MaxSeed || n-1 > scenarios.MaxSeed-first) {
		return fmt.Errorf("seeds %d to %d: seeds go up to %d", first, first+n-1, uint64(scenarios.MaxSeed))
	}
	if count > 0 && count-1 > scenarios.MaxSeed-min(start, scenarios.MaxSeed) {
		return fmt.Errorf("--start %d --seeds %d: seeds go up to %d", start, count, uint64(scenarios.MaxSeed))
	}
	return nil
}

// Run sweeps the property's seeds on cfg.Workers workers. When ctx ends
// it starts no new seed, abandons the running ones and returns what it
// has, with Interrupted set; failures already found are already pinned.
// The error is for a problem before any seed runs (an unwritable corpus,
// a seed range past scenarios.MaxSeed).
func Run(ctx context.Context, p *property.Property, reg *hosts.Registry, cfg Config) (*Summary, error) {
	if err := CheckSeeds(cfg.Shard, cfg.Start, cfg.Count); err != nil {
		return nil, err
	}
	first, n := cfg.Shard.Seeds(cfg.Start, cfg.Count)
	if cfg.Corpus != "" {
		if err := CheckWritable(cfg.Corpus); err != nil {
			return nil, err
		}
	}
	s := &Summary{
		Property: p.Name, Expect: p.Expect, MinFailingPercent: p.MinFailingPercent,
		First: first, Planned: n,
	}
	var done, failed uint64
	work := func(ctx context.Context, i uint64) (*SeedResult, bool) {
		r := runSeed(ctx, p, reg, first+i, cfg.Digests, cfg.Corpus != "")
		return r, !errors.Is(r.Err, ErrAbandoned)
	}
	arrived := func(_ uint64, r *SeedResult) {
		done++
		if r.Failed() {
			failed++
			if cfg.Corpus != "" {
				r.Pinned, r.PinErr = WritePin(cfg.Corpus, pinOf(p, r), cfg.Force)
			}
		}
		if cfg.OnProgress != nil {
			cfg.OnProgress(done, failed, n)
		}
	}
	emit := func(_ uint64, r *SeedResult) {
		s.Ran++
		switch {
		case r.Err != nil:
			s.Errors = append(s.Errors, *r)
		case r.Failed():
			s.Failed = append(s.Failed, r.Seed)
			if r.Pinned != "" {
				s.Pinned = append(s.Pinned, r.Pinned)
			}
			if r.PinErr != nil {
				s.NotPinned = append(s.NotPinned, r.Seed)
			}
		}
		if cfg.OnSeed != nil {
			cfg.OnSeed(*r)
		}
	}
	ordered(ctx, n, cfg.Workers, work, arrived, emit)
	s.Interrupted = s.Ran < n
	return s, nil
}

// runSeed runs one seed: serialised when every digest is wanted, else
// judged from typed records and, when it fails and will be pinned, run
// again for the digest its pin records.
func runSeed(ctx context.Context, p *property.Property, reg *hosts.Registry, seed uint64, digests, pinning bool) *SeedResult {
	r := &SeedResult{Seed: seed}
	sc, err := p.ScenarioWithoutFile(seed, reg)
	if err != nil {
		r.Err = err
		return r
	}
	r.Scenario, r.Peers = sc, len(sc.Peers)
	if digests {
		r.Outcome, r.Err = RunScenario(ctx, sc, reg)
		return r
	}
	r.Outcome, r.Err = judgeScenario(ctx, sc, reg)
	if r.Err == nil && pinning && r.Outcome.Failed() {
		r.Outcome, r.Err = digestAgain(ctx, sc, reg, r.Outcome)
	}
	return r
}
