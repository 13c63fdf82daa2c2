package calibrate

import "testing"

// BenchmarkRun_ThreeRegion3m_K10 is the goal: one pair, K = 10
// seeds, a 3-minute 3-peer scenario, under 5 s. The prod side is a sim
// bundle of the same scenario until live bundles exist.
func BenchmarkRun_ThreeRegion3m_K10(b *testing.B) {
	sc, prod := threeRegion(b, "three_region_3m", 1)
	for b.Loop() {
		if _, err := Run(sc, prod, Options{FirstSeed: 100, AllowSimProd: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRun_ThreeRegion3m_K40 is the whole-recording rule's cost
// (conformal.go): every seed judged against the others and the recording.
func BenchmarkRun_ThreeRegion3m_K40(b *testing.B) {
	sc, prod := threeRegion(b, "three_region_3m", 1)
	for b.Loop() {
		if _, err := Run(sc, prod, Options{Seeds: 40, FirstSeed: 100, AllowSimProd: true}); err != nil {
			b.Fatal(err)
		}
	}
}
