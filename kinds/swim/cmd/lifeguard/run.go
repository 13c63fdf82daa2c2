package main

import (
	"slices"
	"sync"

	"github.com/detsim/detsim/engine"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/network"
	"github.com/detsim/detsim/scenarios"
)

// Base is the library scenario every run starts from.
const Base = "lifeguard/slow_members"

// Variant is one protocol configuration: the kind_config keys it sets on
// every member.
type Variant struct {
	Name   string // the column header
	Config map[string]any
}

// Variants are the columns of the tables, plain SWIM first and Lifeguard
// second (the comparison table reads those two), then Lifeguard with
// each component off.
var Variants = []Variant{
	{"SWIM", map[string]any{"lifeguard": false}},
	{"Lifeguard", nil},
	{"no awareness", map[string]any{"lifeguard_awareness": false}},
	{"no suspicion", map[string]any{"lifeguard_suspicion": false}},
	{"no nack", map[string]any{"lifeguard_nack": false}},
	{"no buddy", map[string]any{"lifeguard_buddy": false}},
}

// Setup is what the tables' captions say about the cluster, read from
// the base scenario rather than restated.
type Setup struct {
	Members, Slow int
	Killed        string // "" when nothing crashes
	KillAt        int64
	DurationNs    int64
}

// SetupOf describes base.
func SetupOf(base *scenarios.Scenario) Setup {
	s := Setup{Members: len(base.Peers), DurationNs: base.DurationNs}
	for _, p := range base.Peers {
		if p.RecvCostNs > 0 {
			s.Slow++
		}
	}
	for _, m := range base.Mutations {
		if m.Kind == network.PeerKill {
			s.Killed, s.KillAt = m.Peer, m.At
		}
	}
	return s
}

// Run runs base with variant v, the slow members' recv_cost_ns set to
// costNs, under seed.
func Run(base *scenarios.Scenario, v Variant, costNs int64, seed uint64) (Result, error) {
	sc := *base
	sc.Seed = seed
	sc.Peers = slices.Clone(base.Peers)
	slow := map[string]bool{}
	for i := range sc.Peers {
		p := &sc.Peers[i]
		cfg := make(map[string]any, len(p.KindConfig)+len(v.Config))
		for k, x := range p.KindConfig {
			cfg[k] = x
		}
		for k, x := range v.Config {
			cfg[k] = x
		}
		p.KindConfig = cfg
		if p.RecvCostNs > 0 {
			slow[p.ID] = true
			p.RecvCostNs = costNs
		}
	}
	s := SetupOf(base)
	live := s.Members - s.Slow
	if s.Killed != "" {
		live--
	}
	k := newCounter(slow, s.Killed, s.KillAt, live)
	e, err := engine.New(&sc, builtin.Registry(), engine.Options{Sink: k})
	if err != nil {
		return Result{}, err
	}
	if err := e.Run(); err != nil {
		return Result{}, err
	}
	return k.res, nil
}

// Report is every run of a sweep: Runs[v][c][s] is variant Variants[v]
// at Costs[c] under seed s+1.
type Report struct {
	Setup    Setup
	Variants []Variant
	Costs    []int64
	Seeds    int
	Runs     [][][]Result
}

// Sweep runs every variant at every cost under seeds 1..seeds, on up to
// parallel goroutines. Each run is deterministic and lands in its own
// slot, so the report never depends on which goroutine finished first.
func Sweep(base *scenarios.Scenario, variants []Variant, costs []int64, seeds, parallel int) (*Report, error) {
	r := &Report{Setup: SetupOf(base), Variants: variants, Costs: costs, Seeds: seeds}
	type job struct{ v, c, s int }
	r.Runs = make([][][]Result, len(variants))
	for v := range r.Runs {
		r.Runs[v] = make([][]Result, len(costs))
		for c := range r.Runs[v] {
			r.Runs[v][c] = make([]Result, seeds)
		}
	}
	var mu sync.Mutex
	var firstErr error
	jobs := make(chan job)
	var wg sync.WaitGroup
	for range max(parallel, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				res, err := Run(base, variants[j.v], costs[j.c], uint64(j.s+1))
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
				r.Runs[j.v][j.c][j.s] = res
			}
		}()
	}
	for v := range variants {
		for c := range costs {
			for s := range seeds {
				jobs <- job{v, c, s}
			}
		}
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	return r, nil
}
