package render

import (
	"bytes"
	"image/png"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/detsim/detsim/bundle/verdict"
)

// pageHistory is window.detsim.state().history.
type pageHistory struct {
	Rows       int    `json:"rows"`
	Ops        int    `json:"ops"`
	DrawnOps   int    `json:"drawnOps"`
	Note       string `json:"note"`
	Violations []struct {
		Run    int    `json:"run"`
		Name   string `json:"name"`
		T0, T1 int64
		Ops    int `json:"ops"`
	} `json:"violations"`
}

// raftPage is what a test reads of a raft page in the browser.
type raftPage struct {
	Legend       string         `json:"legend"`
	Controls     []string       `json:"controls"`
	BandSegments map[string]int `json:"bandSegments"`
	History      *pageHistory   `json:"history"`
	Membership   int            `json:"membershipRows"`
}

// swimOnly are the legend's and toolbar's words that belong to SWIM's
// membership (its views), not to a kind without views.
var swimOnly = []string{"probe timeout", "incarnation", "membership", "suspect", "Suspect", "Dead", "refuted", "alive"}

// TestBrowser_RaftPage (issue 30 item 7): the page of raft/bug_stale_read,
// whose linearizable verdict fails, in a real chromium: no SWIM legend
// or control; each lane shaded by its raft role (a leader and followers
// at least); the commit and applied index charted; the client history
// drawn, a row per client and a bar per operation, with the failing
// verdict's window marked and exactly the operations its evidence cites
// outlined — hovering one shows its records, clicking selects its invoke.
func TestBrowser_RaftPage(t *testing.T) {
	dir := libraryBundle(t, "raft/bug_stale_read")
	var cited []int
	for _, v := range readVerdicts(t, dir) {
		if v.Kind == "linearizable" && v.Outcome == verdict.Fail {
			for _, e := range v.Evidence {
				if l, ok := evidenceLine(e.Ref); ok {
					cited = append(cited, l)
				}
			}
		}
	}
	if len(cited) == 0 {
		t.Fatalf("raft/bug_stale_read: no failing linearizable verdict to mark")
	}
	path, _ := renderFile(t, dir, Options{})
	ctx := browser(t)
	open(t, ctx, path, "")
	p := eval[raftPage](t, ctx, "window.detsim.state()")
	for _, w := range swimOnly {
		if strings.Contains(p.Legend, w) {
			t.Errorf("a raft page's legend says %q: %s", w, p.Legend)
		}
		for _, c := range p.Controls {
			if strings.Contains(c, w) {
				t.Errorf("a raft page has the control %q", c)
			}
		}
	}
	if p.Membership != 0 || eval[bool](t, ctx, `!!document.getElementById("membership") && document.body.contains(document.getElementById("membership"))`) {
		t.Errorf("a raft page draws a membership timeline (%d rows)", p.Membership)
	}
	for _, want := range []string{"raft role", "leader", "follower", "candidate", "client history", "never answered", "failing verdict"} {
		if !strings.Contains(p.Legend, want) {
			t.Errorf("legend lacks %q: %s", want, p.Legend)
		}
	}
	if p.BandSegments["leader"] == 0 || p.BandSegments["follower"] == 0 {
		t.Errorf("role bands drawn %v: want leader and follower segments", p.BandSegments)
	}
	cs := pageCharts(t, ctx)
	for _, id := range []string{"raft_commit", "raft_applied"} {
		if c, ok := cs[id]; !ok || c.Points == 0 {
			t.Errorf("chart %s: %+v, want it drawn", id, c)
		}
	}
	h := p.History
	if h == nil || h.Rows == 0 || h.Ops == 0 || h.DrawnOps != h.Ops {
		t.Fatalf("client history %+v: want every operation drawn", h)
	}
	if len(h.Violations) != 1 || h.Violations[0].Ops == 0 || h.Violations[0].T0 > h.Violations[0].T1 {
		t.Fatalf("violations %+v: want the one failing verdict's window", h.Violations)
	}
	if !strings.Contains(h.Note, "fails") {
		t.Errorf("history note %q does not name the failure", h.Note)
	}
	// Every cited line belongs to an outlined operation, and no other.
	var outlined []int
	for k := 0; ; k++ {
		op := eval[*struct {
			X, Y  float64
			Lines []int
		}](t, ctx, "window.detsim.histOp("+strconv.Itoa(k)+")")
		if op == nil {
			break
		}
		outlined = append(outlined, op.Lines...)
		if k == 0 {
			eval[any](t, ctx, `document.getElementById("history").scrollIntoView({block: "center"}), 0`)
			op = eval[*struct {
				X, Y  float64
				Lines []int
			}](t, ctx, "window.detsim.histOp(0)")
			if err := chromedp.Do(ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, op.X, op.Y)); err != nil {
				t.Fatal(err)
			}
			tip := eval[string](t, ctx, "window.detsim.tip()")
			if !strings.Contains(tip, "cited by a failing verdict") || !strings.Contains(tip, eventLine(t, dir, op.Lines[0])) {
				t.Errorf("hovering a cited operation shows %q, want its invoke L%d", tip, op.Lines[0])
			}
			if err := chromedp.Do(ctx, chromedp.MouseClickXY(op.X, op.Y)); err != nil {
				t.Fatal(err)
			}
			if s := state(t, ctx); s.Highlighted == nil || s.Highlighted.Line != op.Lines[0] {
				t.Errorf("clicking a cited operation selected %+v, want L%d", s.Highlighted, op.Lines[0])
			}
		}
	}
	if !sameSet(outlined, cited) {
		t.Errorf("outlined operations' lines %v, want the verdict's evidence %v", outlined, cited)
	}
	// "next violation" opens the window.
	eval[any](t, ctx, "window.detsim.view(0, 1e15), 0")
	v := eval[struct{ T0, T1 int64 }](t, ctx, "window.detsim.nextViolation()")
	if view := eval[[]float64](t, ctx, "window.detsim.state().view"); view[0] > float64(v.T0) || view[1] < float64(v.T1) {
		t.Errorf("next violation shows %v, want it to hold the window [%d, %d]", view, v.T0, v.T1)
	}
	// A screenshot of the history: the red window and the bars are drawn.
	eval[any](t, ctx, `document.getElementById("history").scrollIntoView({block: "center"}), 0`)
	shot, err := chromedp.Run(ctx, chromedp.Screenshot("#history", chromedp.NodeVisible))
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	if reddish(img, img.Bounds()) < 20 || colours(img, img.Bounds()) < 4 {
		t.Errorf("the history's screenshot shows no red window or no bars")
	}
}

// TestBrowser_SwimPageKeepsItsControls: the reproduction's page still
// has SWIM's legend and controls (they follow the kinds, not a default).
func TestBrowser_SwimPageKeepsItsControls(t *testing.T) {
	path, _ := renderFile(t, libraryBundle(t, "reproduction/gossip_flap"), Options{})
	ctx := browser(t)
	open(t, ctx, path, "")
	p := eval[raftPage](t, ctx, "window.detsim.state()")
	for _, w := range []string{"probe timeout", "incarnation bump", "membership", "suspect"} {
		if !strings.Contains(p.Legend, w) {
			t.Errorf("SWIM legend lacks %q", w)
		}
	}
	if !strings.Contains(strings.Join(p.Controls, "|"), "next Suspect") || p.History != nil || len(p.BandSegments) != 0 {
		t.Errorf("SWIM page: controls %v, history %v, bands %v", p.Controls, p.History, p.BandSegments)
	}
}

func sameSet(a, b []int) bool {
	m := map[int]bool{}
	for _, x := range a {
		m[x] = true
	}
	n := map[int]bool{}
	for _, x := range b {
		n[x] = true
		if !m[x] {
			return false
		}
	}
	return len(m) == len(n)
}
