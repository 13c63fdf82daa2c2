package render

import (
	"io"
	"os"
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
//	go run ./cmd/detsim --batch --out /dev/shm/b1000 bench/testdata/swim1000_60s.toml
//	DETSIM_RENDER_BIG=/dev/shm/b1000 go test -run '^$' -bench Render_Big -benchtime 3x -count 3 ./render
//
// Sub-benchmarks alternate within each -count round, so a noisy machine
// loads both alike: compare them round by round.
func BenchmarkRender_Big(b *testing.B) {
	dir := os.Getenv("DETSIM_RENDER_BIG")
	if dir == "" {
		b.Skip("set DETSIM_RENDER_BIG to a bundle (docs/BENCHMARKS.md)")
	}
	b.Run("charts", func(b *testing.B) { benchRender(b, dir, Options{}) })
	b.Run("nocharts", func(b *testing.B) { benchRender(b, dir, Options{NoCharts: true}) })
}
