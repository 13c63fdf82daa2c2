package scratch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/detsim/detsim/internal/fstree"
)

// simulateDeath drops an entry's lock without removing it, as the kernel
// does when the process holding it is killed.
func simulateDeath(e *Entry) {
	mu.Lock()
	delete(live, e)
	mu.Unlock()
	e.lock.Close()
}

func TestSweep_RemovesOnlyStaleDetsimTemporaries(t *testing.T) {
	parent := t.TempDir()
	liveDir, err := Dir(parent, ".out")
	if err != nil {
		t.Fatal(err)
	}
	defer liveDir.Remove()
	deadDir, err := Dir(parent, ".out")
	if err != nil {
		t.Fatal(err)
	}
	simulateDeath(deadDir)
	deadFile, err := File(parent, ".out")
	if err != nil {
		t.Fatal(err)
	}
	simulateDeath(deadFile)
	other, err := Dir(parent, ".other") // another output's: not this sweep's business
	if err != nil {
		t.Fatal(err)
	}
	simulateDeath(other)
	// A user's directory that merely looks like ours has no lock file.
	userDir := filepath.Join(parent, ".out"+TempInfix+"mine")
	if err := os.Mkdir(userDir, 0o755); err != nil {
		t.Fatal(err)
	}

	var handled []string
	if err := Sweep(parent, ".out", func(s Stale) error { handled = append(handled, s.Path); return nil }); err != nil {
		t.Fatal(err)
	}
	slices.Sort(handled)
	want := []string{deadDir.Path, deadFile.Path}
	slices.Sort(want)
	if !slices.Equal(handled, want) {
		t.Errorf("handled %v, want %v", handled, want)
	}
	for _, p := range want {
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s survived the sweep: %v", p, err)
		}
	}
	for _, p := range []string{liveDir.Path, other.Path, userDir} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
}

func TestSweep_HandlerErrorKeepsTheEntry(t *testing.T) {
	parent := t.TempDir()
	d, err := Dir(parent, ".x")
	if err != nil {
		t.Fatal(err)
	}
	simulateDeath(d)
	boom := errors.New("boom")
	if err := Sweep(parent, ".x", func(Stale) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("Sweep = %v, want the handler's error", err)
	}
	if _, err := os.Stat(d.Path); err != nil {
		t.Errorf("the entry the handler could not deal with was removed: %v", err)
	}
}

func TestLock_SecondHolderIsInUseAndReleaseRemovesTheFile(t *testing.T) {
	out := filepath.Join(t.TempDir(), "b")
	l, err := Lock(out)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Lock(out); !errors.Is(err, ErrInUse) {
		t.Fatalf("second Lock = %v, want ErrInUse", err)
	}
	l.Release()
	if _, err := os.Stat(LockPath(out)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file left after Release: %v", err)
	}
	l2, err := Lock(out)
	if err != nil {
		t.Fatalf("Lock after Release: %v", err)
	}
	l2.Release()
}

func TestRemoveLive_TakesEveryEntryAndLock(t *testing.T) {
	parent := t.TempDir()
	if _, err := Dir(parent, ".a"); err != nil {
		t.Fatal(err)
	}
	if _, err := File(parent, ".b"); err != nil {
		t.Fatal(err)
	}
	if _, err := Lock(filepath.Join(parent, "c")); err != nil {
		t.Fatal(err)
	}
	RemoveLive()
	defer reopen()
	if n := fstree.Names(t, parent); len(n) != 0 {
		t.Errorf("left behind: %v", n)
	}
}

// reopen undoes RemoveLive's closing, which a real process never
// outlives, for the next test.
func reopen() {
	mu.Lock()
	closing = false
	mu.Unlock()
}

