package screen

import (
	"strings"

	"github.com/detsim/detsim/debugger"
)

// RenderText draws the stepper's panes at the session's current step as
// plain text (no ANSI), width×height cells, with what the last step
// changed marked; the header lists bps, the breakpoints the run was
// continued with, and hit, the one it stopped at (nil: none). It moves the session only to re-execute the last step
// (and to refill the record cache), ending where it started. It is what
// `detsim --batch --break-on` prints: the stepper's own screen, drawn
// without the stepper.
func RenderText(s *debugger.Session, width, height int, hit *debugger.Breakpoint, bps ...debugger.Breakpoint) (string, error) {
	width, height = max(width, 1), max(height, 1)
	scr, err := Open(s, s.Kinds(), width, height, s.Timeline().Engine().Index())
	if err != nil {
		return "", err
	}
	sc, fr := s.Scenario(), scr.Frame()
	st := Status{Name: sc.Name, Seed: sc.Seed, Breakpoints: append([]debugger.Breakpoint(nil), bps...), Hit: hit,
		Line: "step " + FmtInt(fr.index) + ": " + DescribeStep(fr.last)}
	lines := strings.Split(Plain(scr.Render(st)), "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	return strings.Join(lines, "\n") + "\n", nil
}
