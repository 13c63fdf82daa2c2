// Package numfmt is how detsim writes numbers for people on a terminal:
// digits grouped in threes, byte counts, brief durations and the clock's
// times. The stepper and the host kinds' stepper panes write with it, so
// a kind's pane reads like the rest of the screen.
package numfmt

import (
	"strconv"
	"strings"

	"github.com/detsim/detsim/internal/vtime"
)

// Time writes virtual nanoseconds as exact seconds with the digits
// grouped in threes, the way the header shows the clock: +63.412 518 204s.
func Time(ns int64) string {
	sign, sec, frac := signed(ns)
	f := strconv.FormatUint(frac+1_000_000_000, 10)[1:] // nine digits
	f = strings.TrimRight(f, "0")
	if f == "" {
		return sign + Group(strconv.FormatUint(sec, 10)) + "s"
	}
	var b strings.Builder
	for i := 0; i < len(f); i += 3 {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(f[i:min(i+3, len(f))])
	}
	return sign + Group(strconv.FormatUint(sec, 10)) + "." + b.String() + "s"
}

// Short writes virtual nanoseconds to a tenth of a millisecond, the
// precision of the stepper's log and queue columns, grouped as the clock
// is, so it reads as the clock cut short: +63.412 5s, +1 063.412 5s. It
// truncates.
func Short(ns int64) string {
	sign, sec, frac := signed(ns)
	f := strconv.FormatUint(frac/100_000+10_000, 10)[1:]
	return sign + Group(strconv.FormatUint(sec, 10)) + "." + f[:3] + " " + f[3:] + "s"
}

// signed is vtime.Split with the sign the time columns show: + or -.
func signed(ns int64) (sign string, sec, frac uint64) {
	neg, sec, frac := vtime.Split(ns)
	if neg {
		return "-", sec, frac
	}
	return "+", sec, frac
}

// Dur writes a duration briefly: 2.1s, 340ms, 12µs, 5ns. It truncates.
func Dur(ns int64) string {
	neg := ""
	u := uint64(ns)
	if ns < 0 {
		neg, u = "-", -u
	}
	switch {
	case u >= 1_000_000_000:
		return neg + strconv.FormatUint(u/1_000_000_000, 10) + "." + strconv.FormatUint(u%1_000_000_000/100_000_000, 10) + "s"
	case u >= 1_000_000:
		return neg + strconv.FormatUint(u/1_000_000, 10) + "ms"
	case u >= 1_000:
		return neg + strconv.FormatUint(u/1_000, 10) + "µs"
	}
	return neg + strconv.FormatUint(u, 10) + "ns"
}

// Bytes writes a byte count briefly: 812B, 9.8KB, 1.2MB.
func Bytes(n int64) string {
	switch {
	case n >= 1_000_000:
		return strconv.FormatInt(n/1_000_000, 10) + "." + strconv.FormatInt(n%1_000_000/100_000, 10) + "MB"
	case n >= 1_000:
		return strconv.FormatInt(n/1_000, 10) + "." + strconv.FormatInt(n%1_000/100, 10) + "KB"
	}
	return strconv.FormatInt(n, 10) + "B"
}

// Group puts a space between groups of three digits: 18 211.
func Group(s string) string {
	if len(s) <= 3 {
		return s
	}
	var b strings.Builder
	lead := len(s) % 3
	if lead > 0 {
		b.WriteString(s[:lead])
	}
	for i := lead; i < len(s); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s[i : i+3])
	}
	return b.String()
}

// Int writes n with grouped digits.
func Int(n int64) string {
	if n < 0 {
		return "-" + Group(strconv.FormatInt(-n, 10))
	}
	return Group(strconv.FormatInt(n, 10))
}

// Uint writes u with grouped digits.
func Uint(u uint64) string { return Group(strconv.FormatUint(u, 10)) }

// Fit makes s, plain text, exactly w runes wide: cut with an ellipsis
// when longer, padded with spaces when shorter (the stepper's columns;
// peer ids and state names are plain ASCII).
func Fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	r := []rune(s)
	switch {
	case len(r) > w:
		return string(r[:w-1]) + "…"
	case len(r) < w:
		return s + strings.Repeat(" ", w-len(r))
	}
	return s
}
