package tui

// paneID names a pane that can take focus.
type paneID int

const (
	paneMatrix paneID = iota
	paneHost
	paneQueue
	paneLinks
	paneEvents
	paneRecord
	paneCount
)

func (p paneID) String() string {
	return [...]string{"membership", "host", "queue", "links", "events", "record"}[p]
}

// drawCtx is what every pane draws from: the frame, the styles and
// whether the pane has focus.
type drawCtx struct {
	f       *frame
	st      *styles
	focused bool
}

// size is a pane's allotted rectangle; h counts the title line.
type size struct{ w, h int }

func (s *size) SetSize(w, h int) { s.w, s.h = max(w, 0), max(h, 0) }

// body is how many lines a pane has under its title.
func (s size) body() int { return max(s.h-1, 0) }

// scroller is a pane's scroll offset, clamped to its content.
type scroller struct{ off int }

func (s *scroller) scroll(delta, total, visible int) {
	s.off = clampInt(s.off+delta, 0, max(total-visible, 0))
}

func clampInt(v, lo, hi int) int {
	if hi < lo {
		return lo
	}
	return min(max(v, lo), hi)
}
