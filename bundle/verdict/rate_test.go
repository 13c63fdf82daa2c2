package verdict

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/scenarios"
)

// heapInUse is the live heap after a full collection.
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestEventRate_StateIsPerTypeNotPerAssertion feeds a thousand event_rate
// assertions over one type, each with a window as long as the run and a
// max_per_window no stream reaches, a long stream of matching records.
// Kept per assertion (the old code), every assertion held every record:
// 1 000 × records × 16 bytes. Shared per type, the cost is the records
// once, a few bytes each, plus a few words per assertion.
func TestEventRate_StateIsPerTypeNotPerAssertion(t *testing.T) {
	if testing.Short() {
		t.Skip("feeds 2×10^7 records to checkers")
	}
	const assertions, records = 1000, 20_000
	as := make([]scenarios.Assertion, assertions)
	for i := range as {
		as[i] = scenarios.Assertion{Name: fmt.Sprintf("rate%d", i), Kind: "event_rate", Params: scenarios.EventRate{EventType: "probe_sent", WindowNs: int64(1) << 62, MaxPerWindow: int64(1) << 40}}
	}
	before := heapInUse()
	e, err := New(as)
	if err != nil {
		t.Fatal(err)
	}
	rec := bundle.EventRecord{HostID: "a", KindTag: "swim", Type: "probe_sent"}
	for i := range records {
		rec.VirtualTimeNs = int64(i) * 1_000_003
		e.Observe(i+1, rec)
	}
	after := heapInUse()
	retained := int64(after) - int64(before)
	oldCost := int64(assertions) * records * 16 // one 16-byte mark per record per assertion, before slack
	t.Logf("retained %d bytes after %d records through %d assertions (per-assertion windows needed at least %d)",
		retained, records, assertions, oldCost)
	if bound := oldCost / 20; retained > bound { // 16 MB: the old code needed 320 MB
		t.Errorf("evaluator retains %d bytes, want under %d", retained, bound)
	}
	vs := e.Finish(int64(records) * 1_000_003)
	if vs[0].Outcome != Pass || vs[assertions-1].Outcome != Pass {
		t.Fatalf("verdicts %s / %s: %s", vs[0].Outcome, vs[assertions-1].Outcome, vs[0].Reason)
	}
	runtime.KeepAlive(e)
}

// rateRef is event_rate judged the obvious way: every matching record
// kept, every window counted from scratch.
func rateRef(recs []bundle.EventRecord, typ string, window, maxPer int64) (Outcome, []int, string, int) {
	type m struct {
		line int
		t    int64
	}
	var seen []m
	busiest := 0
	for i, r := range recs {
		if r.Type != typ {
			continue
		}
		seen = append(seen, m{i + 1, r.VirtualTimeNs})
		var in []m
		for _, s := range seen {
			if s.t > r.VirtualTimeNs-window {
				in = append(in, s)
			}
		}
		busiest = max(busiest, len(in))
		if int64(len(in)) > maxPer {
			ev := []int{in[0].line, i + 1}
			if ev[0] == ev[1] {
				ev = ev[:1]
			}
			return Fail, ev, fmt.Sprintf("%d %s records within %s ending at %s, more than max_per_window %d",
				len(in), typ, fmtNs(window), fmtNs(r.VirtualTimeNs), maxPer), i + 1
		}
	}
	return Pass, nil, fmt.Sprintf("at most %d %s records fell within any %s, within max_per_window %d",
		busiest, typ, fmtNs(window), maxPer), 0
}

