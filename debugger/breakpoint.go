package debugger

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/vtime"
)

// BreakKind is what a breakpoint watches.
type BreakKind uint8

// The breakpoint kinds. Each is evaluated right after a step is
// dispatched, against what that step did.
const (
	// BreakFail fires at every step whose records decided an assertion
	// Fail: any assertion, or only the one named Arg.
	BreakFail BreakKind = iota + 1
	// BreakRecord fires at every step that emits a record matching Query:
	// conditions on the record's type, host, time, step and event fields,
	// all of which must hold for one record.
	BreakRecord
	// BreakHost fires at every step dispatched to host Arg (its tick, a
	// delivery to it, its timer or its send failure).
	BreakHost
	// BreakTime fires at the first step at or after virtual time N: the
	// one that moves the clock from before N to N or later.
	BreakTime
	// BreakStep fires at step index N.
	BreakStep
	// BreakVerdict fires at every step whose records resolved an
	// assertion (open → Pass, Fail or Inconclusive).
	BreakVerdict
)

// Breakpoint is one stop condition for continue and reverse-continue.
type Breakpoint struct {
	Kind  BreakKind
	Arg   string // BreakFail: assertion name ("" any); BreakHost: peer id
	N     int64  // BreakTime: virtual ns; BreakStep: step index
	Query Query  // BreakRecord: the record to stop at
	// Off disables the breakpoint without forgetting it.
	Off bool
}

// String writes the breakpoint in the form ParseBreakpoint reads.
func (b Breakpoint) String() string {
	switch b.Kind {
	case BreakFail:
		if b.Arg != "" {
			return "fail=" + b.Arg
		}
		return "fail"
	case BreakVerdict:
		return "verdict"
	case BreakRecord:
		return b.Query.String()
	case BreakHost:
		return "host=" + b.Arg
	case BreakTime:
		return "time=" + vtime.Seconds(b.N)
	case BreakStep:
		return "step=" + strconv.FormatInt(b.N, 10)
	}
	return "?"
}

// Equal reports whether two breakpoints are the same (Off included).
func (b Breakpoint) Equal(o Breakpoint) bool {
	return b.Kind == o.Kind && b.Arg == o.Arg && b.N == o.N && b.Off == o.Off && b.Query.Equal(o.Query)
}

// maxSpecLen bounds a breakpoint spec; nothing valid comes close.
const maxSpecLen = 256

// BreakSyntax is the one-line summary of breakpoint specs.
const BreakSyntax = "fail, fail=NAME, verdict, host=H, time=T, step=N, or record conditions ANDed: type=T host=H field=V time=T step=N (also != < <= > >=: bytes>1400)"

// ParseBreakpoint reads a breakpoint spec:
//
//   - "fail": any assertion's Fail; "fail=NAME": that assertion's;
//   - "verdict": any assertion resolved;
//   - "host=H": a step for peer H; "time=12.5s" (or 12500000000, bare =
//     ns): the first step at virtual time ≥ T; "step=N": step index N;
//   - anything else: space-separated conditions that one record must
//     meet together (BreakRecord, see ParseQuery): "type=T",
//     "type=state_transition subject=orch to=suspect", "host=H type=T",
//     "type=message_sent bytes>1400" (= != < <= > >=; numbers as the
//     stepper prints them, "bytes>1 400", too). In such a list time=T
//     and step=N are lower bounds.
//
// Names are checked against a run only by Schema.Check.
func ParseBreakpoint(spec string) (Breakpoint, error) {
	spec = strings.TrimSpace(spec)
	if len(spec) > maxSpecLen {
		return Breakpoint{}, fmt.Errorf("breakpoint: spec longer than %d bytes", maxSpecLen)
	}
	switch spec {
	case "fail":
		return Breakpoint{Kind: BreakFail}, nil
	case "verdict":
		return Breakpoint{Kind: BreakVerdict}, nil
	case "":
		return Breakpoint{}, fmt.Errorf("breakpoint: empty; want %s", BreakSyntax)
	}
	q, err := ParseQuery(spec)
	if err != nil {
		return Breakpoint{}, fmt.Errorf("breakpoint %q: %w", spec, err)
	}
	if q.Sub != "" {
		return Breakpoint{}, fmt.Errorf("breakpoint %q: %q is not key=value; want %s", spec, q.Sub, BreakSyntax)
	}
	if len(q.Conds) == 1 && q.Conds[0].Op == OpEq {
		switch c := q.Conds[0]; c.Key {
		case "fail":
			if !validName(c.Val) {
				return Breakpoint{}, fmt.Errorf("breakpoint %q: an assertion name is 1-64 of [A-Za-z0-9_-]", spec)
			}
			return Breakpoint{Kind: BreakFail, Arg: c.Val}, nil
		case "host":
			return Breakpoint{Kind: BreakHost, Arg: c.Val}, nil
		case "time":
			return Breakpoint{Kind: BreakTime, N: c.N}, nil
		case "step":
			return Breakpoint{Kind: BreakStep, N: c.N}, nil
		}
	}
	for _, c := range q.Conds {
		if c.Key == "fail" || c.Key == "verdict" {
			return Breakpoint{}, fmt.Errorf("breakpoint %q: %s stands alone, it does not combine with record conditions", spec, c.Key)
		}
	}
	return Breakpoint{Kind: BreakRecord, Query: q}, nil
}

