package screen

import "testing"

// In-flight counts are the deliveries queued on the edge at the current
// time (the queue is the truth), and a step marks changed only links whose
// own state moved: a tick, timer or delivery for host H touches only edges
// from H, or the edge that delivered to H, unless a mutation's window
// opened or closed.
func TestLinks_InFlightNowAndChangedMarks(t *testing.T) {
	s, sc := newSession(t, "reproduction/gossip_flap")
	vp := ViewParams{BandHi: len(sc.Peers), LinkHi: 1 << 30} // every link, not a window
	marked := 0
	for step := 0; step < 3000; step++ {
		f, ok, err := StepOnce(s, vp)
		if err != nil || !ok {
			t.Fatalf("step %d: %v %v", step, ok, err)
		}
		e := s.Timeline().Engine()
		want := map[[2]string]int{}
		for _, q := range e.Queue(1 << 30) {
			if q.Kind == "Deliver" && !q.Cut {
				want[[2]string{q.From, q.Host}]++
			}
		}
		for i, l := range f.links {
			if got := want[[2]string{l.From, l.To}]; l.InFlight != got {
				t.Fatalf("step %d: %s→%s in flight %d, queue holds %d", f.index, l.From, l.To, l.InFlight, got)
			}
			if !f.linkChanged[i] {
				continue
			}
			marked++
			h := f.last.Host
			switch f.last.Kind {
			case "Tick", "Timer", "Deliver", "SendFailed":
				if l.From != h && l.To != h && len(l.Active) == 0 {
					t.Fatalf("step %d (%s %s): %s→%s marked changed", f.index, f.last.Kind, h, l.From, l.To)
				}
			}
		}
	}
	if marked == 0 {
		t.Fatal("no link was ever marked changed")
	}
}
