package calibrate

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestW1Values_SameBitsAsMergingTheOthers holds the one-sweep W1 figures
// to the definition they replace: each seed's wasserstein1 against the
// other seeds merged, and prod's against every seed merged, bit for bit,
// with ties across sides, repeated values and seeds without samples.
func TestW1Values_SameBitsAsMergingTheOthers(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		k := 1 + rng.IntN(12)
		sims := make([]side, k)
		draw := func() []float64 {
			n := rng.IntN(30)
			if rng.IntN(5) == 0 {
				n = 0
			}
			x := make([]float64, n)
			for i := range x {
				x[i] = float64(rng.IntN(20)) * 0.37 // few distinct values: ties
			}
			slices.Sort(x)
			return x
		}
		for i := range sims {
			sims[i] = side{samples: map[string][]float64{"m": draw()}}
		}
		prod := side{samples: map[string][]float64{"m": draw()}}

		var want []float64
		var have [][]float64
		for _, s := range sims {
			if x := s.samples["m"]; len(x) > 0 {
				have = append(have, x)
			}
		}
		if len(have) >= 2 {
			for i, x := range have {
				want = append(want, wasserstein1(x, merged(slices.Concat(have[:i], have[i+1:])...)))
			}
		}
		var wantProd float64
		wantOK := false
		if p := prod.samples["m"]; len(p) > 0 && len(have) > 0 {
			wantProd, wantOK = wasserstein1(p, merged(have...)), true
		}

		got, gotProd, gotOK := w1Values("m", sims, prod)
		if len(got) != len(want) || gotOK != wantOK || math.Float64bits(gotProd) != math.Float64bits(wantProd) {
			t.Fatalf("trial %d: got %v, prod %v (%v); want %v, prod %v (%v)", trial, got, gotProd, gotOK, want, wantProd, wantOK)
		}
		for i := range got {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("trial %d seed %d: %v, want %v (bits differ)", trial, i, got[i], want[i])
			}
		}
	}
}
