package tui

import (
	"math"
	"strings"
	"testing"

	"github.com/detsim/detsim/tui/screen"
)

// linksPaneText draws the links pane alone from f, plain.
func linksPaneText(m Model, f *screen.Frame) string {
	scr := m.scr
	scr.Show(f)
	return screen.Plain(strings.Join(scr.Pane(screen.PaneLinks, nil), "\n"))
}

// The links pane holds only a window of a big mesh's edges, yet draws
// exactly what a frame holding every edge draws, at every scroll
// position, changed-marks included; scrolling past the window asks for a
// new frame.
func TestLinksPane_WindowedDrawsWhatTheWholeListDraws(t *testing.T) {
	m := newTestModel(t, meshScenario(40, 1<<40), 200, 50) // 1 560 edges
	m = drive(t, m, keys("g", "text:700ms", "enter", "n")...)
	for k := 0; k < int(screen.PaneCount) && m.scr.Focus() != screen.PaneLinks; k++ {
		m = drive(t, m, keys("tab")...)
	}
	if m.scr.Focus() != screen.PaneLinks {
		t.Fatalf("focus on %v, want links", m.scr.Focus())
	}
	total := m.frame().LinkTotal()
	if lo, hi := m.frame().LinkWindow(); total != 40*39 || hi-lo >= total/4 {
		t.Fatalf("frame holds %d of %d links", hi-lo, total)
	}
	for _, delta := range []int{0, 3, 40, 200, 1 << 20, -(1 << 20), 17} {
		m = drive(t, m, keys(func() []string {
			switch {
			case delta > 0:
				return repeat("down", min(delta, 300))
			case delta < 0:
				return repeat("up", 300)
			}
			return nil
		}()...)...)
		if !m.scr.FrameCovers() {
			t.Fatal("after scrolling, the frame does not cover the links shown")
		}
		// The same position with every link in the frame.
		vp := m.scr.ViewParams()
		vp.LinkLo, vp.LinkHi = 0, math.MaxInt32
		s := m.sess
		i := s.Timeline().Engine().Index()
		full, err := screen.Land(s, i, vp)
		if err != nil {
			t.Fatal(err)
		}
		if lo, hi := full.LinkWindow(); hi-lo != total {
			t.Fatalf("full frame holds %d links", hi-lo)
		}
		if got, want := linksPaneText(m, m.frame()), linksPaneText(m, full); got != want {
			t.Fatalf("scrolled by %d: windowed pane\n%s\nwhole list\n%s", delta, got, want)
		}
	}
}

func repeat(k string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = k
	}
	return out
}

// A checkpoint budget smaller than one checkpoint: the session runs
// without, going back still works, and the status line says why.
func TestCheckpointBudget_TooSmallIsSaidAndStillSteps(t *testing.T) {
	mem := int64(1024)
	m, err := NewModel(mesh12(t), testRegistry(), Options{Width: 160, Height: 48, CheckpointBudget: &mem})
	if err != nil {
		t.Fatal(err)
	}
	m = drive(t, m, keys("g", "text:3000", "enter", "n")...)
	want := panes(m)
	m = drive(t, m, keys("p", "n")...)
	if got := panes(m); got != want {
		t.Fatalf("after p, n without checkpoints the screen differs:\n%s\n---\n%s", got, want)
	}
	if !strings.Contains(m.status, "checkpoints off") || !strings.Contains(m.status, "--checkpoint-budget") {
		t.Fatalf("status %q does not say checkpoints are off", m.status)
	}
	if u := m.sess.Timeline().CheckpointUse(); u.Count != 0 || u.Refused <= mem {
		t.Fatalf("checkpoint use %+v", u)
	}
}

// A continue to the end stops one short and takes the last step itself
// (no re-execution); the panes are those of the last step reached any
// other way, and the status says the run ended. The same for a goto past
// the end, by step and by time.
func TestForwardToTheEnd_LandsOnTheSamePanes(t *testing.T) {
	sc := mesh12(t)
	sc.DurationNs = 4_000_000_000
	m := newTestModel(t, sc, 160, 48)
	m.bps = nil // the mesh's assertions may fail: run to the end
	m = drive(t, m, keys("c")...)
	if !m.frame().Done() || !strings.Contains(m.status, "the run ended at step "+screen.FmtInt(m.frame().Index())) {
		t.Fatalf("after c: done %v, status %q", m.frame().Done(), m.status)
	}
	last := m.frame().Index()
	want := panes(m)
	m = drive(t, m, keys("p", "n")...)
	if got := panes(m); got != want {
		t.Fatalf("p, n at the end differs from c:\n%s\n---\n%s", got, want)
	}
	for _, g := range []string{"99999999", "1000s", screen.FmtInt(last)} {
		m2 := newTestModel(t, sc, 160, 48)
		m2 = drive(t, m2, keys("g", "text:"+g, "enter")...)
		if m2.frame().Index() != last {
			t.Fatalf("g %s: at step %d, want %d (%s)", g, m2.frame().Index(), last, m2.status)
		}
		if got := panes(m2); got != want {
			t.Fatalf("g %s differs from c:\n%s\n---\n%s", g, got, want)
		}
	}
}