// signalDuring runs work(i) for i = 0, 1, … in another goroutine until
// ready says it has got going, then calls RemoveLive as a signal handler
// would, stops work, and requires parent empty. work returns false to
// stop early.
func signalDuring(t *testing.T, parent string, ready func() bool, work func(i int) bool) {
	t.Helper()
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if !work(i) {
				return
			}
		}
	}()
	for !ready() {
		runtime.Gosched()
	}
	RemoveLive()
	close(stop)
	<-done
	if n := fstree.Names(t, parent); len(n) != 0 {
		t.Fatalf("left behind: %v", n)
	}
}

// A signal lands while another goroutine is making entries: RemoveLive
// takes every entry on disk, and nothing is made after it. Before, an
// entry whose directory existed but was not yet registered — the moment
// a test saw the work directory and signalled — was left behind, as was
// any made after RemoveLive returned.
func TestRemoveLive_WhileEntriesAreBeingMade(t *testing.T) {
	defer reopen()
	for range 50 {
		parent := t.TempDir()
		var made atomic.Int64
		signalDuring(t, parent, func() bool { return made.Load() >= 3 }, func(int) bool {
			if _, err := Dir(parent, ".w"); err != nil {
				return false
			}
			made.Add(1)
			return true
		})
		if _, err := Dir(parent, ".w"); !errors.Is(err, ErrClosing) {
			t.Fatalf("Dir after RemoveLive = %v, want ErrClosing", err)
		}
		reopen()
	}
}

// A signal lands while the run is still writing into its work
// directory: RemoveLive removes it all the same. Before, a file made
// after RemoveAll had read the directory left it behind, not empty (the
// batch signal test failed this way on a loaded machine).
func TestRemoveLive_WhileTheRunWritesIntoItsDirectory(t *testing.T) {
	defer reopen()
	for range 20 {
		parent := t.TempDir()
		d, err := Dir(parent, ".w")
		if err != nil {
			t.Fatal(err)
		}
		signalDuring(t, parent, func() bool { return len(fstree.Names(t, d.Path)) >= 5 }, func(i int) bool {
			sub := filepath.Join(d.Path, fmt.Sprintf("f%d", i))
			os.Mkdir(sub, 0o777)
			os.WriteFile(filepath.Join(sub, "x"), nil, 0o666)
			return true
		})
		reopen()
	}
}

// A sweep with no prefix takes every stale temporary, whatever output it
// was for, and SweepLocks every lock file no live process holds; a held
// lock and a live entry stay.
// TestSweep_EveryNameAndStaleLocks runs Sweep then SweepLocks, and
// SweepAll (both over one listing, as a bundle's Create does): each way
// removes every stale temporary and lock and nothing live.
func TestSweep_EveryNameAndStaleLocks(t *testing.T) {
	t.Run("Sweep and SweepLocks", func(t *testing.T) {
		sweepsEveryNameAndStaleLocks(t, func(parent string) error {
			return errors.Join(Sweep(parent, "", nil), SweepLocks(parent))
		})
	})
	t.Run("SweepAll", func(t *testing.T) {
		sweepsEveryNameAndStaleLocks(t, func(parent string) error { return SweepAll(parent, nil) })
	})
}

func sweepsEveryNameAndStaleLocks(t *testing.T, sweep func(parent string) error) {
	parent := t.TempDir()
	live, err := Dir(parent, ".mine")
	if err != nil {
		t.Fatal(err)
	}
	defer live.Remove()
	var dead []string
	for _, prefix := range []string{".a", ".b", ".run-1000-peers"} {
		d, err := Dir(parent, prefix)
		if err != nil {
			t.Fatal(err)
		}
		simulateDeath(d)
		dead = append(dead, d.Path)
	}
	held, err := Lock(filepath.Join(parent, "held"))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	stale, err := Lock(filepath.Join(parent, "stale"))
	if err != nil {
		t.Fatal(err)
	}
	ForgetForTest(nil, stale) // what SIGKILL leaves: the file, no holder
	if err := sweep(parent); err != nil {
		t.Fatal(err)
	}
	for _, p := range append(dead, LockPath(filepath.Join(parent, "stale"))) {
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s survived: %v", p, err)
		}
	}
	for _, p := range []string{live.Path, LockPath(filepath.Join(parent, "held"))} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
}

