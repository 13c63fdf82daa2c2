package screen

import (
	"charm.land/lipgloss/v2"

	"github.com/detsim/detsim/hosts"
)

// styles are the few looks the panes use. Colour carries meaning only
// together with a letter or marker, so plain text (RenderText, goldens)
// loses none of it.
type styles struct {
	title, focus, dim, bold, changed    lipgloss.Style
	alive, suspect, dead, self, unknown lipgloss.Style
	cursor, paused, running, failed     lipgloss.Style
	warm, warming, cold, mutation       lipgloss.Style
	key, errText                        lipgloss.Style
	// help's: the key, what it does, separators and the ellipsis
	helpKey, helpDesc, helpSep lipgloss.Style
}

func newStyles() *styles {
	c := lipgloss.Color
	return &styles{
		title:    lipgloss.NewStyle().Foreground(c("7")),
		focus:    lipgloss.NewStyle().Foreground(c("14")).Bold(true),
		dim:      lipgloss.NewStyle().Faint(true),
		bold:     lipgloss.NewStyle().Bold(true),
		changed:  lipgloss.NewStyle().Reverse(true).Bold(true),
		alive:    lipgloss.NewStyle().Foreground(c("2")),
		suspect:  lipgloss.NewStyle().Foreground(c("3")).Bold(true),
		dead:     lipgloss.NewStyle().Foreground(c("1")).Bold(true),
		self:     lipgloss.NewStyle().Faint(true),
		unknown:  lipgloss.NewStyle().Faint(true),
		cursor:   lipgloss.NewStyle().Reverse(true),
		paused:   lipgloss.NewStyle().Foreground(c("11")).Bold(true),
		running:  lipgloss.NewStyle().Foreground(c("10")).Bold(true),
		failed:   lipgloss.NewStyle().Foreground(c("9")).Bold(true),
		warm:     lipgloss.NewStyle().Foreground(c("2")),
		warming:  lipgloss.NewStyle().Foreground(c("3")),
		cold:     lipgloss.NewStyle().Foreground(c("4")),
		mutation: lipgloss.NewStyle().Foreground(c("5")).Bold(true),
		key:      lipgloss.NewStyle().Bold(true),
		errText:  lipgloss.NewStyle().Foreground(c("9")),
		// bubbles' help on a dark background (help.DefaultDarkStyles),
		// the look the stepper's help had when it was drawn by bubbles.
		helpKey:  lipgloss.NewStyle().Foreground(c("#626262")),
		helpDesc: lipgloss.NewStyle().Foreground(c("#4A4A4A")),
		helpSep:  lipgloss.NewStyle().Foreground(c("#3C3C3C")),
	}
}

// toneStyle is the style of a tone a kind gives its text (hosts.Tone).
// paint writes s in tone t. Plain text is written as it is: a pane is
// mostly plain cells, and rendering each through an empty style made
// drawing the host pane 2.6 times dearer (BenchmarkReverseStepSwim).
func (st *styles) paint(t hosts.Tone, s string) string {
	if t == hosts.TonePlain {
		return s
	}
	return st.toneStyle(t).Render(s)
}

func (st *styles) toneStyle(t hosts.Tone) lipgloss.Style {
	switch t {
	case hosts.ToneDim:
		return st.dim
	case hosts.ToneChanged:
		return st.changed
	case hosts.ToneGood:
		return st.alive
	case hosts.ToneWarn:
		return st.suspect
	case hosts.ToneBad:
		return st.dead
	}
	return lipgloss.NewStyle()
}
