package debugger

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/detsim/detsim/hosts/builtin"
)

func TestParseWatch(t *testing.T) {
	for spec, want := range map[string]string{
		"host=fra member=orch field=state": "",
		"field=incarnation host=orch":      "",
		"hots=fra field=state":             `no key "hots": did you mean "host"?`,
		"host=fra":                         "want host=H field=F",
		"host!=fra field=state":            "host takes =, not !=",
		"host=fra host=sgp field=state":    "host given twice",
		"host=fra field=state orch":        `"orch" is not key=value`,
		"host=fra field=st\"ate":           "1-64 of",
	} {
		_, err := ParseWatch(spec)
		wantErr(t, spec, err, want)
	}
}

// A watch names a host, a member and a field the run has, checked like a
// breakpoint, with a "did you mean" for each (issue 22, "Bad input").
func TestCheckWatch_NamesAgainstTheKind(t *testing.T) {
	schema := NewSchema(library(t, "reproduction/gossip_flap"), builtin.Registry())
	for spec, want := range map[string]string{
		"host=fra member=orch field=state":       "",
		"host=fra member=orch field=incarnation": "",
		"host=orch field=incarnation":            "",
		"host=fr member=orch field=state":        `no host "fr": did you mean "fra"?`,
		"host=fra member=orhc field=state":       `no member "orhc": did you mean "orch"?`,
		"host=fra member=orch field=stat":        `has no field "stat": did you mean "state"?`,
		"host=fra field=state":                   "add member=M",
	} {
		w, err := ParseWatch(spec)
		if err == nil {
			err = schema.CheckWatch(&w)
		}
		wantErr(t, spec, err, want)
	}
}

// change is one change of a watched value found by reading every record.
type change struct {
	line     int64
	old, new string
}

// linearChanges reads a run's records in order and lists every change of
// fra's view of orch's state: the reference the watch is held to.
func linearChanges(lines [][]byte) []change {
	var out []change
	cur, seen := "", false
	for i, l := range lines {
		p := l
		if !strings.Contains(string(p), `"type":"state_transition","observer":"fra","subject":"orch"`) {
			continue
		}
		raw, _ := member(p, "to")
		v := strings.Trim(string(raw), `"`)
		if seen && v == cur {
			continue
		}
		out = append(out, change{int64(i + 1), cur, v})
		cur, seen = v, true
	}
	return out
}

// The watch's changes, fed record by record (--batch --watch) or found
// from any record forward and backward (the stepper's } and {), are
// exactly the changes a reading of every record finds.
func TestWatch_ChangesEqualALinearScan(t *testing.T) {
	sc := library(t, "reproduction/gossip_flap")
	lines, steps, _ := allRecords(t, sc, 1<<40)
	want := linearChanges(lines)
	if len(want) < 4 {
		t.Fatalf("fra's view of orch changes %d times in the reproduction: the test wants a few", len(want))
	}
	w, err := ParseWatch("host=fra member=orch field=state")
	if err != nil {
		t.Fatal(err)
	}
	if err := NewSchema(sc, builtin.Registry()).CheckWatch(&w); err != nil {
		t.Fatal(err)
	}
	// Fed record by record.
	var got []change
	tw := NewWatcher(w)
	for i, l := range lines {
		if c, ok := tw.Feed(int64(i+1), steps[i], 0, l); ok {
			got = append(got, change{c.Line, c.Old, c.New})
			if c.Step != steps[i] {
				t.Errorf("change at L%d: step %d, want %d", c.Line, c.Step, steps[i])
			}
		}
	}
	if len(got) != len(want) {
		t.Fatalf("fed: %d changes, want %d:\n%v\n%v", len(got), len(want), got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("fed: change %d is %+v, want %+v", i, got[i], want[i])
		}
	}
	// Jumps from random records, forward and backward, over a run longer
	// than the record cache (backward re-executes).
	s := newSession(t, sc)
	next := func(from int64) change {
		for _, c := range want {
			if c.line > from {
				return c
			}
		}
		return change{}
	}
	prev := func(from int64) change {
		var p change
		for _, c := range want {
			if c.line < from {
				p = c
			}
		}
		return p
	}
	rnd := rand.New(rand.NewPCG(22, 3))
	froms := []int64{1, want[0].line, want[0].line - 1, want[len(want)-1].line, int64(len(lines))}
	for range 10 {
		froms = append(froms, 1+rnd.Int64N(int64(len(lines))))
	}
	for _, from := range froms {
		for _, fwd := range []bool{true, false} {
			var st WatchState
			c, done, err := s.WatchChange(w, from, fwd, &st, nil)
			if err != nil || !done {
				t.Fatalf("from L%d: %v, done %v", from, err, done)
			}
			exp := next(from)
			if !fwd {
				exp = prev(from)
			}
			if (change{c.Line, c.Old, c.New}) != exp {
				t.Errorf("from L%d forward=%v: %+v, want %+v", from, fwd, c, exp)
			}
		}
	}
}
