package screen

// PaneID names a pane that can take focus; PaneCount is how many there are.
type PaneID int

const (
	PaneMatrix PaneID = iota
	PaneHost
	PaneQueue
	PaneLinks
	PaneEvents
	PaneRecord
	PaneCount
)

func (p PaneID) String() string {
	return [...]string{"membership", "host", "queue", "links", "events", "record"}[p]
}

// drawCtx is what every pane draws from: the frame, the styles and
// whether the pane has focus.
type drawCtx struct {
	f       *Frame
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
	s.off = Clamp(s.off+delta, 0, max(total-visible, 0))
}

// Clamp is v within [lo, hi]; lo when the range is empty (hi < lo), so
// a cursor over an empty list stays at 0.
func Clamp(v, lo, hi int) int {
	if hi < lo {
		return lo
	}
	return min(max(v, lo), hi)
}
