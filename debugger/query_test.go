package debugger

import (
	"strings"
	"testing"

	"github.com/detsim/detsim/hosts/builtin"
)

// Conditions compare with = != < <= > >=, and numbers are read as the
// stepper prints them, digits grouped in threes (issue 22: "/bytes=1 430"
// found nothing).
func TestParseQuery_OperatorsAndGroupedNumbers(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Query
		err  string
	}{
		{"bytes=1 430", Query{Conds: []Cond{{Key: "bytes", Val: "1430"}}}, ""},
		{"bytes=1430", Query{Conds: []Cond{{Key: "bytes", Val: "1430"}}}, ""},
		{"bytes>1 400", Query{Conds: []Cond{{Key: "bytes", Val: "1400", Op: OpGt}}}, ""},
		{"seq>=185 517 177", Query{Conds: []Cond{{Key: "seq", Val: "185517177", Op: OpGe}}}, ""},
		{"bytes<=1 430 orch", Query{Conds: []Cond{{Key: "bytes", Val: "1430", Op: OpLe}}, Sub: "orch"}, ""},
		{"bytes=1430 123", Query{Conds: []Cond{{Key: "bytes", Val: "1430"}}, Sub: "123"}, ""}, // 1430 is no first group
		{"to!=alive", Query{Conds: []Cond{{Key: "to", Val: "alive", Op: OpNe}}}, ""},
		{"type!=message_sent", Query{Conds: []Cond{{Key: "type", Val: "message_sent", Op: OpNe}}}, ""},
		{"incarnation<3", Query{Conds: []Cond{{Key: "incarnation", Val: "3", Op: OpLt}}}, ""},
		{"entry>-1", Query{Conds: []Cond{{Key: "entry", Val: "-1", Op: OpGt}}}, ""},
		{"time<5s", Query{Conds: []Cond{{Key: "time", N: 5_000_000_000, Op: OpLt}}}, ""},
		{"time>=63.412 518 204s", Query{Conds: []Cond{{Key: "time", N: 63_412_518_204, Op: OpGe}}}, ""},
		{"step>18 211", Query{Conds: []Cond{{Key: "step", N: 18211, Op: OpGt}}}, ""},
		{"id=orch#1 430", Query{Conds: []Cond{{Key: "id", Val: "orch#1"}}, Sub: "430"}, ""},
		{"bytes=>1400", Query{}, `unknown operator "=>" in "bytes=>1400": did you mean >=?`},
		{"bytes==1", Query{}, "did you mean =?"},
		{"bytes<>1", Query{}, "did you mean !=?"},
		{"bytes≥1", Query{}, "did you mean >=?"},
		{"bytes<<1", Query{}, `unknown operator "<<"`},
		{"bytes>", Query{}, "needs a value"},
		{"type>x", Query{}, "compares with = or !="},
		{"host<a", Query{}, "compares with = or !="},
	} {
		got, err := ParseQuery(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want one containing %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || !got.Equal(tc.want) {
			t.Errorf("%q: got %+v, %v; want %+v", tc.in, got, err, tc.want)
			continue
		}
		again, err := ParseQuery(got.String())
		if err != nil || !again.Equal(got) {
			t.Errorf("%q → %q → %+v, %v: String does not round-trip", tc.in, got.String(), again, err)
		}
	}
}

func TestQueryMatch_Operators(t *testing.T) {
	line := []byte(`{"virtual_time_ns":5000,"host_id":"orch","kind_tag":"swim","event":{"type":"message_sent","peer":"sgp","message":"ping","bytes":1430,"updates":107,"id":"orch#3","seq":-2}}`)
	for q, want := range map[string]bool{
		"bytes>1400": true, "bytes>1430": false, "bytes>=1430": true, "bytes<1430": false,
		"bytes<=1430": true, "bytes!=1430": false, "bytes=1 430": true, "bytes<1 431": true,
		"bytes>1429.5": true, "bytes<1430.0001": true, "bytes=1430.0": false, // = is as written
		"updates>=107 bytes>1 000": true, "updates>107": false,
		"seq<0": true, "seq>-3": true, "seq<-2": false, "seq>=-2": true,
		"peer!=sgp": false, "peer!=fra": true, "peer>a": false, // an ordering never holds on a string
		"message!=ping": false, "type!=message_sent": false, "type!=state_transition": true,
		"host!=orch": false, "host!=sgp": true, "host!=-": true,
		"time<5000": false, "time<=5000": true, "time>4999": true, "time!=5000": false, "time=1": true,
		"step>6": true, "step<7": false, "step<=7": true,
		"colour!=red": false, // no such member: no condition on it holds
	} {
		qq, err := ParseQuery(q)
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		if got := qq.Match(line, 7, 5000); got != want {
			t.Errorf("%q on the record: %v, want %v", q, got, want)
		}
	}
}

