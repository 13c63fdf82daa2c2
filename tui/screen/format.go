package screen

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/detsim/detsim/internal/vtime"
)

// FmtTime writes virtual nanoseconds as exact seconds with the digits
// grouped in threes, the way the header shows the clock: +63.412 518 204s.
func FmtTime(ns int64) string {
	sign, sec, frac := signed(ns)
	f := strconv.FormatUint(frac+1_000_000_000, 10)[1:] // nine digits
	f = strings.TrimRight(f, "0")
	if f == "" {
		return sign + groupDigits(strconv.FormatUint(sec, 10)) + "s"
	}
	var b strings.Builder
	for i := 0; i < len(f); i += 3 {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(f[i:min(i+3, len(f))])
	}
	return sign + groupDigits(strconv.FormatUint(sec, 10)) + "." + b.String() + "s"
}

// fmtShort writes virtual nanoseconds to a tenth of a millisecond, the
// precision of the log and queue columns, grouped as the header groups
// the clock, so it reads as the header's time cut short: +63.412 5s,
// +1 063.412 5s. It truncates.
func fmtShort(ns int64) string {
	sign, sec, frac := signed(ns)
	f := strconv.FormatUint(frac/100_000+10_000, 10)[1:]
	return sign + groupDigits(strconv.FormatUint(sec, 10)) + "." + f[:3] + " " + f[3:] + "s"
}

// signed is vtime.Split with the sign the time columns show: + or -.
func signed(ns int64) (sign string, sec, frac uint64) {
	neg, sec, frac := vtime.Split(ns)
	if neg {
		return "-", sec, frac
	}
	return "+", sec, frac
}

// fmtDur writes a duration briefly: 2.1s, 340ms, 12µs, 5ns. It truncates.
func fmtDur(ns int64) string {
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

// FmtBytes writes a byte count briefly: 812B, 9.8KB, 1.2MB.
func FmtBytes(n int64) string {
	switch {
	case n >= 1_000_000:
		return strconv.FormatInt(n/1_000_000, 10) + "." + strconv.FormatInt(n%1_000_000/100_000, 10) + "MB"
	case n >= 1_000:
		return strconv.FormatInt(n/1_000, 10) + "." + strconv.FormatInt(n%1_000/100, 10) + "KB"
	}
	return strconv.FormatInt(n, 10) + "B"
}

// groupDigits puts a space between groups of three digits: 18 211.
func groupDigits(s string) string {
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

// FmtInt writes n with grouped digits.
func FmtInt(n int64) string {
	if n < 0 {
		return "-" + groupDigits(strconv.FormatInt(-n, 10))
	}
	return groupDigits(strconv.FormatInt(n, 10))
}

func itoa(n int) string { return FmtInt(int64(n)) }

// FmtUint writes u with grouped digits.
func FmtUint(u uint64) string { return groupDigits(strconv.FormatUint(u, 10)) }

// fit makes s exactly w cells wide: cut with an ellipsis when longer,
// padded with spaces when shorter. ANSI styling in s is kept.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	sw := ansi.StringWidth(s)
	switch {
	case sw > w:
		s = ansi.Truncate(s, w, "…")
		if sw = ansi.StringWidth(s); sw < w {
			s += strings.Repeat(" ", w-sw)
		}
		return s
	case sw < w:
		return s + strings.Repeat(" ", w-sw)
	}
	return s
}

// clip cuts s to at most w cells without padding.
func clip(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
}

// padLines returns exactly h lines, each exactly w cells wide.
func padLines(lines []string, w, h int) []string {
	out := make([]string, h)
	for i := range out {
		if i < len(lines) {
			out[i] = fit(lines[i], w)
		} else {
			out[i] = strings.Repeat(" ", max(w, 0))
		}
	}
	return out
}

// rule draws a pane title bar of width w: "─ title ─────". A focused pane
// uses heavy lines so focus shows in plain text too.
func rule(title string, w int, focused bool) string {
	line, lead := "─", "─ "
	if focused {
		line, lead = "━", "━ "
	}
	s := lead + title + " "
	if ansi.StringWidth(s) >= w {
		return clip(s, w)
	}
	return s + strings.Repeat(line, w-ansi.StringWidth(s))
}
