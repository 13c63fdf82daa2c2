//go:build linux

package scratch

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/detsim/detsim/internal/fstree"
)

// dirSteps are the points of Dir, and of removing what it made, at which
// a kill leaves something on disk (afterDirStep), and "" for a kill once
// Dir has returned.
var dirSteps = []string{"guard locked", "stage made", "guard moved in", "", "stage again", "guard out", "stage removed"}

// removalSteps are the dirSteps of Entry.Remove.
var removalSteps = map[string]bool{"stage again": true, "guard out": true, "stage removed": true}

// TestDir_KilledAtAnyStepIsSwept kills a process (SIGKILL, so nothing of
// it runs on the way out) at each step of making a directory, and checks
// that the next Sweep leaves the parent as it was; and the same at each
// step of removing it. Before Dir built its
// directory beside a guard file, a kill between the directory and its
// lock file left a directory no sweep would touch: a cli test that kills
// a run as soon as its work directory appears found it there after two
// later runs.
func TestDir_KilledAtAnyStepIsSwept(t *testing.T) {
	if dir := os.Getenv("DETSIM_SCRATCH_KILL_DIR"); dir != "" {
		killedMakingDir(dir, os.Getenv("DETSIM_SCRATCH_KILL_AT"))
		return
	}
	for _, step := range dirSteps {
		t.Run("at "+step, func(t *testing.T) {
			parent := t.TempDir()
			mine := filepath.Join(parent, ".out"+TempInfix+"mine")
			if err := os.Mkdir(mine, 0o755); err != nil {
				t.Fatal(err)
			}
			before := fstree.Of(t, parent)
			cmd := exec.Command(os.Args[0], "-test.run", "^TestDir_KilledAtAnyStepIsSwept$")
			cmd.Env = append(os.Environ(), "DETSIM_SCRATCH_KILL_DIR="+parent, "DETSIM_SCRATCH_KILL_AT="+step)
			out, err := cmd.CombinedOutput()
			if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
				t.Fatalf("the child was not killed at %q: %v\n%s", step, err, out)
			}
			if after := fstree.Of(t, parent); len(after) == len(before) {
				t.Fatalf("a kill at %q left nothing: the test proves nothing", step)
			}
			if err := Sweep(parent, ".out", nil); err != nil {
				t.Fatal(err)
			}
			fstree.Same(t, parent, before, "the sweep after a kill at "+step)
		})
	}
}

// killedMakingDir is the child's side: make a directory in parent (and
// remove it, for a removal step) and die by SIGKILL at step.
func killedMakingDir(parent, step string) {
	die := func() { syscall.Kill(os.Getpid(), syscall.SIGKILL); select {} }
	afterDirStep = func(s string) {
		if s == step {
			die()
		}
	}
	e, err := Dir(parent, ".out")
	if err != nil {
		os.Exit(3)
	}
	if removalSteps[step] {
		e.Remove()
		os.Exit(4) // the step was never reached
	}
	die()
}
