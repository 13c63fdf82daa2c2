package screen

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"
)

// The footer's key line and the `?` screen, drawn from KeyMap as
// bubbles' help model (charm.land/bubbles/v2/help) draws a key map: the
// same separators, ellipsis, styles and truncation, and like it leaving
// out disabled bindings. The help model itself imports bubbletea, which
// the text renderer must not link (TestImportsNoBubbletea); the bindings
// (charm.land/bubbles/v2/key) import nothing but fmt.

// helpEllipsis ends a key line cut short.
const helpEllipsis = "…"

// shortHelp is one line of keys and their terse descriptions, sep between
// them, cut with an ellipsis so it fits width cells (0: no limit). The
// last keep keys are always written, after the ellipsis when the others
// are cut, so a narrow footer still says how to get help and quit
// (issue 22: at 80 columns it was cut before "? help"). As in bubbles, a
// key that does not fit is still written when the ellipsis would not fit
// either: fit cuts the line to the screen then.
func (st *styles) shortHelp(keys []key.Binding, sep string, width, keep int) string {
	keys = enabled(keys)
	keep = min(keep, len(keys))
	sep = st.helpSep.Inline(true).Render(sep)
	item := func(k key.Binding) string {
		return st.helpKey.Inline(true).Render(k.Help().Key) + " " + st.helpDesc.Inline(true).Render(k.Help().Desc)
	}
	tail := ""
	for _, k := range keys[len(keys)-keep:] {
		tail += sep + item(k)
	}
	var b strings.Builder
	total := 0
	for i, k := range keys[:len(keys)-keep] {
		it := item(k)
		if total > 0 {
			it = sep + it
		}
		w := lipgloss.Width(it)
		// Room for the rest: the kept keys, and the ellipsis when this
		// key is not the last of the others.
		rest := lipgloss.Width(tail)
		if i < len(keys)-keep-1 {
			rest += lipgloss.Width(" " + helpEllipsis)
		}
		if width > 0 && total+w+rest > width {
			if ell := " " + st.helpSep.Inline(true).Render(helpEllipsis); total+lipgloss.Width(ell)+lipgloss.Width(tail) < width || total > 0 {
				b.WriteString(ell)
				total += lipgloss.Width(ell)
			}
			break
		}
		total += w
		b.WriteString(it)
	}
	if total == 0 {
		tail = strings.TrimPrefix(tail, sep)
	}
	b.WriteString(tail)
	return b.String()
}

// fullHelp is the groups of keys as columns side by side, each a column
// of keys beside a column of descriptions, four spaces apart.
func (st *styles) fullHelp(groups [][]key.Binding) string {
	var cols []string
	sep := st.helpSep.Inline(true).Render("    ")
	for _, g := range groups {
		g = enabled(g)
		if len(g) == 0 {
			continue
		}
		var keys, descs []string
		for _, k := range g {
			keys = append(keys, k.Help().Key)
			descs = append(descs, k.Help().Desc)
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

// enabled is ks without the disabled bindings, which help does not show.
func enabled(ks []key.Binding) []key.Binding {
	out := make([]key.Binding, 0, len(ks))
	for _, k := range ks {
		if k.Enabled() {
			out = append(out, k)
		}
	}
	return out
}
