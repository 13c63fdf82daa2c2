package render

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// maxPageBytes and maxOpen are issue 13's scale budget for the
// 1000-peer bundle: a page of at most 50 MB that opens in 5 s.
const (
	maxPageBytes = 50 << 20
	maxOpen      = 5 * time.Second
)

// TestBrowser_BigBundle renders the bundle DETSIM_RENDER_BIG names (the
// 1000-peer run of docs/BENCHMARKS.md; too slow to make in every test
// run) and holds it to the scale budget: size, time to open, a density
// view when zoomed out that says what it aggregated, and arrows when
// zoomed in.
func TestBrowser_BigBundle(t *testing.T) {
	dir := os.Getenv("DETSIM_RENDER_BIG")
	if dir == "" {
		t.Skip("set DETSIM_RENDER_BIG to a big bundle, e.g. kinds/swim/bench/testdata/swim1000_60s.toml's (docs/BENCHMARKS.md)")
	}
	start := time.Now()
	path, st := renderFile(t, dir, Options{})
	t.Logf("rendered %d records in %v: %d bytes (%.1f B/record), %d of %d arrows inlined, %d marks (%d elided), %d record texts",
		st.Records, time.Since(start).Round(time.Millisecond), st.Bytes, float64(st.Bytes)/float64(st.Records), st.Arrows, st.Messages, st.Marks, st.MarksElided, st.TextsInlined)
	if st.Bytes > maxPageBytes {
		t.Errorf("page is %d bytes, over %d", st.Bytes, maxPageBytes)
	}
	ctx := wideBrowser(t)
	abs, _ := filepath.Abs(path)
	t0 := time.Now()
	open(t, ctx, path, "")
	wall := time.Since(t0)
	load := eval[float64](t, ctx, "window.detsim.loadMs")
	t.Logf("opened %s in %v (page: %.0f ms from navigation start to first draw)", abs, wall.Round(time.Millisecond), load)
	if wall > maxOpen {
		t.Errorf("opening took %v, over %v", wall, maxOpen)
	}
	s := state(t, ctx)
	if s.Mode != "density" || !strings.Contains(strings.Join(s.Notices, " "), "aggregated") {
		t.Errorf("zoomed out: mode %s, notices %q: want density, said so", s.Mode, s.Notices)
	}
	eval[any](t, ctx, fmt.Sprintf("window.detsim.view(%d, %d)", int64(30e9), int64(31e9)))
	s = state(t, ctx)
	if s.Mode != "arrows" || s.DrawnArrows == 0 {
		t.Errorf("a 1 s view: mode %s, %d arrows drawn", s.Mode, s.DrawnArrows)
	}
	t.Logf("1 s view: %d arrows drawn; notices: %q", s.DrawnArrows, s.Notices)
	if p := os.Getenv("DETSIM_RENDER_SCREENSHOT"); p != "" {
		shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err == nil {
			os.WriteFile(p, shot, 0o666)
		}
	}
	// The charts: a thousand hosts are drawn as the few largest and an
	// "all" line, every point a record; a screenshot of each type.
	eval[any](t, ctx, "window.detsim.view(0, 1e15), 0")
	cs := pageCharts(t, ctx)
	for _, id := range []string{"swim_bytes", "swim_updates", "swim_link_bytes"} {
		c := cs[id]
		if c.Points == 0 || c.Keys > chartKeys || !c.All {
			t.Errorf("chart %s: %+v, want at most %d lines and an all line", id, c, chartKeys)
		}
	}
	t.Logf("charts: %v", cs)
	for id := range cs {
		chartShot(t, ctx, id, "big_"+id)
	}
}
