package screen

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/detsim/detsim/internal/numfmt"
)

// The number and time formats are internal/numfmt's, which the kinds'
// panes write with too.

// FmtTime writes virtual nanoseconds as the header shows the clock:
// +63.412 518 204s (numfmt.Time).
func FmtTime(ns int64) string { return numfmt.Time(ns) }

// fmtShort writes virtual nanoseconds as the log and queue columns do:
// +63.412 5s (numfmt.Short).
func fmtShort(ns int64) string { return numfmt.Short(ns) }

// FmtBytes writes a byte count briefly: 812B, 9.8KB (numfmt.Bytes).
func FmtBytes(n int64) string { return numfmt.Bytes(n) }

// FmtInt writes n with grouped digits (numfmt.Int).
func FmtInt(n int64) string { return numfmt.Int(n) }

func itoa(n int) string { return FmtInt(int64(n)) }

// FmtUint writes u with grouped digits (numfmt.Uint).
func FmtUint(u uint64) string { return numfmt.Uint(u) }

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
