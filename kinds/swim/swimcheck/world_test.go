package swimcheck

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestWorld_ViewsReadBackExactly sets views at random, most as a run
// makes them (lines growing, time moving now and then) and some as no
// run does (lines going back or repeated with another time, incarnations
// and lines too large to pack, zero lines), and reads every view back
// after each: what the checkers read and cite must be the view set,
// whichever way the world keeps it. A clone taken halfway must not see
// what the original is given after it.
func TestWorld_ViewsReadBackExactly(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 6))
	w := newWorld()
	const peers = 7
	for i := range peers {
		w.intern(fmt.Sprint("p", i))
	}
	want := map[[2]int32]view{}
	line, now := 0, int64(0)
	var snap world
	var snapWant map[[2]int32]view
	for step := range 4000 {
		if step == 2000 {
			snap, snapWant = w.clone(), maps.Clone(want)
		}
		o, s := rng.Int32N(peers), rng.Int32N(peers)
		line++
		if rng.IntN(4) == 0 {
			now += rng.Int64N(1000)
		}
		v := view{state: state(1 + rng.IntN(3)), incarnation: uint64(rng.IntN(3)), line: line, timeNs: now}
		switch rng.IntN(40) {
		case 0:
			v = view{} // a view forgotten, as a fresh life's are
		case 1:
			v.incarnation = 1<<64 - 1
		case 2:
			v.incarnation = wideInc
		case 3:
			// A line past what packs exists only where an int holds it
			// (not under GOARCH=386, where a line is 32 bits).
			if past := uint64(maxLine) + 1; past <= math.MaxInt {
				v.line = int(past)
			}
		case 4:
			v.line = 0
		case 5:
			v.line = rng.IntN(line + 1) // a line already read, its time or not
			if rng.IntN(2) == 0 {
				v.timeNs = now - rng.Int64N(now+1)
			}
		case 6:
			v.line = line + 1 + rng.IntN(10) // ahead, then the stream goes back
		}
		was := w.setView(o, s, v)
		if prev := want[[2]int32{o, s}]; was != prev.state {
			t.Fatalf("step %d: setView(%d, %d) returned %v, want %v", step, o, s, was, prev.state)
		}
		want[[2]int32{o, s}] = v
		for oo := range int32(peers) {
			for ss := range int32(peers) {
				w0 := want[[2]int32{oo, ss}]
				if got := w.view(oo, ss); got != w0 {
					t.Fatalf("step %d: view(%d, %d) = %+v, want %+v", step, oo, ss, got, w0)
				}
				peek := w0
				if _, timed := w.unpack(oo, ss); timed {
					peek.timeNs = 0
				}
				if got := w.peek(oo, ss); got != peek {
					t.Fatalf("step %d: peek(%d, %d) = %+v, want %+v", step, oo, ss, got, peek)
				}
				if got := w.mark(oo, ss); got != (mark{w0.line, w0.timeNs}) {
					t.Fatalf("step %d: mark(%d, %d) = %+v, want %+v", step, oo, ss, got, w0)
				}
			}
		}
	}
	for k, v := range snapWant {
		if got := snap.view(k[0], k[1]); got != v {
			t.Fatalf("clone: view(%d, %d) = %+v, want %+v", k[0], k[1], got, v)
		}
	}
}

// TestViewBytes gives a world every view of a thousand peers, as a
// thousand-peer run's start-up does, and fails if a view holds more than
// 12 bytes of heap: a ten-thousand-peer run holds 10⁸ of them
// (docs/BENCHMARKS.md, "Ten thousand peers"). Each was a 32-byte struct
// before they were packed.
func TestViewBytes(t *testing.T) {
	const n = 1000
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprint("node", i)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	w := newWorld()
	for _, id := range names {
		w.intern(id)
	}
	line := 0
	for o := range int32(n) {
		for s := range int32(n) {
			line++
			w.setView(o, s, view{state: alive, line: line, timeNs: int64(o) * 1000})
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := float64(after.HeapAlloc-before.HeapAlloc) / (n * n)
	t.Logf("%.1f bytes of heap a view", per)
	if per > 12 {
		t.Errorf("%.1f bytes of heap a view, want at most 12", per)
	}
	runtime.KeepAlive(&w)
}

// TestWorld_InternAfterIsIntern: the guess internAfter tries first never
// changes the index an id gets, whatever order ids come in.
func TestWorld_InternAfterIsIntern(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 7))
	a, b := newWorld(), newWorld()
	var hint int32
	for step := range 5000 {
		var id string
		switch rng.IntN(3) {
		case 0:
			id = fmt.Sprint("n", rng.IntN(50)) // at random, new ones among them
		default:
			id = fmt.Sprint("n", (int(hint)+rng.IntN(3))%60) // in runs and in order
		}
		if got, want := a.internAfter(id, &hint), b.intern(id); got != want || a.names[got] != id {
			t.Fatalf("step %d: internAfter(%q) = %d, intern = %d", step, id, got, want)
		}
	}
}
