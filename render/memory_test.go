package render

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// pingBundle writes a bundle of n rounds, all in the window's first
// time tile, so the per-tile caps bind however small n is: a ping a→b
// and its receive, an ack b→a refused on send every third round and
// received otherwise, a probe send (a low mark) and a probe timeout (a
// high one). Each probe has its own sequence number, so each mark its
// own label, as in a SWIM run: the string table must still not grow
// with n (it holds only the labels of the marks the page draws).
func pingBundle(t *testing.T, n int) string {
	t.Helper()
	var lines []string
	for i := range n {
		at := int64(1 + i*(30_000_000/n)) // all inside tile 0 (10 s / 256)
		l := func(dt int64, host, ev string) {
			tag := "swim"
			if strings.Contains(ev, `"drop_on_send"`) {
				tag = "engine" // the engine records drops, as a run's bundle has them
			}
			lines = append(lines, fmt.Sprintf(`{"virtual_time_ns":%d,"host_id":"%s","kind_tag":%q,"event":%s}`, at+dt, host, tag, ev))
		}
		l(0, "a", `{"type":"message_sent","peer":"b","message":"ping","bytes":21,"updates":0}`)
		l(0, "a", fmt.Sprintf(`{"type":"probe_sent","target":"b","seq":%d,"mode":"direct"}`, i))
		l(1, "b", `{"type":"message_received","peer":"a","message":"ping","bytes":21,"updates":0}`)
		l(1, "b", `{"type":"message_sent","peer":"a","message":"ack","bytes":17,"updates":0}`)
		if i%3 == 0 {
			l(1, "b", `{"type":"drop_on_send","from":"b","to":"a","reason":"buffer_full"}`)
			l(2, "a", fmt.Sprintf(`{"type":"probe_timed_out","target":"b","seq":%d,"mode":"direct"}`, i))
		} else {
			l(2, "a", `{"type":"message_received","peer":"b","message":"ack","bytes":17,"updates":0}`)
		}
	}
	dir := filepath.Join(t.TempDir(), fmt.Sprintf("ping%d", n))
	writeBundle(t, dir, lines, "[]\n")
	return dir
}

