package render

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/bundle/verdict"
)

func readVerdicts(t *testing.T, dir string) []verdict.Verdict {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, bundle.VerdictsFile))
	if err != nil {
		t.Fatal(err)
	}
	var vs []verdict.Verdict
	if err := json.Unmarshal(b, &vs); err != nil {
		t.Fatal(err)
	}
	return vs
}

// hostsOf are the distinct host ids of dir's records, sorted.
func hostsOf(t *testing.T, dir string) []string {
	t.Helper()
	var hs []string
	bundle.ReadEvents(dir, func(_ int, rec bundle.EventRecord) error {
		if rec.HostID != "" && !slices.Contains(hs, rec.HostID) {
			hs = append(hs, rec.HostID)
		}
		return nil
	})
	slices.Sort(hs)
	return hs
}

// The rendered reproduction, opened from disk in chromium, shows what the
// bundle holds: a lane per host, an arrow per delivered message, every
// verdict, evidence links that find their record, lanes that hide.
func TestBrowser_Reproduction(t *testing.T) {
	dir := libraryBundle(t, "reproduction/gossip_flap")
	path, _ := renderFile(t, dir, Options{})
	ctx := wideBrowser(t)
	open(t, ctx, path, "")
	t.Logf("page open to first draw: %.0f ms", eval[float64](t, ctx, "window.detsim.loadMs"))
	s := state(t, ctx)
	hosts := hostsOf(t, dir)
	n := countTypes(t, dir)

	if s.Lanes != len(hosts) || s.Hosts != len(hosts) || !slices.Equal(s.VisibleLanes, hosts) {
		t.Errorf("lanes %v (%d of %d), want one per host %v", s.VisibleLanes, s.Lanes, s.Hosts, hosts)
	}
	if s.Mode != "arrows" || s.DrawnDelivered != n["message_received"] || s.DeliveredArrows != n["message_received"] {
		t.Errorf("mode %s, %d delivered arrows drawn (%d in the data), want the bundle's %d message_received", s.Mode, s.DrawnDelivered, s.DeliveredArrows, n["message_received"])
	}

	// Every verdict is listed, by name, in order.
	vs := readVerdicts(t, dir)
	names := eval[[]string](t, ctx, `Array.from(document.querySelectorAll("#verdicts .verdict")).map(e => e.dataset.name)`)
	var want []string
	for _, v := range vs {
		want = append(want, v.Name)
	}
	if !slices.Equal(names, want) || s.Verdicts != len(vs) {
		t.Errorf("verdicts listed %v, want %v", names, want)
	}

	// Clicking an evidence link scrolls to its record and highlights it.
	var ev string
	for _, v := range vs {
		if v.Outcome == verdict.Fail && len(v.Evidence) > 0 {
			ev = v.Evidence[0].Ref
			break
		}
	}
	line, _ := evidenceLine(ev)
	sel := fmt.Sprintf(`#verdicts a.evidence[data-line="%d"]`, line)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(sel))); err != nil {
		t.Fatalf("clicking %s: %v", sel, err)
	}
	checkHighlighted(t, ctx, dir, line)

	// The fragment #L<n> opens the page on record n.
	other := vs[len(vs)-1].Evidence[0].Ref
	line2, _ := evidenceLine(other)
	open(t, ctx, path, fmt.Sprintf("#L%d", line2))
	checkHighlighted(t, ctx, dir, line2)
	open(t, ctx, path, "")

	// Hiding a lane (its checkbox) removes every arrow to or from it.
	r, err := load(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	hide := hosts[len(hosts)-1]
	touching := 0
	for _, m := range r.msgs {
		if r.hosts[m.from] == hide || r.hosts[m.to] == hide {
			touching++
		}
	}
	before := state(t, ctx)
	box := fmt.Sprintf(`#lanes input[data-lane="%d"]`, len(hosts)-1)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(box))); err != nil {
		t.Fatal(err)
	}
	after := state(t, ctx)
	if after.Lanes != len(hosts)-1 || slices.Contains(after.VisibleLanes, hide) || after.DrawnArrows != before.DrawnArrows-touching || touching == 0 {
		t.Errorf("hiding %s: lanes %v, arrows %d → %d, want %d fewer", hide, after.VisibleLanes, before.DrawnArrows, after.DrawnArrows, touching)
	}
	eval[bool](t, ctx, fmt.Sprintf("window.detsim.hideLane(%q, false)", hide))

	// Keep only the hosts that talk to one: in a 3-mesh, all of them.
	eval[bool](t, ctx, fmt.Sprintf("window.detsim.focus(%q)", hosts[0]))
	if s := state(t, ctx); s.Lanes != len(hosts) || s.Focus == nil || *s.Focus != hosts[0] {
		t.Errorf("focus %s: lanes %v", hosts[0], s.VisibleLanes)
	}
	eval[bool](t, ctx, "window.detsim.focus(null)")

	// Jump to the next Suspect: a state_transition to suspect.
	j := eval[struct{ Line int }](t, ctx, `window.detsim.next("suspect")`)
	if txt := eventLine(t, dir, j.Line); !bytes.Contains([]byte(txt), []byte(`"to":"suspect"`)) {
		t.Errorf("next Suspect went to L%d: %s", j.Line, txt)
	}
	if s := state(t, ctx); s.Highlighted == nil || s.Highlighted.Line != j.Line {
		t.Errorf("after the jump the highlight is %+v, want L%d", s.Highlighted, j.Line)
	}

	// A screenshot at a fixed size has structure: not blank, and dark
	// label pixels left of every lane.
	eval[any](t, ctx, "window.detsim.view(0, 1e15), window.scrollTo(0, 0), 0")
	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if p := os.Getenv("DETSIM_RENDER_SCREENSHOT"); p != "" {
		os.WriteFile(p, shot, 0o666)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 1280 || b.Dy() != 900 {
		t.Errorf("screenshot %v, want 1280x900", b)
	}
	if c := colours(img, img.Bounds()); c < 12 {
		t.Errorf("screenshot has %d colours: blank or nearly", c)
	}
	rect := eval[struct{ Left, Top float64 }](t, ctx, `(() => { const r = document.getElementById("diagram").getBoundingClientRect(); return {left: r.left, top: r.top}; })()`)
	s = state(t, ctx)
	for i, y := range s.LaneY {
		area := image.Rect(int(rect.Left)+2, int(rect.Top+y)-6, int(rect.Left+s.LabelWidth)-4, int(rect.Top+y)+6)
		if dark(img, area) < 8 {
			t.Errorf("no label pixels left of lane %s (%v)", s.VisibleLanes[i], area)
		}
	}
}

