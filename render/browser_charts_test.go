package render

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/detsim/detsim/bundle"
)

// pageChart is one entry of window.detsim.state().charts.
type pageChart struct {
	ID     string  `json:"id"`
	Title  string  `json:"title"`
	Keys   int     `json:"keys"`
	All    bool    `json:"all"`
	Points int     `json:"points"`
	Limit  []int64 `json:"limit"`
	Linked int     `json:"linked"`
}

func pageCharts(t *testing.T, ctx context.Context) map[string]pageChart {
	t.Helper()
	list := eval[[]pageChart](t, ctx, "window.detsim.state().charts")
	out := map[string]pageChart{}
	for _, c := range list {
		out[c.ID] = c
	}
	return out
}

// chartPoint is window.detsim.chartPoint(id): where the chart's largest
// point is, its record, and the tooltip it shows.
type chartPoint struct {
	X, Y float64
	Line int
	Run  int
	Text string
}

// maxOf is the largest value of member field over dir's records of type
// typ, and the first line holding it.
func maxOf(t *testing.T, dir, typ, field string) (int64, int) {
	t.Helper()
	var best int64 = -1
	line := 0
	if err := bundle.ReadEvents(dir, func(l int, rec bundle.EventRecord) error {
		if rec.Type != typ {
			return nil
		}
		if v, ok := memberInt(rec.Event, field); ok && v > best {
			best, line = v, l
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return best, line
}

// The reproduction's page charts what grows in the flap, from the swim
// kind's declared series, one time axis with the diagram: message size
// (largest and median) against ping_within_budget's limit, piggybacked
// updates, suspicions, refutations, incarnation, bytes per second on each
// link against its bandwidth, drops, and the broadcast queue from the
// snapshots. Every point is a record: hovering shows its values and text,
// clicking selects it. One screenshot per chart type (max/median, count,
// last, rate) shows it drawn: colours, and the threshold's red.
func TestBrowser_ChartsOnTheReproduction(t *testing.T) {
	dir := libraryBundle(t, "reproduction/gossip_flap")
	path, _ := renderFile(t, dir, Options{})
	ctx := wideBrowser(t)
	open(t, ctx, path, "")
	cs := pageCharts(t, ctx)
	for _, id := range []string{"swim_bytes", "swim_updates", "swim_suspicions", "swim_refutations", "swim_incarnation", "swim_link_bytes", "swim_queue"} {
		c, ok := cs[id]
		if !ok || c.Points == 0 {
			t.Errorf("chart %s: %+v, want it drawn with points (charts: %v)", id, c, cs)
		}
	}
	if c := cs["swim_bytes"]; c.Keys != 3 || c.All || c.Linked != c.Points {
		t.Errorf("message size: %+v: want a line per host, every point a record", c)
	}
	if c := cs["swim_link_bytes"]; c.Keys != 6 {
		t.Errorf("link bytes: %d links, want the mesh's 6", c.Keys)
	}
	// The threshold is the size assertion's max_bytes.
	limit := int64(-1)
	for _, v := range readVerdicts(t, dir) {
		if v.Kind == "message_size_bounded" {
			limit = max(limit, int64(v.Parameters["max_bytes"].(float64)))
		}
	}
	if c := cs["swim_bytes"]; limit < 0 || len(c.Limit) != 1 || c.Limit[0] != limit {
		t.Errorf("message size limit %v, want message_size_bounded's max_bytes %d", c.Limit, limit)
	}

	// The largest point of message size is the largest message sent,
	// and hovering it shows that record; clicking selects it.
	big, _ := maxOf(t, dir, "message_sent", "bytes")
	for _, id := range []string{"swim_bytes", "swim_suspicions", "swim_incarnation", "swim_link_bytes"} {
		eval[any](t, ctx, fmt.Sprintf(`document.querySelector('canvas[data-chart=%q]').scrollIntoView({block: "center"}), 0`, id))
		p := eval[chartPoint](t, ctx, fmt.Sprintf("window.detsim.chartPoint(%q)", id))
		if p.Line <= 0 {
			t.Fatalf("%s: largest point %+v has no record", id, p)
		}
		if err := chromedp.Do(ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, p.X, p.Y)); err != nil {
			t.Fatal(err)
		}
		tip := eval[string](t, ctx, "window.detsim.tip()")
		rec := eventLine(t, dir, p.Line)
		if !strings.Contains(tip, fmt.Sprintf("L%d: %s", p.Line, rec)) || !strings.Contains(tip, cs[id].Title) {
			t.Errorf("%s: hovering its largest point shows %q, want its title and L%d's text", id, tip, p.Line)
		}
		if id == "swim_bytes" {
			if !strings.Contains(rec, fmt.Sprintf(`"bytes":%d,`, big)) || !strings.Contains(tip, "largest "+groupJS(big)+" B") {
				t.Errorf("message size's largest point is L%d %s (%q), want the largest message, %d bytes", p.Line, rec, tip, big)
			}
		}
		if err := chromedp.Do(ctx, chromedp.MouseClickXY(p.X, p.Y)); err != nil {
			t.Fatal(err)
		}
		if s := state(t, ctx); s.Highlighted == nil || s.Highlighted.Line != p.Line {
			t.Errorf("%s: clicking its point selected %+v, want L%d", id, s.Highlighted, p.Line)
		}
	}

	// The legend explains every colour the page draws.
	leg := eval[string](t, ctx, "window.detsim.state().legend")
	for _, want := range []string{"ping", "ack", "probe timeout", "incarnation bump", "drop", "mutation", "alive", "suspect", "dead", "median", "threshold", "bandwidth", "all hosts"} {
		if !strings.Contains(leg, want) {
			t.Errorf("legend lacks %q: %s", want, leg)
		}
	}

	// A screenshot of each chart type: drawn in colour, the size chart
	// with its red threshold line.
	eval[any](t, ctx, "window.detsim.view(0, 1e15), 0")
	for _, id := range []string{"swim_bytes", "swim_suspicions", "swim_incarnation", "swim_link_bytes"} {
		shot := chartShot(t, ctx, id, id)
		img, err := png.Decode(bytes.NewReader(shot))
		if err != nil {
			t.Fatal(err)
		}
		if c := colours(img, img.Bounds()); c < 4 {
			t.Errorf("%s: screenshot has %d colours: nothing drawn", id, c)
		}
		if id == "swim_bytes" && reddish(img, img.Bounds()) < 20 {
			t.Errorf("%s: no threshold line in the screenshot", id)
		}
	}
}

// groupJS is n as the page writes it (toLocaleString("en-US")).
func groupJS(n int64) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// reddish counts the pixels of the threshold's red (#cf222e).
func reddish(img image.Image, r image.Rectangle) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			if cr>>8 > 170 && cg>>8 < 90 && cb>>8 < 90 {
				n++
			}
		}
	}
	return n
}

