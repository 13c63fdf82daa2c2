package screen

import (
	"strings"

	"charm.land/lipgloss/v2"
)

// The footer's key line and the `?` screen, drawn from KeyMap as
// bubbles' help model (charm.land/bubbles/v2/help) draws a key map: the
// same separators, ellipsis, styles and truncation, so the screen reads
// as it did when bubbles drew it, and the text renderer needs no bubbles.

// helpEllipsis ends a key line cut short.
const helpEllipsis = "…"

// shortHelp is one line of keys and their terse descriptions, sep between
// them, cut with an ellipsis so it fits width cells (0: no limit). As in
// bubbles, a key that does not fit is still written when the ellipsis
// would not fit either: fit cuts the line to the screen then.
func (st *styles) shortHelp(keys []Key, sep string, width int) string {
	var b strings.Builder
	total := 0
	sep = st.helpSep.Inline(true).Render(sep)
	for _, k := range keys {
		item := st.helpKey.Inline(true).Render(k.Help) + " " + st.helpDesc.Inline(true).Render(k.Desc)
		if total > 0 {
			item = sep + item
		}
		w := lipgloss.Width(item)
		if width > 0 && total+w > width {
			if tail := " " + st.helpSep.Inline(true).Render(helpEllipsis); total+lipgloss.Width(tail) < width {
				b.WriteString(tail)
				break
			}
		}
		total += w
		b.WriteString(item)
	}
	return b.String()
}

// fullHelp is the groups of keys as columns side by side, each a column
// of keys beside a column of descriptions, four spaces apart.
func (st *styles) fullHelp(groups [][]Key) string {
	var cols []string
	sep := st.helpSep.Inline(true).Render("    ")
	for _, g := range groups {
		if len(g) == 0 {
			continue
		}
		var keys, descs []string
		for _, k := range g {
			keys = append(keys, k.Help)
			descs = append(descs, k.Desc)
		}
		s := ""
		if len(cols) > 0 {
			s = sep
		}
		cols = append(cols, lipgloss.JoinHorizontal(lipgloss.Top, s,
			st.helpKey.Render(strings.Join(keys, "\n")), " ", st.helpDesc.Render(strings.Join(descs, "\n"))))
	}
	return lipgloss.JoinHorizontal(lipgloss.Top, cols...)
}
