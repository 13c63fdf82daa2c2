package shrink

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/detsim/detsim/batch"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/vtime"
	"github.com/detsim/detsim/scenarios"
)

// DefaultBudget is how many candidate runs a shrink makes unless told.
const DefaultBudget = 2000

// Options tune a shrink.
type Options struct {
	// Assert names the assertion that must keep failing. Empty means the
	// one that fails first in virtual time (else the first declared that
	// fails).
	Assert string
	// Budget bounds the candidate runs; <= 0 means DefaultBudget.
	Budget int
	// Progress, when set, sees every candidate that was run.
	Progress func(Step)
}

// Step is one candidate run.
type Step struct {
	Run, Budget int
	Pass        string // "peers", "duration", …
	Change      string // what the candidate changed
	Kept        bool   // the assertion still failed, so the change was kept
	Size        Size   // the smallest scenario so far
}

// Size measures a scenario.
type Size struct {
	Peers, Links, Mutations, Assertions, Snapshots int
	DurationNs                                     int64
	Bytes                                          int // of the merged TOML
}

func (s Size) String() string {
	return fmt.Sprintf("%d peers, %d links, %d mutations, %d assertions, %d snapshots, %s, %d bytes",
		s.Peers, s.Links, s.Mutations, s.Assertions, s.Snapshots, vtime.Compact(s.DurationNs), s.Bytes)
}

// Result is a finished shrink.
type Result struct {
	Assert        string
	Before, After Size
	// Scenario is the smallest failing scenario found; TOML its file.
	Scenario *scenarios.Scenario
	TOML     []byte
	// Changes lists every kept change, in order.
	Changes []string
	Runs    int
	// Exhausted says the budget ran out before a fixed point; Stopped
	// that the context ended the shrink. Either way the result is the
	// smallest found so far.
	Exhausted, Stopped bool
}

// ErrNotFailing is returned when the assertion does not fail to begin with.
var ErrNotFailing = errors.New("the assertion does not fail: nothing to shrink")

// Shrink reduces sc while the chosen assertion keeps failing (see the
// package comment). The error is for an assertion that does not exist or
// does not fail, or a run that panics.
func Shrink(ctx context.Context, sc *scenarios.Scenario, reg *hosts.Registry, opts Options) (*Result, error) {
	s := &shrinker{ctx: ctx, reg: reg, budget: opts.Budget, progress: opts.Progress, seen: map[[32]byte]bool{}}
	if s.budget <= 0 {
		s.budget = DefaultBudget
	}
	first, err := run(ctx, sc, reg, nil, false)
	if err != nil {
		return nil, err
	}
	s.target = opts.Assert
	if s.target == "" {
		s.target = first.firstFail
		for _, v := range first.verdicts {
			if s.target == "" && first.failed(v.Name) {
				s.target = v.Name
			}
		}
		if s.target == "" {
			return nil, ErrNotFailing
		}
	} else if !slices.ContainsFunc(sc.Assertions, func(a scenarios.Assertion) bool { return a.Name == s.target }) {
		var names []string
		for _, a := range sc.Assertions {
			names = append(names, a.Name)
		}
		return nil, fmt.Errorf("no assertion %q (the scenario has: %s)", s.target, strings.Join(names, ", "))
	}
	if !first.failed(s.target) {
		return nil, fmt.Errorf("%q: %w", s.target, ErrNotFailing)
	}
	bare := *sc
	bare.Expect = ""
	s.tree, err = decode(bare.TOML())
	if err != nil {
		return nil, fmt.Errorf("shrink: reading the scenario back: %w", err)
	}
	s.best, s.failAt = sc, first.at
	if j, err := run(ctx, sc, reg, []string{s.target}, true); err == nil {
		s.failAt = j.at
	}
	s.bytes = len(encode(s.tree))
	before := s.measure()

	for !s.out() {
		changed := false
		for _, p := range s.passes() {
			if s.out() {
				break
			}
			changed = p() || changed
		}
		if !changed {
			break
		}
	}
	data := encode(s.tree)
	return &Result{
		Assert: s.target, Before: before, After: s.measure(),
		Scenario: s.best, TOML: data, Changes: s.changes, Runs: s.runs,
		Exhausted: s.runs >= s.budget, Stopped: ctx.Err() != nil,
	}, s.err
}

// shrinker holds the smallest failing scenario found so far.
type shrinker struct {
	ctx      context.Context
	reg      *hosts.Registry
	target   string
	budget   int
	progress func(Step)

	tree    tree
	best    *scenarios.Scenario
	bytes   int   // of the best scenario's merged TOML
	failAt  int64 // when the target failed in the best scenario's run
	runs    int
	changes []string
	seen    map[[32]byte]bool // candidates already run (all failed to fail)
	err     error
}

// out reports whether the shrink must stop: budget spent, context done or
// a run crashed.
func (s *shrinker) out() bool { return s.runs >= s.budget || s.ctx.Err() != nil || s.err != nil }

// try runs a candidate and keeps it if the target still fails. A
// candidate the loader rejects costs no run.
func (s *shrinker) try(pass, change string, cand tree) bool {
	if cand == nil || s.out() {
		return false
	}
	data := encode(cand)
	key := sha256.Sum256(data)
	if s.seen[key] {
		return false
	}
	s.seen[key] = true
	sc, err := parse(data, s.reg)
	if err != nil {
		return false
	}
	s.runs++
	j, err := run(s.ctx, sc, s.reg, []string{s.target}, true)
	if errors.Is(err, batch.ErrStopped) {
		return false
	}
	if err != nil {
		s.err = fmt.Errorf("candidate (%s: %s): %w", pass, change, err)
		return false
	}
	kept := j.failed(s.target)
	if kept {
		s.tree, s.best, s.failAt, s.bytes = cand, sc, j.at, len(data)
		s.changes = append(s.changes, pass+": "+change)
	}
	if s.progress != nil {
		s.progress(Step{Run: s.runs, Budget: s.budget, Pass: pass, Change: change, Kept: kept, Size: s.measure()})
	}
	return kept
}

func (s *shrinker) measure() Size {
	sc := s.best
	return Size{
		Peers: len(sc.Peers), Links: len(list(s.tree, "links")), Mutations: len(sc.Mutations),
		Assertions: len(sc.Assertions), Snapshots: len(sc.Snapshots),
		DurationNs: sc.DurationNs, Bytes: s.bytes,
	}
}