// TestRemove_EmptyOrNotLeavesNothing: Remove takes a directory holding
// only its lock file the short way (removeEmpty) and one with anything
// else in it the long way; either leaves the parent as it was.
func TestRemove_EmptyOrNotLeavesNothing(t *testing.T) {
	for _, fill := range []bool{false, true} {
		parent := t.TempDir()
		d, err := Dir(parent, ".out")
		if err != nil {
			t.Fatal(err)
		}
		if fill {
			if err := os.MkdirAll(filepath.Join(d.Path, "bundle", "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(d.Path, "bundle", "events.ndjson"), []byte("{}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := d.Remove(); err != nil {
			t.Fatalf("Remove (filled %v): %v", fill, err)
		}
		if got := fstree.Names(t, parent); len(got) != 0 {
			t.Errorf("filled %v: the parent still holds %v", fill, got)
		}
	}
}

// A stale guard's stage goes only while empty, as Dir leaves it: a
// directory of that name holding anything is not Dir's and stays.
func TestSweep_LeavesAStageThatHoldsAnything(t *testing.T) {
	parent := t.TempDir()
	guard, err := File(parent, ".out")
	if err != nil {
		t.Fatal(err)
	}
	simulateDeath(guard)
	stage := guard.Path + stageSuffix
	if err := os.Mkdir(stage, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(stage, "mine"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Sweep(parent, ".out", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(stage, "mine")); err != nil {
		t.Errorf("a stage holding a file was removed: %v", err)
	}
	if _, err := os.Lstat(guard.Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the stale guard survived: %v", err)
	}
}

// A stale Staged guard's stage goes whole, with what the run wrote into
// it, only while it is the directory the guard recorded: a directory
// put under its name afterwards (a user's, holding a file) stays, and so
// does the guard's record of a stage it no longer has.
func TestSweep_StagedStageGoesOnlyIfTheOneRecorded(t *testing.T) {
	for _, replaced := range []bool{false, true} {
		parent := t.TempDir()
		e, err := Staged(parent, ".out")
		if err != nil {
			t.Fatal(err)
		}
		simulateDeath(e)
		if replaced {
			if err := os.Rename(e.Stage(), filepath.Join(parent, "moved")); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(e.Stage(), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(e.Stage(), "f"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := Sweep(parent, ".out", nil); err != nil {
			t.Fatal(err)
		}
		_, err = os.Stat(filepath.Join(e.Stage(), "f"))
		switch {
		case replaced && err != nil:
			t.Errorf("a directory put in the recorded stage's place was removed: %v", err)
		case !replaced && !errors.Is(err, os.ErrNotExist):
			t.Errorf("the recorded stage survived the sweep: %v", err)
		}
		if _, err := os.Lstat(e.Path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("replaced %v: the stale guard survived: %v", replaced, err)
		}
	}
}

// Remove takes a Staged entry's stage, whatever is in it, and its guard;
// once the stage has been moved into place, only the guard. (Its set-up
// has TestRemove_EmptyOrNotLeavesNothing's shape; the entries, the move
// and what must remain differ, so the two stay apart.)
func TestStaged_RemoveLeavesOnlyWhatWasMovedOut(t *testing.T) {
	for _, moved := range []bool{false, true} {
		parent := t.TempDir()
		e, err := Staged(parent, ".out")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(e.Stage(), "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(e.Stage(), "events.ndjson"), []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		want := []string{}
		if moved {
			if err := os.Rename(e.Stage(), filepath.Join(parent, "out")); err != nil {
				t.Fatal(err)
			}
			want = []string{"out"}
		}
		if err := e.Remove(); err != nil {
			t.Fatalf("Remove (moved %v): %v", moved, err)
		}
		if got := fstree.Names(t, parent); !slices.Equal(got, want) {
			t.Errorf("moved %v: the parent holds %v, want %v", moved, got, want)
		}
	}
}