// chartShot screenshots chart id's canvas, saving it as name.png in
// DETSIM_RENDER_SCREENSHOT_DIR when that is set.
func chartShot(t *testing.T, ctx context.Context, id, name string) []byte {
	t.Helper()
	sel := chromedp.CSS(fmt.Sprintf(`canvas[data-chart=%q]`, id))
	if err := chromedp.Do(ctx, chromedp.ScrollIntoView(sel)); err != nil {
		t.Fatalf("%s: scrolling to it: %v", id, err)
	}
	shot, err := chromedp.Run(ctx, chromedp.Screenshot(sel, chromedp.NodeVisible))
	if err != nil {
		t.Fatalf("%s: screenshot: %v", id, err)
	}
	if d := os.Getenv("DETSIM_RENDER_SCREENSHOT_DIR"); d != "" {
		os.WriteFile(filepath.Join(d, name+".png"), shot, 0o666)
	}
	return shot
}

// Each kind's page explains only what it draws (issue 33): a raft or an
// agent run's page holds no swim chart, no membership and no probe or
// incarnation legend, and a swim run's no raft or agent chart; the
// swim page still explains its own. Before, every page drew every
// kind's charts that matched a record type (a swim page drew raft's
// "message size" and "link bytes per second") and the legend named
// swim's marks and states on every page.
func TestBrowser_EachKindsPageShowsOnlyItsOwn(t *testing.T) {
	ctx := browser(t)
	swimOnly := []string{"probe timeout", "incarnation bump", "view turned suspect", "membership", "probe sent", "probe acked", "Membership"}
	for _, c := range []struct {
		scenario, prefix  string
		legend, notLegend []string
	}{
		{"reproduction/gossip_flap", "swim_", swimOnly, nil},
		{"raft/leader_isolation", "raft_", nil, swimOnly},
		{"agent/rate_limit", "agent_", nil, swimOnly},
	} {
		dir := libraryBundle(t, c.scenario)
		path, _ := renderFile(t, dir, Options{})
		open(t, ctx, path, "")
		cs := pageCharts(t, ctx)
		own := 0
		for id := range cs {
			switch {
			case strings.HasPrefix(id, c.prefix):
				own++
			case strings.HasPrefix(id, "engine_"), c.prefix == "agent_" && (strings.HasPrefix(id, "provider_") || strings.HasPrefix(id, "tool_")):
			default:
				t.Errorf("%s: the page draws %s, another kind's chart", c.scenario, id)
			}
		}
		if own == 0 {
			t.Errorf("%s: the page draws none of its kind's charts: %v", c.scenario, cs)
		}
		text := eval[string](t, ctx, "window.detsim.state().legend + ' ' + document.body.innerText")
		for _, w := range c.legend {
			if !strings.Contains(text, w) {
				t.Errorf("%s: the page lacks %q", c.scenario, w)
			}
		}
		for _, w := range c.notLegend {
			if strings.Contains(text, w) {
				t.Errorf("%s: the page says %q, of another kind", c.scenario, w)
			}
		}
		for _, id := range []string{"nextsuspect", "nextdead", "nextinc"} {
			has := eval[bool](t, ctx, fmt.Sprintf("!!document.getElementById(%q)", id))
			if want := c.prefix == "swim_"; has != want {
				t.Errorf("%s: button #%s present %v, want %v", c.scenario, id, has, want)
			}
		}
	}
}
