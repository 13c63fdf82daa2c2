package tui

import (
	"errors"
	"os"
	"runtime/debug"

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
	budget := int64(engine.DefaultCheckpointBudget)
	if opts.CheckpointBudget != nil {
		budget = *opts.CheckpointBudget
	}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(memoryLimit(budget)))
	_, err = tea.NewProgram(m).Run()
	return err
}

// memoryLimit is the soft heap limit a stepper session runs under: the
// checkpoint budget plus room for the run itself and its garbage. The
// collector lets the heap grow to twice what is live, and checkpoints are
// live: without a limit, stepping back and forth over a thousand hosts
// (each restore and each new checkpoint a 100 MB copy, the old one
// garbage) took the heap to 1.6 GB with 0.6 GB live. With it the
// collector runs sooner as the heap nears the limit; it is soft, so a run
// that needs more gets more, never an out-of-memory kill for it.
func memoryLimit(budget int64) int64 { return budget + 896<<20 }
