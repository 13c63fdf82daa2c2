package debugger

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/detsim/detsim/internal/vtime"
)

// BreakKind is what a breakpoint watches.
type BreakKind uint8

// The breakpoint kinds. Each is evaluated right after a step is
// dispatched, against what that step did.
const (
	// BreakFail fires at the step whose record decided the run's first
	// assertion Fail.
	BreakFail BreakKind = iota + 1
	// BreakType fires at every step that emits a record of event type Arg.
	BreakType
	// BreakHost fires at every step dispatched to host Arg (its tick, a
	// delivery to it, its timer or its send failure).
	BreakHost
	// BreakTime fires at the first step at or after virtual time N: the
	// one that moves the clock from before N to N or later.
	BreakTime
	// BreakStep fires at step index N.
	BreakStep
)

// Breakpoint is one stop condition for continue and reverse-continue.
type Breakpoint struct {
	Kind BreakKind
	Arg  string // BreakType: event type; BreakHost: peer id
	N    int64  // BreakTime: virtual ns; BreakStep: step index
	// Off disables the breakpoint without forgetting it.
	Off bool
}

// String writes the breakpoint in the form ParseBreakpoint reads.
func (b Breakpoint) String() string {
	switch b.Kind {
	case BreakFail:
		return "fail"
	case BreakType:
		return "type=" + b.Arg
	case BreakHost:
		return "host=" + b.Arg
	case BreakTime:
		return "time=" + vtime.Seconds(b.N)
	case BreakStep:
		return "step=" + strconv.FormatInt(b.N, 10)
	}
	return "?"
}

// maxSpecLen bounds a breakpoint spec; nothing valid comes close.
const maxSpecLen = 256

// ParseBreakpoint reads a breakpoint spec: "fail" (the first assertion
// Fail), "type=T" (a record of event type T), "host=H" (a step for peer
// H), "time=12.5s" or "time=12500000000" (the first step at virtual time
// ≥ T; units ns, us, µs, ms, s, bare = ns) or "step=N" (step index N).
func ParseBreakpoint(spec string) (Breakpoint, error) {
	spec = strings.TrimSpace(spec)
	if len(spec) > maxSpecLen {
		return Breakpoint{}, fmt.Errorf("breakpoint: spec longer than %d bytes", maxSpecLen)
	}
	if spec == "fail" {
		return Breakpoint{Kind: BreakFail}, nil
	}
	key, val, ok := strings.Cut(spec, "=")
	if !ok {
		return Breakpoint{}, fmt.Errorf("breakpoint %q: want fail, type=T, host=H, time=T or step=N", spec)
	}
	key, val = strings.TrimSpace(key), strings.TrimSpace(val)
	switch key {
	case "type", "host":
		if !validName(val) {
			return Breakpoint{}, fmt.Errorf("breakpoint %q: %s must be 1-64 of [A-Za-z0-9_-]", spec, key)
		}
		if key == "type" {
			return Breakpoint{Kind: BreakType, Arg: val}, nil
		}
		return Breakpoint{Kind: BreakHost, Arg: val}, nil
	case "time":
		ns, err := ParseTime(val, "ns")
		if err != nil {
			return Breakpoint{}, fmt.Errorf("breakpoint %q: %w", spec, err)
		}
		return Breakpoint{Kind: BreakTime, N: ns}, nil
	case "step":
		n, err := strconv.ParseInt(val, 10, 64)
		if err != nil || n < 0 {
			return Breakpoint{}, fmt.Errorf("breakpoint %q: step must be a non-negative integer", spec)
		}
		return Breakpoint{Kind: BreakStep, N: n}, nil
	}
	return Breakpoint{}, fmt.Errorf("breakpoint %q: unknown kind %q (want fail, type, host, time or step)", spec, key)
}

// validName reports whether s looks like a peer id or an event type.
func validName(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

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
