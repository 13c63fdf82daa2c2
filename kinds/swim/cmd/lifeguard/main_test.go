package main

import (
	"bytes"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/aymanbagabas/go-udiff"

	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/internal/docblock"
	"github.com/detsim/detsim/scenarios"
)

// sampleCost is the delay the tests run: one where plain SWIM's slow
// members accuse healthy members over a thousand times a run.
const sampleCost = 300_000_000

var sample struct {
	once sync.Once
	base *scenarios.Scenario
	rep  *Report
	err  error
}

// sampleReport is SWIM and Lifeguard at sampleCost under the default
// seeds (ten runs, a few seconds), shared by the tests that read it.
// Under -short they skip: ten runs are a minute on a loaded machine.
func sampleReport(t *testing.T) (*scenarios.Scenario, *Report) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the sample sweeps SWIM and Lifeguard over ten seeds")
	}
	sample.once.Do(func() {
		sample.base, sample.err = scenarios.LoadLibrary(Base, builtin.Registry())
		if sample.err == nil {
			sample.rep, sample.err = Sweep(sample.base, Variants[:2], []int64{sampleCost}, DefaultSeeds, 2)
		}
	})
	if sample.err != nil {
		t.Fatal(sample.err)
	}
	return sample.base, sample.rep
}

// TestLifeguard_FewerFalsePositivesThanSWIM is the tables' headline at
// one delay: on every seed, plain SWIM's slow members accuse healthy
// members and declare them dead hundreds of times; Lifeguard's accuse
// at least five times less often and declare none dead; and both
// protocols still detect the real crash, everywhere, within a minute.
func TestLifeguard_FewerFalsePositivesThanSWIM(t *testing.T) {
	_, rep := sampleReport(t)
	for s := range rep.Seeds {
		sw, lg := rep.Runs[0][0][s], rep.Runs[1][0][s]
		t.Logf("seed %d\nSWIM      %+v\nLifeguard %+v", s+1, sw, lg)
		swAcc, lgAcc := sw.Views[Healthy][Slow].Accused, lg.Views[Healthy][Slow].Accused
		if swAcc < 100 || lgAcc*5 > swAcc {
			t.Errorf("seed %d: accusations of healthy members by slow members: SWIM %d, Lifeguard %d; want SWIM ≥ 100 and ≥ 5× Lifeguard", s+1, swAcc, lgAcc)
		}
		if sw.Views[Healthy][Slow].Dead < 100 || lg.Views[Healthy][Slow].Dead != 0 {
			t.Errorf("seed %d: healthy members dead in slow members' views: SWIM %d, Lifeguard %d; want ≥ 100 and 0",
				s+1, sw.Views[Healthy][Slow].Dead, lg.Views[Healthy][Slow].Dead)
		}
		for name, r := range map[string]Result{"SWIM": sw, "Lifeguard": lg} {
			if r.FirstNs < 0 || r.FullNs < 0 || r.FullNs > 60_000_000_000 {
				t.Errorf("seed %d, %s: crash detected after %d ns, known to every healthy member after %d ns", s+1, name, r.FirstNs, r.FullNs)
			}
		}
	}
}