func checkHighlighted(t *testing.T, ctx context.Context, dir string, line int) {
	t.Helper()
	s := state(t, ctx)
	if s.Highlighted == nil || s.Highlighted.Line != line {
		t.Errorf("highlighted %+v, want L%d", s.Highlighted, line)
	}
	row := eval[struct {
		Line    string
		Text    string
		Visible bool
	}](t, ctx, `(() => { const e = document.querySelector("#records .hl"); if (!e) return {line: "", text: "", visible: false};
		const box = document.getElementById("records");
		return {line: e.dataset.line, text: e.textContent, visible: e.offsetTop >= box.scrollTop && e.offsetTop + e.offsetHeight <= box.scrollTop + box.clientHeight}; })()`)
	want := eventLine(t, dir, line)
	if row.Line != fmt.Sprint(line) || row.Text != fmt.Sprintf("L%d%s", line, want) || !row.Visible {
		t.Errorf("highlighted row %+v, want L%d %s, scrolled into view", row, line, want)
	}
}

func colours(img image.Image, r image.Rectangle) int {
	seen := map[uint32]bool{}
	for y := r.Min.Y; y < r.Max.Y; y += 2 {
		for x := r.Min.X; x < r.Max.X; x += 2 {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			seen[cr>>11<<10|cg>>11<<5|cb>>11] = true
		}
	}
	return len(seen)
}

func dark(img image.Image, r image.Rectangle) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			if (cr+cg+cb)/3 < 0x6000 {
				n++
			}
		}
	}
	return n
}

