package tui

import (
	"math"
	"strings"
	"testing"
)

// linksPaneText draws the links pane alone from f, plain.
func linksPaneText(m Model, f *frame) string {
	return plain(strings.Join(m.links.View(&drawCtx{f: f, st: m.st}), "\n"))
}

// The links pane holds only a window of a big mesh's edges, yet draws
// exactly what a frame holding every edge draws, at every scroll
// position, changed-marks included; scrolling past the window asks for a
// new frame.
func TestLinksPane_WindowedDrawsWhatTheWholeListDraws(t *testing.T) {
	m := newTestModel(t, meshScenario(40, 1<<40), 200, 50) // 1 560 edges
	m = drive(t, m, keys("g", "text:700ms", "enter", "n")...)
	for k := 0; k < int(paneCount) && m.focus != paneLinks; k++ {
		m = drive(t, m, keys("tab")...)
	}
	if m.focus != paneLinks {
		t.Fatalf("focus on %v, want links", m.focus)
	}
	total := m.fr.linkTotal
	if total != 40*39 || len(m.fr.links) >= total/4 {
		t.Fatalf("frame holds %d of %d links", len(m.fr.links), total)
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
		if !m.frameCovers() {
			t.Fatal("after scrolling, the frame does not cover the links shown")
		}
		// The same position with every link in the frame.
		vp := m.viewParams()
		vp.linkLo, vp.linkHi = 0, math.MaxInt32
		s := m.sess
		i := s.Timeline().Engine().Index()
		full, err := land(s, i, vp)
		if err != nil {
			t.Fatal(err)
		}
		if len(full.links) != total {
			t.Fatalf("full frame holds %d links", len(full.links))
		}
		if got, want := linksPaneText(m, m.fr), linksPaneText(m, full); got != want {
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
	m, err := NewModel(mesh12(t), testRegistry(), Options{Width: 160, Height: 48, CheckpointMem: &mem})
	if err != nil {
		t.Fatal(err)
	}
	m = drive(t, m, keys("g", "text:3000", "enter", "n")...)
	want := panes(m)
	m = drive(t, m, keys("p", "n")...)
	if got := panes(m); got != want {
		t.Fatalf("after p, n without checkpoints the screen differs:\n%s\n---\n%s", got, want)
	}
	if !strings.Contains(m.status, "checkpoints off") || !strings.Contains(m.status, "--checkpoint-mem") {
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
	if !m.fr.done || !strings.Contains(m.status, "the run ended at step "+fmtInt(m.fr.index)) {
		t.Fatalf("after c: done %v, status %q", m.fr.done, m.status)
	}
	last := m.fr.index
	want := panes(m)
	m = drive(t, m, keys("p", "n")...)
	if got := panes(m); got != want {
		t.Fatalf("p, n at the end differs from c:\n%s\n---\n%s", got, want)
	}
	for _, g := range []string{"99999999", "1000s", itoa(int(last))} {
		m2 := newTestModel(t, sc, 160, 48)
		m2 = drive(t, m2, keys("g", "text:"+g, "enter")...)
		if m2.fr.index != last {
			t.Fatalf("g %s: at step %d, want %d (%s)", g, m2.fr.index, last, m2.status)
		}
		if got := panes(m2); got != want {
			t.Fatalf("g %s differs from c:\n%s\n---\n%s", g, got, want)
		}
	}
}