// TestSweep_SameAsARunAlone: a run inside a parallel sweep gives exactly
// what it gives alone, so -parallel cannot change the tables.
func TestSweep_SameAsARunAlone(t *testing.T) {
	base, rep := sampleReport(t)
	alone, err := Run(base, Variants[1], sampleCost, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got := rep.Runs[1][0][1]; got != alone {
		t.Errorf("Lifeguard, seed 2, in the sweep:\n%+v\nalone:\n%+v", got, alone)
	}
}

// TestDoc_HoldsTheCommandsOutput keeps docs/lifeguard.md and the command
// in step without the full sweep (minutes; `go run ./kinds/swim/cmd/lifeguard
// -check docs/lifeguard.md` runs that): the doc's block must have
// exactly the default output's text, tables, rows and columns, and its
// cells for SWIM and Lifeguard at the sample delay must be this run's.
func TestDoc_HoldsTheCommandsOutput(t *testing.T) {
	doc, err := os.ReadFile("../../../../docs/lifeguard.md")
	if err != nil {
		t.Fatal(err)
	}
	block, err := docblock.Block(string(doc), Command)
	if err != nil {
		t.Fatal(err)
	}
	base, rep := sampleReport(t)
	costs, err := ParseCosts(DefaultCosts)
	if err != nil {
		t.Fatal(err)
	}
	// The default report's shape, every run empty: its text outside the
	// cells is the command's.
	shape := &Report{Setup: SetupOf(base), Variants: Variants, Costs: costs, Seeds: DefaultSeeds, Runs: make([][][]Result, len(Variants))}
	for v := range shape.Runs {
		shape.Runs[v] = make([][]Result, len(costs))
	}
	var want bytes.Buffer
	Write(&want, shape)
	if got, want := blankCells(block), blankCells(want.String()); got != want {
		t.Errorf("docs/lifeguard.md's block is not the default output's shape (cells blanked; - the doc, + the command); regenerate it with go run ./kinds/swim/cmd/lifeguard\n%s",
			udiff.Unified("docs/lifeguard.md", "go run ./kinds/swim/cmd/lifeguard", got, want))
	}
	var part bytes.Buffer
	Write(&part, rep)
	inDoc := cells(block)
	n := 0
	for k, v := range cells(part.String()) {
		n++
		if inDoc[k] != v {
			t.Errorf("%s: the doc says %q, this run %q; regenerate it with go run ./kinds/swim/cmd/lifeguard", k, inDoc[k], v)
		}
	}
	if n < 20 {
		t.Errorf("compared only %d cells", n)
	}
}

// blankCells replaces every table body cell after the first column with
// "·", keeping headers, separators, row labels and the text around.
func blankCells(s string) string {
	lines := strings.Split(s, "\n")
	header := true
	for i, l := range lines {
		switch {
		case !strings.HasPrefix(l, "|"):
			header = true
		case header || strings.HasPrefix(l, "|--"):
			header = false
		default:
			f := strings.Split(l, "|")
			for j := 2; j < len(f)-1; j++ {
				f[j] = " · "
			}
			lines[i] = strings.Join(f, "|")
		}
	}
	return strings.Join(lines, "\n")
}

// cells maps "table / row / column" to each body cell of the markdown.
func cells(s string) map[string]string {
	out := map[string]string{}
	var title string
	var cols []string
	for _, l := range strings.Split(s, "\n") {
		switch {
		case strings.HasPrefix(l, "### "):
			title, cols = strings.TrimPrefix(l, "### "), nil
		case !strings.HasPrefix(l, "|"):
			cols = nil
		case cols == nil:
			cols = split(l)
		case strings.HasPrefix(l, "|--"):
		default:
			f := split(l)
			for j := 1; j < len(f) && j < len(cols); j++ {
				out[title+" / "+f[0]+" / "+cols[j]] = f[j]
			}
		}
	}
	return out
}

func split(row string) []string {
	f := strings.Split(strings.Trim(row, "|"), "|")
	for i := range f {
		f[i] = strings.TrimSpace(f[i])
	}
	return f
}

// TestRun_RefusesBadFlags before any run starts.
func TestRun_RefusesBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-costs", "100,x"}, {"-costs", "0"}, {"-seeds", "0"}, {"-nope"}} {
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != 2 || stdout.Len() != 0 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, stdout.String(), stderr.String())
		}
	}
}

// BenchmarkRun is one cell-seed of the tables: 100 members for 300
// virtual seconds, SWIM and Lifeguard at the sample delay. The default
// sweep is 210 of these (docs/lifeguard.md, "Cost").
func BenchmarkRun(b *testing.B) {
	base, err := scenarios.LoadLibrary(Base, builtin.Registry())
	if err != nil {
		b.Fatal(err)
	}
	for _, v := range Variants[:2] {
		b.Run(v.Name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Run(base, v, sampleCost, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