// What load holds is what the page draws — at most the caps' worth of
// arrows and marks — plus what is in flight and the string table, none
// of which grows with the run: a bundle of 4N records holds exactly as
// much as one of N. (Reading every record into memory first, as render
// once did, held a message per send and a mark per mark.) The record
// texts are left out: an events.ndjson this small is inlined whole, and
// a big one up to textBudget.
func TestLoad_HoldsWhatThePageDrawsNotTheRun(t *testing.T) {
	const n = 6000 // 12,000 messages, 2,000 refused: above the cap of one tile
	type held struct{ arrows, marks, transitions, mutations, strs, peakInFlight int }
	var got []held
	for _, rounds := range []int{n, 4 * n} {
		r, err := load(pingBundle(t, rounds), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if r.nMsgs != 2*rounds || r.nMarks != rounds+(rounds+2)/3*2 {
			t.Fatalf("%d rounds: %d messages and %d marks counted, want %d and %d", rounds, r.nMsgs, r.nMarks, 2*rounds, rounds+(rounds+2)/3*2)
		}
		h := held{len(r.msgs), len(r.marks), len(r.transKept), len(r.muts), r.strs.len(), r.peakInFlight}
		t.Logf("%d records: held %+v", r.records, h)
		if h.arrows > tiles*tileArrows || h.marks > tiles*(tileHighMarks+tileLowMarks) {
			t.Errorf("%d records: %d arrows and %d marks held, over the caps (%d, %d)", r.records, h.arrows, h.marks, tiles*tileArrows, tiles*(tileHighMarks+tileLowMarks))
		}
		// One tile, full: exactly its caps.
		if h.arrows != tileArrows || h.marks != tileHighMarks+tileLowMarks {
			t.Errorf("%d records in one tile: %d arrows, %d marks held; want the tile's caps %d and %d", r.records, h.arrows, h.marks, tileArrows, tileHighMarks+tileLowMarks)
		}
		if h.peakInFlight > 2 {
			t.Errorf("%d messages in flight at once, want at most 2", h.peakInFlight)
		}
		// Refused acks are drawn first: all of them while they fit.
		undelivered := 0
		for _, m := range r.msgs {
			if m.status != delivered {
				undelivered++
			}
		}
		if want := min(int(r.msgCount[droppedOnSend]), tileArrows); undelivered != want {
			t.Errorf("%d records: %d undelivered arrows kept, want %d", r.records, undelivered, want)
		}
		got = append(got, h)
	}
	if got[0] != got[1] {
		t.Errorf("held %+v for N records but %+v for 4N: what load holds grows with the run", got[0], got[1])
	}
}

// spread and choose are how the level of detail was first written, over
// the full lists of a tile's items (kept here as the reference): the
// reader decides each item on sight from its rank and the tile's counts.
func spread(idx []int, n int) []int {
	if len(idx) <= n {
		return idx
	}
	out := make([]int, n)
	for j := range n {
		out[j] = idx[j*len(idx)/n]
	}
	return out
}

func choose(idx []int, first func(int) bool, limit int) []int {
	if len(idx) <= limit {
		return idx
	}
	var a, b []int
	for _, i := range idx {
		if first(i) {
			a = append(a, i)
		} else {
			b = append(b, i)
		}
	}
	if len(a) >= limit {
		return spread(a, limit)
	}
	return append(a, spread(b, limit-len(a))...)
}

func TestOnGrid_IsSpread(t *testing.T) {
	for m := range 200 {
		idx := make([]int, m)
		for i := range idx {
			idx[i] = i
		}
		for n := 1; n <= 60; n++ {
			kept := spread(idx, n)
			for p := range m {
				if want := slices.Contains(kept, p); onGrid(p, m, n) != want {
					t.Fatalf("onGrid(%d, %d, %d) = %v, spread keeps it: %v", p, m, n, !want, want)
				}
			}
		}
	}
	// Big counts do not overflow: 2^40 items, or the most an int holds
	// where it is 32 bits (GOARCH=386).
	big := int(min(int64(math.MaxInt), 1<<40))
	if !onGrid(0, big, tileArrows) || onGrid(1, big, tileArrows) {
		t.Errorf("onGrid over %d items", big)
	}
}

// The running selection keeps, tile by tile, what choose and spread keep
// from the whole lists: messages (undelivered ones first) and marks.
func TestSelection_IsChoose(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		total := rng.IntN(4 * tileArrows)
		pFirst := []float64{0, 0.01, 0.3, 0.9, 1}[trial%5]
		first := make([]bool, total)
		tile := make([]int, total)
		c := &counts{}
		for i := range total {
			first[i] = rng.Float64() < pFirst
			tile[i] = rng.IntN(3)
			c.msgs[tile[i]]++
			if first[i] {
				c.undelivered[tile[i]]++
			}
		}
		var s selection
		var got []int
		for i := range total {
			if s.arrow(c, tile[i], first[i]) {
				got = append(got, i)
			}
		}
		var want []int
		for k := range 3 {
			var idx []int
			for i := range total {
				if tile[i] == k {
					idx = append(idx, i)
				}
			}
			want = append(want, choose(idx, func(i int) bool { return first[i] }, tileArrows)...)
		}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d (%d messages, p %.2f): the running selection kept %d, choose %d", trial, total, pFirst, len(got), len(want))
		}

		// Marks: high and low, each spread to its cap.
		c = &counts{}
		for i := range total {
			if first[i] {
				c.high[tile[i]]++
			} else {
				c.low[tile[i]]++
			}
		}
		s = selection{}
		got = got[:0]
		for i := range total {
			if s.mark(c, tile[i], first[i]) {
				got = append(got, i)
			}
		}
		want = want[:0]
		for k := range 3 {
			var hi, lo []int
			for i := range total {
				if tile[i] == k && first[i] {
					hi = append(hi, i)
				} else if tile[i] == k {
					lo = append(lo, i)
				}
			}
			want = append(want, spread(hi, tileHighMarks)...)
			want = append(want, spread(lo, tileLowMarks)...)
		}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: marks kept %d, spread %d", trial, len(got), len(want))
		}
	}
}

func TestStrTab_NumbersInFirstSeenOrder(t *testing.T) {
	tab := newStrTab()
	var want []string
	long := string(make([]byte, strChunk/2))
	for i := range 50_000 {
		s := fmt.Sprintf("label %d", i%20_000)
		if i%10_000 == 7 {
			s = long + s
		}
		j := tab.intern(s)
		if k := slices.Index(want, s); k >= 0 {
			if int(j) != k {
				t.Fatalf("%q numbered %d, first seen as %d", s, j, k)
			}
			continue
		}
		if int(j) != len(want) {
			t.Fatalf("new %q numbered %d, want %d", s, j, len(want))
		}
		want = append(want, s)
	}
	tab.seal()
	for i, s := range want {
		if tab.at(int32(i)) != s {
			t.Fatalf("string %d is %q, want %q", i, tab.at(int32(i)), s)
		}
		if !tab.equal(int32(i), s) {
			t.Fatalf("string %d not equal to itself", i)
		}
	}
	if _, ok := tab.find("never added"); ok {
		t.Error("find found a string never added")
	}
}
