package render

import (
	"io"
	"os"
	"slices"
	"testing"
	"time"
)

// benchRender renders dir b.N times and reports time and output bytes
// per record (docs/BENCHMARKS.md).
func benchRender(b *testing.B, dir string, opts Options) {
	var st *Stats
	var err error
	b.ResetTimer()
	for b.Loop() {
		if st, err = Write(io.Discard, dir, opts); err != nil {
			b.Fatal(err)
		}
	}
	el := b.Elapsed() / time.Duration(b.N)
	b.ReportMetric(float64(el.Nanoseconds())/float64(st.Records), "ns/record")
	b.ReportMetric(float64(st.Bytes)/float64(st.Records), "B-out/record")
	b.ReportMetric(float64(st.Bytes), "B-out")
	b.ReportMetric(float64(st.Records), "records")
}

func BenchmarkRender_Reproduction(b *testing.B) {
	benchRender(b, libraryBundle(b, "reproduction/gossip_flap"), Options{})
}

// BenchmarkRender_Big renders the bundle DETSIM_RENDER_BIG names, with
// and without the charts (issue 22: they may add under 20 %), e.g.
//
//	go run ./cmd/detsim --batch --out /dev/shm/b1000 kinds/swim/bench/testdata/swim1000_60s.toml
//	DETSIM_RENDER_BIG=/dev/shm/b1000 go test -run '^$' -bench Render_Big -benchtime 3x -count 3 ./render
//
// On a shared machine compare the two sub-benchmarks in one run with a
// small -benchtime; BenchmarkRender_BigChartsRatio alternates them.
func BenchmarkRender_Big(b *testing.B) {
	dir := os.Getenv("DETSIM_RENDER_BIG")
	if dir == "" {
		b.Skip("set DETSIM_RENDER_BIG to a bundle (docs/BENCHMARKS.md)")
	}
	b.Run("charts", func(b *testing.B) { benchRender(b, dir, Options{}) })
	b.Run("nocharts", func(b *testing.B) { benchRender(b, dir, Options{NoCharts: true}) })
}

// BenchmarkRender_BigChartsRatio renders DETSIM_RENDER_BIG with and
// without the charts in turn, b.N pairs, and reports the median of the
// pairs' time ratios and the page-size ratio: a noisy machine loads both
// halves of a pair alike.
//
//	DETSIM_RENDER_BIG=/dev/shm/b1000 go test -run '^$' -bench Render_BigChartsRatio -benchtime 5x ./render
func BenchmarkRender_BigChartsRatio(b *testing.B) {
	dir := os.Getenv("DETSIM_RENDER_BIG")
	if dir == "" {
		b.Skip("set DETSIM_RENDER_BIG to a bundle (docs/BENCHMARKS.md)")
	}
	var ratios []float64
	var size float64
	for b.Loop() {
		var st [2]*Stats
		var el [2]time.Duration
		for i, opts := range []Options{{}, {NoCharts: true}} {
			start := time.Now()
			s, err := Write(io.Discard, dir, opts)
			if err != nil {
				b.Fatal(err)
			}
			st[i], el[i] = s, time.Since(start)
		}
		ratios = append(ratios, float64(el[0])/float64(el[1]))
		size = float64(st[0].Bytes) / float64(st[1].Bytes)
	}
	slices.Sort(ratios)
	b.ReportMetric(ratios[len(ratios)/2], "time-ratio")
	b.ReportMetric(size, "size-ratio")
}