// TestEventRate_SharedLogMatchesReference checks the shared per-type log
// against rateRef on random streams: several assertions per type with
// different windows and maxima, two types, and a Clone in the middle fed
// a different continuation than the original.
func TestEventRate_SharedLogMatchesReference(t *testing.T) {
	types := []string{"a", "b", "c"}
	type rateCase struct {
		typ         string
		window, max int64
	}
	var cases []rateCase
	for _, typ := range types[:2] {
		for _, w := range []int64{1, 3, 10, 50, 1 << 62} {
			for _, mx := range []int64{0, 1, 2, 5, 40, 1 << 40} {
				cases = append(cases, rateCase{typ, w, mx})
			}
		}
	}
	as := make([]scenarios.Assertion, len(cases))
	for i, c := range cases {
		as[i] = scenarios.Assertion{Name: fmt.Sprintf("r%d", i), Kind: "event_rate",
			Params: scenarios.EventRate{EventType: c.typ, WindowNs: c.window, MaxPerWindow: c.max}}
	}
	x := uint64(0x9e3779b97f4a7c15)
	next := func(n uint64) uint64 { // xorshift: the test's own stream
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return x % n
	}
	gen := func(from int64, n int) []bundle.EventRecord {
		out := make([]bundle.EventRecord, n)
		tm := from
		for i := range out {
			if next(3) == 0 { // a third of the records share the previous instant
				tm += int64(next(8))
			}
			out[i] = bundle.EventRecord{VirtualTimeNs: tm, Type: types[next(uint64(len(types)))]}
		}
		return out
	}
	check := func(t *testing.T, e *Evaluator, recs []bundle.EventRecord, end int64) {
		t.Helper()
		st := e.Status()
		for i, v := range e.Finish(end) {
			c := cases[i]
			o, lines, reason, at := rateRef(recs, c.typ, c.window, c.max)
			if v.Outcome != o || v.Reason != reason || fmt.Sprint(evidenceLines(t, v)) != fmt.Sprint(lines) || st[i].Line != at {
				t.Fatalf("%+v: got %s %v %q at line %d, want %s %v %q at line %d",
					c, v.Outcome, evidenceLines(t, v), v.Reason, st[i].Line, o, lines, reason, at)
			}
		}
	}
	for round := range 30 {
		e, err := New(as)
		if err != nil {
			t.Fatal(err)
		}
		n := 1 + int(next(300))
		prefix := gen(0, n)
		for i, r := range prefix {
			e.Observe(i+1, r)
		}
		last := prefix[n-1].VirtualTimeNs
		c := e.Clone()
		contA, contB := gen(last, int(next(300))), gen(last, int(next(300)))
		for i, r := range contA {
			e.Observe(n+i+1, r)
		}
		for i, r := range contB {
			c.Observe(n+i+1, r)
		}
		t.Run(fmt.Sprint(round), func(t *testing.T) {
			check(t, e, append(prefix[:n:n], contA...), last+1000)
			check(t, c, append(prefix[:n:n], contB...), last+1000)
		})
	}
}

// TestEventRate_LogKeepsOnlyTheWindowsStillRead checks the log drops what
// no unresolved assertion reads: after a whole-run assertion fails, the
// log shrinks to the longest window still read (100 records here).
func TestEventRate_LogKeepsOnlyTheWindowsStillRead(t *testing.T) {
	as := []scenarios.Assertion{
		{Name: "short", Kind: "event_rate", Params: scenarios.EventRate{EventType: "x", WindowNs: int64(10), MaxPerWindow: int64(1000)}},
		{Name: "long", Kind: "event_rate", Params: scenarios.EventRate{EventType: "x", WindowNs: int64(100), MaxPerWindow: int64(1000)}},
		{Name: "whole", Kind: "event_rate", Params: scenarios.EventRate{EventType: "x", WindowNs: int64(1) << 62, MaxPerWindow: int64(5000)}},
	}
	e, err := New(as)
	if err != nil {
		t.Fatal(err)
	}
	rec := bundle.EventRecord{Type: "x"}
	for i := range 100_000 {
		rec.VirtualTimeNs = int64(i)
		e.Observe(i+1, rec)
		if i == 4000 && cap(e.world.rates[0].buf) < 4000*2 {
			t.Fatalf("at record %d the log holds %d bytes: the whole-run window needs every record", i+1, cap(e.world.rates[0].buf))
		}
	}
	if st := e.Status(); st[2].Outcome != Fail || st[2].Line != 5001 || st[0].Resolved || st[1].Resolved {
		t.Fatalf("status %+v", st)
	}
	l := &e.world.rates[0]
	if live := l.base + int64(len(l.buf)) - e.checkers[1].(*eventRate).headOff; live > 200 {
		t.Errorf("the log keeps %d bytes back to the long window's head, want ≤ 200 (100 records of 2 bytes)", live)
	}
	if cap(l.buf) > 8*200+128 || l.readers != 2 {
		t.Errorf("log buffer %d/%d bytes, %d readers: it should have shrunk to the long window", len(l.buf), cap(l.buf), l.readers)
	}
}