// A page built from hostile strings runs none of them.
func TestBrowser_HostilePayloadRunsNothing(t *testing.T) {
	path, _ := renderFile(t, hostileBundle(t), Options{Title: hostile})
	ctx := browser(t)
	open(t, ctx, path, "#L3")
	got := eval[struct {
		Pwned  string
		Images int
		Lanes  []string
		Ready  bool
	}](t, ctx, `({pwned: typeof window.pwned, images: document.images.length, lanes: window.detsim.state().visibleLanes, ready: document.documentElement.dataset.ready === "1"})`)
	if got.Pwned != "undefined" || got.Images != 0 || !got.Ready {
		t.Fatalf("hostile page: %+v: injected code ran or markup was parsed", got)
	}
	if !slices.Contains(got.Lanes, `</script><img src=x onerror=window.pwned=1>`) {
		t.Errorf("lanes %q: the hostile host id must be drawn as text", got.Lanes)
	}
	// Hovering and the record panel show the strings as text too.
	eval[any](t, ctx, `window.detsim.gotoLine(3), 0`)
	if n := eval[int](t, ctx, `document.images.length + (typeof window.pwned === "undefined" ? 0 : 100)`); n != 0 {
		t.Errorf("after showing the hostile record: %d", n)
	}
}

// Compare lays two runs over the union of their lanes, each its own colour.
func TestBrowser_Compare(t *testing.T) {
	a := libraryBundle(t, "reproduction/gossip_flap")
	b := libraryBundle(t, "reproduction/gossip_flap_fixed")
	path, _ := renderFile(t, a, Options{Compare: b})
	ctx := browser(t)
	open(t, ctx, path, "")
	s := state(t, ctx)
	union := hostsOf(t, a)
	for _, h := range hostsOf(t, b) {
		if !slices.Contains(union, h) {
			union = append(union, h)
		}
	}
	na, nb := countTypes(t, a), countTypes(t, b)
	if s.Runs != 2 || s.Lanes != len(union) || s.DeliveredArrows != na["message_received"]+nb["message_received"] {
		t.Errorf("compare: %d runs, %d lanes (union %d), %d delivered (want %d)", s.Runs, s.Lanes, len(union), s.DeliveredArrows, na["message_received"]+nb["message_received"])
	}
	if len(s.DrawnPerRun) != 2 || s.DrawnPerRun[0] != na["message_sent"] || s.DrawnPerRun[1] != nb["message_sent"] {
		t.Errorf("arrows per run %v, want %d and %d", s.DrawnPerRun, na["message_sent"], nb["message_sent"])
	}
	if s.Verdicts != len(readVerdicts(t, a))+len(readVerdicts(t, b)) {
		t.Errorf("%d verdicts listed, want both runs'", s.Verdicts)
	}
	open(t, ctx, path, "#2L5")
	if s := state(t, ctx); s.Highlighted == nil || s.Highlighted.Run != 1 || s.Highlighted.Line != 5 {
		t.Errorf("#2L5 highlights %+v, want run B's L5", s.Highlighted)
	}
}

// Hovering an arrow or a mark shows its whole record; the stepper's mark
// opens the page on the marked instant.
func TestBrowser_HoverAndStepMark(t *testing.T) {
	dir := libraryBundle(t, "reproduction/gossip_flap")
	const at = 310_053_269_733
	path, _ := renderFile(t, dir, Options{Mark: true, MarkNs: at, MarkStep: 8427})
	ctx := wideBrowser(t)
	open(t, ctx, path, "")
	v := eval[struct{ View []float64 }](t, ctx, "window.detsim.state()")
	if v.View[0] > at || v.View[1] < at {
		t.Errorf("view %v does not hold the marked instant %d", v.View, int64(at))
	}
	// A narrow view at the start, where arrows stand apart.
	eval[any](t, ctx, "window.detsim.view(0, 5e8), 0")
	for _, kind := range []string{"msg", "mark"} {
		p := eval[struct {
			X, Y  float64
			Lines []int
		}](t, ctx, fmt.Sprintf("window.detsim.probe(%q)", kind))
		if err := chromedp.Do(ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, p.X, p.Y)); err != nil {
			t.Fatal(err)
		}
		tip := eval[string](t, ctx, "window.detsim.tip()")
		for _, l := range p.Lines {
			if want := fmt.Sprintf("L%d: %s", l, eventLine(t, dir, l)); !strings.Contains(tip, want) {
				t.Errorf("hovering a %s at (%.0f, %.0f): tip %q lacks %q", kind, p.X, p.Y, tip, want)
			}
		}
	}
}
