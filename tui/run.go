package tui

import (
	"errors"
	"os"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"

	"github.com/detsim/detsim/engine"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/term"
	"github.com/detsim/detsim/scenarios"
)

// DefaultScenario is what `detsim` with no argument opens.
const DefaultScenario = "reproduction/gossip_flap"

// ErrNoTerminal is returned by Run when stdin or stdout is not a
// terminal. The CLI reports it as a usage error (exit 2).
var ErrNoTerminal = errors.New("the stepper needs a terminal; use --batch to run headless")

// TerminalAvailable reports whether stdin and stdout are both terminals,
// which the full-screen stepper needs.
func TerminalAvailable() bool {
	return term.IsTerminal(os.Stdin) && term.IsTerminal(os.Stdout)
}

// Run opens the stepper full-screen on sc and returns when the user
// quits (q). It returns ErrNoTerminal without a terminal.
func Run(sc *scenarios.Scenario, reg *hosts.Registry, opts Options) error {
	if !TerminalAvailable() {
		return ErrNoTerminal
	}
	m, err := NewModel(sc, reg, opts)
	if err != nil {
		return err
	}
	_, err = tea.NewProgram(m).Run()
	return err
}

// zeroTime is "no deadline" for the headless loops.
var zeroTime time.Time

func newHelp() help.Model { return help.New() }

// Hit is where a headless continue stopped.
type Hit struct {
	// Breakpoint is the breakpoint that fired; nil when the run ended
	// first.
	Breakpoint *Breakpoint
	Step       int64 // step index reached
	At         int64 // its virtual time
}

// Continue runs forward to the next step at which an enabled breakpoint
// fires, or to the end of the run. It is the stepper's `c` without a
// screen, for `detsim --batch --break-on`; "--until" is just one more
// breakpoint (time=… or step=…).
func (s *Session) Continue(bps []Breakpoint) Hit {
	bps = append([]Breakpoint(nil), bps...)
	b, _ := s.forward(bps, nil, zeroTime)
	e := s.tl.Engine()
	return Hit{Breakpoint: b, Step: e.Index(), At: e.Now()}
}

// ReverseContinue moves back to the latest earlier step at which an
// enabled breakpoint fires, or to step 0.
func (s *Session) ReverseContinue(bps []Breakpoint) (Hit, error) {
	bps = append([]Breakpoint(nil), bps...)
	found, b, _, _, err := s.reverse(bps, s.tl.Engine().Index()-1, zeroTime)
	if err != nil {
		return Hit{}, err
	}
	if found < 0 {
		found = 0
	}
	if _, err := s.tl.Goto(found); err != nil {
		return Hit{}, err
	}
	e := s.tl.Engine()
	return Hit{Breakpoint: b, Step: e.Index(), At: e.Now()}, nil
}

// RenderText draws the stepper's panes at the session's current step as
// plain text (no ANSI), width×height cells, with what the last step
// changed marked. It moves the session only to re-execute the last step
// (and to refill the log cache), ending where it started.
func (s *Session) RenderText(width, height int) (string, error) {
	width, height = max(width, 1), max(height, 1)
	m := Model{keys: newKeyMap(), st: newStyles(), width: width, height: height, sess: s, focus: paneEvents, seed: s.sc.Seed, name: s.sc.Name}
	m.help = newHelp()
	m.bps = withDefaultBreakpoints(nil)
	m.layout()
	fr, err := s.land(s.tl.Engine().Index(), m.viewParams())
	if err != nil {
		return "", err
	}
	m.fr = fr
	m.layout()
	m.status = "step " + fmtInt(fr.index) + ": " + describeStep(fr.last)
	lines := strings.Split(plain(m.render()), "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	return strings.Join(lines, "\n") + "\n", nil
}

// RenderText draws the panes for a timeline the caller ran itself (with
// no Tap of its own): lastLines are the newest serialised records, oldest
// first, ending with the engine's latest record. Prefer Session, which
// keeps the log cache itself and shares the breakpoint logic with the
// stepper; this form exists for callers that already hold a timeline.
func RenderText(tl *engine.Timeline, width int, lastLines [][]byte) string {
	e := tl.Engine()
	s := &Session{sc: e.Scenario(), tl: tl, ring: newLineRing(max(len(lastLines), 1)), peerIdx: map[string]int{}}
	for i, id := range e.Peers() {
		s.peerIdx[id] = i
	}
	first := e.Records() - int64(len(lastLines)) + 1
	for i, b := range lastLines {
		s.ring.put(first+int64(i), -1, e.Now(), b) // step unknown
	}
	m := Model{keys: newKeyMap(), st: newStyles(), width: max(width, 1), height: 48, sess: s, focus: paneEvents, seed: s.sc.Seed, name: s.sc.Name}
	m.help = newHelp()
	m.bps = withDefaultBreakpoints(nil)
	m.layout()
	m.fr = s.build(m.viewParams(), nil)
	m.layout()
	m.status = "step " + fmtInt(m.fr.index) + ": " + describeStep(m.fr.last)
	lines := strings.Split(plain(m.render()), "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	return strings.Join(lines, "\n") + "\n"
}

// Failed reports whether any assertion has failed by the session's current
// step, as far as the streaming evaluator can tell from the records so far.
func (s *Session) Failed() bool {
	ev := s.evaluator()
	if ev == nil {
		return false
	}
	_, _, ok := ev.FirstFailure()
	return ok
}
