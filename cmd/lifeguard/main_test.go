package main

import (
	"testing"

	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/scenarios"
)

// TestLifeguard_FewerFalsePositivesThanSWIM is the table's headline at
// its middle delay and one seed: with slow members, plain SWIM declares
// healthy members dead and Lifeguard at least ten times less often, and
// both still detect the real crash.
func TestLifeguard_FewerFalsePositivesThanSWIM(t *testing.T) {
	base, err := scenarios.LoadLibrary(Base, builtin.Registry())
	if err != nil {
		t.Fatal(err)
	}
	swimR, err := Run(base, Variants[0], 300_000_000, 1)
	if err != nil {
		t.Fatal(err)
	}
	lg, err := Run(base, Variants[1], 300_000_000, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("SWIM %+v\nLifeguard %+v", swimR, lg)
	if swimR.HealthyDead < 100 || lg.HealthyDead*10 > swimR.HealthyDead {
		t.Errorf("healthy members marked dead: SWIM %d, Lifeguard %d; want SWIM ≥ 100 and ≥ 10× Lifeguard", swimR.HealthyDead, lg.HealthyDead)
	}
	if swimR.HealthyAccused <= lg.HealthyAccused {
		t.Errorf("accusations of healthy members: SWIM %d, Lifeguard %d", swimR.HealthyAccused, lg.HealthyAccused)
	}
	for name, r := range map[string]Result{"SWIM": swimR, "Lifeguard": lg} {
		if r.FirstNs < 0 || r.FullNs < 0 || r.FullNs > 60_000_000_000 {
			t.Errorf("%s: crash detected after %d ns, known to every healthy member after %d ns", name, r.FirstNs, r.FullNs)
		}
	}
}

// TestLifeguard_TableIsDeterministic: the same cell twice, in parallel
// with others, gives the same numbers.
func TestLifeguard_TableIsDeterministic(t *testing.T) {
	base, err := scenarios.LoadLibrary(Base, builtin.Registry())
	if err != nil {
		t.Fatal(err)
	}
	a, err := Run(base, Variants[4], 600_000_000, 2)
	if err != nil {
		t.Fatal(err)
	}
	cells, err := Table(base, []int64{600_000_000}, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	c := cells[4][0]
	if c.First[1] != a.FirstNs || c.Full[1] != a.FullNs {
		t.Errorf("seed 2 in the table: first %d full %d; alone: %+v", c.First[1], c.Full[1], a)
	}
}
