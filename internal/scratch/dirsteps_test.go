//go:build linux

package scratch

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// stagedSteps are the points of Staged, and of removing what it made,
// at which a kill leaves something on disk: "written" is a kill once
// Staged has returned and a run has written into the stage, "moved" one
// after the stage was moved into place.
var stagedSteps = []string{"guard locked", "stage made", "stage recorded", "written", "stage gone", "moved"}

// stagedRemovalSteps are the stagedSteps of Entry.Remove.
var stagedRemovalSteps = map[string]bool{"stage gone": true}

// result is where the child moves the stage at step "moved": the one
// thing the sweep must leave.
const result = "result"

// TestDir_KilledAtAnyStepIsSwept kills a process (SIGKILL, so nothing of
// it runs on the way out) at each step of making a directory, and checks
// that the next Sweep leaves the parent as it was; and the same at each
// step of removing it. Before Dir built its
// directory beside a guard file, a kill between the directory and its
// lock file left a directory no sweep would touch: a cli test that kills
// a run as soon as its work directory appears found it there after two
// later runs.
func TestDir_KilledAtAnyStepIsSwept(t *testing.T) {
	killedAtEveryStep(t, "dir", dirSteps)
}

// TestStaged_KilledAtAnyStepIsSwept is the same for Staged: a kill at
// any step of making the stage, writing into it, moving it into place or
// removing it leaves only what the next Sweep removes, the stage whole
// with what the run wrote into it once the guard has recorded it, and
// never the result moved into place.
func TestStaged_KilledAtAnyStepIsSwept(t *testing.T) {
	killedAtEveryStep(t, "staged", stagedSteps)
}

// killedAtEveryStep runs the child (killedMaking) once for each step of
// steps, kills it there, sweeps and compares the parent with what it
// held before.
func killedAtEveryStep(t *testing.T, what string, steps []string) {
	if dir := os.Getenv("DETSIM_SCRATCH_KILL_DIR"); dir != "" {
		killedMaking(dir, os.Getenv("DETSIM_SCRATCH_KILL_WHAT"), os.Getenv("DETSIM_SCRATCH_KILL_AT"))
		return
	}
	for _, step := range steps {
		t.Run("at "+step, func(t *testing.T) {
			parent := t.TempDir()
			mine := filepath.Join(parent, ".out"+TempInfix+"mine")
			if err := os.Mkdir(mine, 0o755); err != nil {
				t.Fatal(err)
			}
			before := fstree.Of(t, parent)
			cmd := exec.Command(os.Args[0], "-test.run", "^"+t.Name()[:strings.Index(t.Name(), "/")]+"$")
			cmd.Env = append(os.Environ(), "DETSIM_SCRATCH_KILL_DIR="+parent, "DETSIM_SCRATCH_KILL_WHAT="+what, "DETSIM_SCRATCH_KILL_AT="+step)
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
			if step == "moved" {
				if _, err := os.Stat(filepath.Join(parent, result, "f")); err != nil {
					t.Fatalf("the sweep took the stage moved into place: %v", err)
				}
				if err := os.RemoveAll(filepath.Join(parent, result)); err != nil {
					t.Fatal(err)
				}
			}
			fstree.Same(t, parent, before, "the sweep after a kill at "+step)
		})
	}
}

// killedMaking is the child's side: make a directory in parent with Dir
// or Staged (what), and remove it for a removal step, and die by SIGKILL
// at step.
func killedMaking(parent, what, step string) {
	die := func() { syscall.Kill(os.Getpid(), syscall.SIGKILL); select {} }
	afterDirStep = func(s string) {
		if s == step {
			die()
		}
	}
	if what == "staged" {
		e, err := Staged(parent, ".out")
		if err != nil {
			os.Exit(3)
		}
		if err := os.WriteFile(filepath.Join(e.Stage(), "f"), []byte("what a run writes"), 0o644); err != nil {
			os.Exit(3)
		}
		if err := os.Mkdir(filepath.Join(e.Stage(), "sub"), 0o755); err != nil {
			os.Exit(3)
		}
		switch {
		case stagedRemovalSteps[step]:
			e.Remove()
			os.Exit(4) // the step was never reached
		case step == "moved":
			if err := os.Rename(e.Stage(), filepath.Join(parent, result)); err != nil {
				os.Exit(3)
			}
		}
		die()
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