func TestCmpDecimal(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"1", "1", 0}, {"1", "2", -1}, {"10", "9", 1}, {"007", "7", 0}, {"-1", "1", -1}, {"-2", "-10", 1},
		{"0", "-0", 0}, {"1.5", "1.50", 0}, {"1.05", "1.5", -1}, {"-1.5", "-1.25", -1}, {"0.0", "0", 0},
		{"9223372036854775808", "9223372036854775807", 1}, // beyond int64, still exact
	} {
		got, ok := cmpDecimal(c.a, c.b)
		if !ok || got != c.want {
			t.Errorf("cmpDecimal(%q, %q) = %d, %v; want %d", c.a, c.b, got, ok, c.want)
		}
	}
	for _, bad := range []string{"", "-", "1e3", "1.", ".5x", "abc"} {
		if _, ok := cmpDecimal(bad, "1"); ok {
			t.Errorf("cmpDecimal(%q): accepted", bad)
		}
	}
}

// A condition is checked against the kinds' schema as = always was: an
// ordering on a member that is not a number is refused, saying so, and a
// misspelt type, host or field gets a "did you mean".
func TestSchema_ComparisonsAndDidYouMean(t *testing.T) {
	schema := NewSchema(library(t, "reproduction/gossip_flap"), builtin.Registry())
	for spec, want := range map[string]string{
		"type=message_sent bytes>1400":             "",
		"type=message_sent bytes>1 400 peer!=orch": "",
		"bytes>=1400":                  "",
		"time<5s type=probe_timed_out": "",
		"type=message_sent peer>a":     "peer of message_sent is not a number; > compares numbers (use = or !=)",
		"subject<=orch":                "subject is not a number in any event",
		"host=orhc":                    `no host "orhc": did you mean "orch"?`,
		"type=message_sent byts=1":     `message_sent has no field "byts": did you mean "bytes"?`,
		"type=state_transitoin":        `no event type "state_transitoin": did you mean "state_transition"?`,
		"incarnatoin>3":                `no event has a field "incarnatoin": did you mean "incarnation"?`,
		"type!=message_sent peer=sgp":  "", // != names no one type: peer is some type's field
	} {
		b, err := ParseBreakpoint(spec)
		if err != nil {
			t.Fatalf("%q: %v", spec, err)
		}
		err = schema.Check(b)
		wantErr(t, spec, err, want)
	}
	if err := schema.Check(Breakpoint{Kind: BreakFail, Arg: "orch_no_flp"}); err == nil || !strings.Contains(err.Error(), `did you mean "orch_no_flap"?`) {
		t.Errorf("fail=orch_no_flp: %v", err)
	}
}

// --break-on "type=message_sent bytes>1400" (refused before issue 22)
// stops at the first step that sends a message over 1 400 bytes: the
// first such record of a linear scan of the run.
func TestBreakOn_ComparisonStopsAtTheFirstBigMessage(t *testing.T) {
	sc := library(t, "reproduction/gossip_flap")
	lines, steps, _ := allRecords(t, sc, 1<<40)
	first := int64(-1)
	for i, l := range lines {
		if q, _ := ParseQuery("type=message_sent bytes>1400"); q.Match(l, steps[i], 0) {
			first = steps[i]
			break
		}
	}
	if first < 0 {
		t.Fatal("gossip_flap sends no message over 1 400 bytes")
	}
	b, err := ParseBreakpoint("type=message_sent bytes>1 400")
	if err != nil {
		t.Fatal(err)
	}
	if err := NewSchema(sc, builtin.Registry()).Check(b); err != nil {
		t.Fatal(err)
	}
	hit := newSession(t, sc).Continue([]Breakpoint{b})
	if hit.Breakpoint == nil || hit.Step != first {
		t.Errorf("stopped at %+v, want step %d (the first message over 1 400 bytes)", hit, first)
	}
}
