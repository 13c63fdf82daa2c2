package debugger

import (
	"strings"
	"testing"
)

func TestParseBreakpoint(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want Breakpoint
		err  string
	}{
		{"fail", Breakpoint{Kind: BreakFail}, ""},
		{" fail ", Breakpoint{Kind: BreakFail}, ""},
		{"type=state_transition", Breakpoint{Kind: BreakRecord, Query: Query{Conds: []Cond{{Key: "type", Val: "state_transition"}}}}, ""},
		{"type=state_transition subject=orch to=suspect", Breakpoint{Kind: BreakRecord, Query: Query{Conds: []Cond{{Key: "type", Val: "state_transition"}, {Key: "subject", Val: "orch"}, {Key: "to", Val: "suspect"}}}}, ""},
		{"host=orch type=message_sent time=2s step=1_000", Breakpoint{Kind: BreakRecord, Query: Query{Conds: []Cond{{Key: "host", Val: "orch"}, {Key: "type", Val: "message_sent"}, {Key: "time", N: 2_000_000_000}, {Key: "step", N: 1000}}}}, ""},
		{"fail=orch_no_flap", Breakpoint{Kind: BreakFail, Arg: "orch_no_flap"}, ""},
		{"verdict", Breakpoint{Kind: BreakVerdict}, ""},
		{"step=18 211", Breakpoint{Kind: BreakStep, N: 18211}, ""}, // as the header prints it
		{"type=message_sent bytes>1 400", Breakpoint{Kind: BreakRecord, Query: Query{Conds: []Cond{{Key: "type", Val: "message_sent"}, {Key: "bytes", Val: "1400", Op: OpGt}}}}, ""},
		{"step>=5", Breakpoint{Kind: BreakRecord, Query: Query{Conds: []Cond{{Key: "step", N: 5, Op: OpGe}}}}, ""},
		{"type=message_sent bytes=>1400", Breakpoint{}, "did you mean >="},
		{"fail verdict", Breakpoint{}, "not key=value"},
		{"type=a type=b", Breakpoint{}, "given twice"},
		{"fail=x type=a", Breakpoint{}, "stands alone"},
		{"host=orch", Breakpoint{Kind: BreakHost, Arg: "orch"}, ""},
		{"time=12.5s", Breakpoint{Kind: BreakTime, N: 12_500_000_000}, ""},
		{"time=12500000000", Breakpoint{Kind: BreakTime, N: 12_500_000_000}, ""},
		{"time=250ms", Breakpoint{Kind: BreakTime, N: 250_000_000}, ""},
		{"time=40us", Breakpoint{Kind: BreakTime, N: 40_000}, ""},
		{"time=40µs", Breakpoint{Kind: BreakTime, N: 40_000}, ""},
		{"time=.5s", Breakpoint{Kind: BreakTime, N: 500_000_000}, ""},
		{"time=1.0000000009s", Breakpoint{Kind: BreakTime, N: 1_000_000_000}, ""},
		{"step=18211", Breakpoint{Kind: BreakStep, N: 18211}, ""},
		{"step=0", Breakpoint{Kind: BreakStep, N: 0}, ""},
		{"", Breakpoint{}, "want fail"},
		{"failing", Breakpoint{}, "want fail"},
		{"type=", Breakpoint{}, "needs a value"},
		{"host=a b", Breakpoint{}, "not key=value"},
		{"time=12.5", Breakpoint{}, ""}, // bare = ns: "12.5" ns is 12 ns
		{"time=-1s", Breakpoint{}, "time must look like"},
		{"time=1e9", Breakpoint{}, "time must look like"},
		{"time=s", Breakpoint{}, "time must look like"},
		{"time=99999999999s", Breakpoint{}, "out of range"},
		{"time=9223372036854775808", Breakpoint{}, "out of range"},
		{"step=-3", Breakpoint{}, "non-negative"},
		{"step=x", Breakpoint{}, "non-negative"},
		{"colour=red", Breakpoint{Kind: BreakRecord, Query: Query{Conds: []Cond{{Key: "colour", Val: "red"}}}}, ""}, // a field: Schema.Check judges it
		{strings.Repeat("x", 300), Breakpoint{}, "longer than"},
	} {
		got, err := ParseBreakpoint(tc.spec)
		if tc.spec == "time=12.5" {
			if err != nil || got.N != 12 {
				t.Errorf("%q: %+v %v, want 12 ns", tc.spec, got, err)
			}
			continue
		}
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want one containing %q", tc.spec, err, tc.err)
			}
			continue
		}
		if err != nil || !got.Equal(tc.want) {
			t.Errorf("%q: got %+v, %v; want %+v", tc.spec, got, err, tc.want)
		}
	}
}

// A breakpoint's String is a spec that parses back to it.
func TestBreakpoint_StringRoundTrips(t *testing.T) {
	for _, b := range []Breakpoint{
		{Kind: BreakFail}, {Kind: BreakFail, Arg: "a"}, {Kind: BreakVerdict}, {Kind: BreakRecord, Query: Query{Conds: []Cond{{Key: "type", Val: "message_sent"}, {Key: "peer", Val: "x"}}}}, {Kind: BreakHost, Arg: "sgp"},
		{Kind: BreakTime, N: 63_412_518_204}, {Kind: BreakTime, N: 5_000_000_000}, {Kind: BreakTime, N: 1},
		{Kind: BreakStep, N: 1_000_000},
		{Kind: BreakRecord, Query: Query{Conds: []Cond{{Key: "type", Val: "message_sent"}, {Key: "bytes", Val: "1400", Op: OpGt}, {Key: "peer", Val: "sgp", Op: OpNe}}}},
		{Kind: BreakRecord, Query: Query{Conds: []Cond{{Key: "time", N: 5_000_000_000, Op: OpLt}, {Key: "step", N: 9, Op: OpLe}}}},
	} {
		got, err := ParseBreakpoint(b.String())
		if err != nil || !got.Equal(b) {
			t.Errorf("%+v → %q → %+v, %v", b, b.String(), got, err)
		}
	}
}

func FuzzParseBreakpoint(f *testing.F) {
	for _, s := range []string{"fail", "type=x", "host=a", "time=12.5s", "time=1", "step=9", "time=.000000001s", "time=99999999999.9s", "bytes>1 430", "a!=b c<=-2.5", "time>=63.412 518 204s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		b, err := ParseBreakpoint(spec)
		if err != nil {
			return
		}
		if b.N < 0 {
			t.Fatalf("%q: negative %d", spec, b.N)
		}
		again, err := ParseBreakpoint(b.String())
		if err != nil || !again.Equal(b) {
			t.Fatalf("%q → %+v → %q → %+v, %v", spec, b, b.String(), again, err)
		}
	})
}

// --until takes a bare time or a spec; either is one breakpoint.
func TestParseUntil(t *testing.T) {
	for in, want := range map[string]Breakpoint{
		"12.5s":     {Kind: BreakTime, N: 12_500_000_000},
		"7":         {Kind: BreakTime, N: 7},
		"time=3s":   {Kind: BreakTime, N: 3_000_000_000},
		"step=1234": {Kind: BreakStep, N: 1234},
	} {
		if got, err := ParseUntil(in); err != nil || !got.Equal(want) {
			t.Errorf("%q: %+v, %v; want %+v", in, got, err, want)
		}
	}
	if _, err := ParseUntil("soon"); err == nil {
		t.Error(`"soon": no error`)
	}
}