// parseCount reads a non-negative integer, digits grouped or not
// ("18211", "18 211", "18_211", "18,211"), the way the stepper prints
// steps and records.
func parseCount(s string) (int64, error) {
	s = strings.Map(func(r rune) rune {
		if r == ' ' || r == '_' || r == ',' || r == '\u202f' || r == '\u2009' {
			return -1
		}
		return r
	}, strings.TrimSpace(s))
	if s == "" || !digits(s) {
		return 0, errors.New("not a count")
	}
	return strconv.ParseInt(s, 10, 64)
}

// ParseCount is parseCount for viewers: a step or record number as the
// stepper prints it, digits grouped or not.
func ParseCount(s string) (int64, error) { return parseCount(s) }

// validName reports whether s looks like a peer id or an event type:
// both are spelled in a peer id's letters ([A-Za-z0-9_-]{1,64}).
func validName(s string) bool { return hosts.ValidPeerID(s) }

var timeUnits = []struct {
	suffix string
	ns     uint64
}{
	{"ns", 1}, {"us", 1_000}, {"µs", 1_000}, {"ms", 1_000_000}, {"s", 1_000_000_000},
}

// errTimeSyntax is the message for anything that is not a duration.
var errTimeSyntax = errors.New("time must look like 12.5s, 250ms, 40us or 12500000000ns")

// ParseTime reads a non-negative virtual time such as "12.5s", "250ms",
// "40us" or "12500000000"; a bare number is in bareUnit ("ns" or "s").
// It is exact: decimals are read as integers, never through a float, and
// a value past the int64 range is an error.
func ParseTime(s, bareUnit string) (int64, error) {
	s = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), "+"))
	s = strings.ReplaceAll(s, "_", "")
	s = strings.ReplaceAll(s, " ", "")
	unit := uint64(0)
	for _, u := range timeUnits {
		if u.suffix == bareUnit {
			unit = u.ns
		}
	}
	// timeUnits lists "s" last, so "ms" and "ns" match before it.
	for _, u := range timeUnits {
		if strings.HasSuffix(s, u.suffix) {
			s, unit = strings.TrimSuffix(s, u.suffix), u.ns
			break
		}
	}
	if unit == 0 || s == "" {
		return 0, errTimeSyntax
	}
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" && frac == "" || !digits(whole) || !digits(frac) {
		return 0, errTimeSyntax
	}
	var w uint64
	if whole != "" {
		v, err := strconv.ParseUint(whole, 10, 64)
		if err != nil {
			return 0, errors.New("time is out of range")
		}
		w = v
	}
	hi, total := bits.Mul64(w, unit)
	if hi != 0 {
		return 0, errors.New("time is out of range")
	}
	// The fraction: only digits that still count in nanoseconds.
	scale := unit
	for i := 0; i < len(frac) && scale > 1; i++ {
		scale /= 10
		total += uint64(frac[i]-'0') * scale
		if total > math.MaxInt64 {
			return 0, errors.New("time is out of range")
		}
	}
	if total > math.MaxInt64 {
		return 0, errors.New("time is out of range")
	}
	return int64(total), nil
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// ParseUntil reads the CLI's --until: a virtual time ("12.5s", bare = ns)
// or any breakpoint spec ("step=N", "time=T"). It is one more breakpoint.
func ParseUntil(s string) (Breakpoint, error) {
	if !strings.Contains(s, "=") {
		s = "time=" + s
	}
	return ParseBreakpoint(s)
}
