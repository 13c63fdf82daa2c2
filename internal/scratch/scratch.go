// Package scratch owns the temporary files and directories detsim works in
// before it moves a result into place, and the locks that say an output
// path is in use.
//
// Everything it makes is recognisably detsim's: the name carries
// TempInfix, and the entry is locked (flock) for as long as the process
// that made it lives. So a later run can tell a stale leftover of a killed
// run (its lock is free) from the live work of a concurrent one (its lock
// is held), and removes only the former. A SIGINT or SIGTERM handler calls
// RemoveLive to take a process's own entries with it.
//
// This package is outside the determinism fence by design: it reads the
// host filesystem and its locks, never anything a run decides on.
package scratch

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/detsim/detsim/internal/safefile"
)

// TempInfix marks a name as a detsim temporary: <prefix>.detsim-tmp-<random>.
const TempInfix = ".detsim-tmp-"

// lockName is the file inside a temporary directory whose lock marks it
// live.
const lockName = ".detsim-lock"

// ErrInUse is returned by Lock when another live process holds the lock.
var ErrInUse = errors.New("in use by another detsim run")

// mu serialises RemoveLive with Critical sections and with the registry.
// Making an entry holds it from the first system call to registration,
// so a signal landing at any moment finds every entry on disk registered;
// after RemoveLive (closing) nothing new is made.
var (
	mu      sync.Mutex
	live    = map[*Entry]bool{}
	closing bool
)

// ErrClosing is returned when an entry or lock is asked for after
// RemoveLive: the process is on its way out.
var ErrClosing = errors.New("detsim is stopping")

// Entry is one temporary file or directory this process made and holds.
type Entry struct {
	Path string
	dir  bool
	// stage is the directory an entry made by Staged builds in, beside
	// its guard (Path); "" for Dir and File.
	stage string
	lock  *os.File // the flocked file: the entry itself, or lockName inside it
	done  bool
}

// stageSuffix names the directory Dir builds beside its guard file
// before the rename that puts it in place.
const stageSuffix = ".stage"

// Dir creates a new temporary directory in parent named
// <prefix>.detsim-tmp-<random>, holding its lock file, and registers it
// for RemoveLive.
//
// A directory cannot be made with its lock file in one step, and a kill
// between the two would leave a directory without a lock file, which no
// sweep may remove: a user's directory of that name looks the same. So
// the directory is built under its guard's name plus stageSuffix, beside
// the guard, a locked temporary file (which a sweep can always judge:
// a file is its own lock), and the guard is the proof that the stage is
// detsim's. The guard itself then moves into the stage as its lock file,
// still locked (a lock belongs to the open file, not to its name), and
// the stage takes the guard's old name by a rename. Whenever the process
// dies, the next Sweep finds a stale guard (and removes its empty stage
// with it), a stale locked stage or a stale locked directory. Moving the
// guard in rather than making a second lock file and removing the guard
// spares a file's creation and removal a directory, the most costly
// steps on a journalling filesystem (docs/BENCHMARKS.md, "Fewer files
// made and removed").
func Dir(parent, prefix string) (*Entry, error) {
	return create(func() (*Entry, error) {
		guard, path, stage, err := guardedStage(parent, prefix, 0o700)
		if err != nil {
			return nil, err
		}
		// From here on a kill leaves a stale locked stage: the guard is
		// its lock file.
		if err := os.Rename(path, filepath.Join(stage, lockName)); err != nil {
			dropGuardedStage(guard, stage)
			return nil, err
		}
		afterDirStep("guard moved in")
		if err := renameNoReplace(stage, path); err != nil {
			// Whatever now sits at path is not ours: only the stage goes.
			_ = os.RemoveAll(stage)
			guard.Close()
			return nil, err
		}
		return &Entry{Path: path, dir: true, lock: guard}, nil
	})
}

// Staged creates a directory to build a result in and move into place
// whole: <prefix>.detsim-tmp-<random>.stage in parent (Stage), guarded by
// the locked temporary file <prefix>.detsim-tmp-<random> beside it (the
// Entry's Path), and registers both for RemoveLive.
//
// Unlike Dir's directory, the stage never holds a lock file, so it can be
// renamed into place as it is (a bundle is exactly its files): one
// directory, and the renames that move the guard in and out, fewer than
// building the result inside a Dir (docs/BENCHMARKS.md, "The bundle built
// in its stage"). The guard proves the stage detsim's by more than its
// name: right after making the stage it records the stage's device and
// inode number, and a sweep that finds the guard stale removes the stage
// whole only if the directory of that name is still the one recorded
// (docs/decisions.md, "Output paths"); without a record (a kill before
// it) only an empty stage goes, as for Dir. Move the stage with
// os.Rename, then Remove the entry, which takes the guard; or Remove it
// without moving the stage, which takes both.
func Staged(parent, prefix string) (*Entry, error) {
	return create(func() (*Entry, error) {
		guard, path, stage, err := guardedStage(parent, prefix, 0o777)
		if err != nil {
			return nil, err
		}
		if err := recordStage(guard, stage); err != nil {
			dropGuardedStage(guard, stage)
			return nil, err
		}
		afterDirStep("stage recorded")
		return &Entry{Path: path, stage: stage, lock: guard}, nil
	})
}

// guardedStage makes the first two steps of Dir and Staged: a locked
// guard file <prefix>.detsim-tmp-<random> in parent (path), then the
// empty directory stage beside it, with mode perm.
func guardedStage(parent, prefix string, perm os.FileMode) (guard *os.File, path, stage string, err error) {
	guard, err = lockedTempFile(parent, prefix)
	if err != nil {
		return nil, "", "", err
	}
	path = guard.Name()
	stage = path + stageSuffix
	afterDirStep("guard locked")
	if err := os.Mkdir(stage, perm); err != nil {
		_ = os.Remove(path)
		guard.Close()
		return nil, "", "", err
	}
	afterDirStep("stage made")
	return guard, path, stage, nil
}

// dropGuardedStage undoes guardedStage when a later step fails: the
// stage (still empty), then the guard.
func dropGuardedStage(guard *os.File, stage string) {
	_ = os.Remove(stage)
	_ = os.Remove(guard.Name())
	guard.Close()
}

// Stage is the directory of an Entry made by Staged.
func (e *Entry) Stage() string { return e.stage }

// afterDirStep is called after each step of Dir that leaves something on
// disk. A test replaces it to kill the process there (dirsteps_test.go).
var afterDirStep = func(step string) {}

// lockedTempFile creates <prefix>.detsim-tmp-<random> in parent and
// locks it. A kill before the lock leaves an unlocked temporary file,
// which a sweep removes.
func lockedTempFile(parent, prefix string) (*os.File, error) {
	f, err := createTemp(parent, prefix+TempInfix)
	if err != nil {
		return nil, err
	}
	if err := tryLock(f); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return f, nil
}

// createTemp is os.CreateTemp(parent, prefix+"*") opened by
// safefile.OpenPlain: a random decimal name, never an existing one.
func createTemp(parent, prefix string) (*os.File, error) {
	for try := 0; ; try++ {
		name := filepath.Join(parent, prefix+strconv.FormatUint(uint64(rand.Uint32()), 10))
		f, err := safefile.OpenPlain(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) && try < 10000 {
			continue
		}
		return f, err
	}
}

// File creates a new temporary file in parent named
// <prefix>.detsim-tmp-<random>, locked, and registers it. Write to
// Entry.File(); then Keep it under its final name, or Remove it.
func File(parent, prefix string) (*Entry, error) {
	return create(func() (*Entry, error) {
		f, err := lockedTempFile(parent, prefix)
		if err != nil {
			return nil, err
		}
		return &Entry{Path: f.Name(), lock: f}, nil
	})
}

// create makes an entry, holding mu so that RemoveLive cannot run
// between its making and its registering, and registers it; once
// RemoveLive has begun it makes nothing (ErrClosing).
func create(build func() (*Entry, error)) (*Entry, error) {
	mu.Lock()
	defer mu.Unlock()
	if closing {
		return nil, ErrClosing
	}
	e, err := build()
	if err != nil {
		return nil, err
	}
	live[e] = true
	return e, nil
}

// File is the open temporary file of an Entry made by File.
func (e *Entry) File() *os.File { return e.lock }

// Remove deletes the entry and releases its lock. Calling it again, or
// after Kept, does nothing.
func (e *Entry) Remove() error {
	mu.Lock()
	defer mu.Unlock()
	return e.removeLocked()
}

func (e *Entry) removeLocked() error {
	if e.done {
		return nil
	}
	e.done = true
	delete(live, e)
	var err error
	if e.stage != "" {
		// The stage first (gone already if it was moved into place),
		// the guard only once it is: while the stage is there, the
		// guard is what lets a sweep remove it.
		if err = removeAllSoon(e.stage); err == nil {
			afterDirStep("stage gone")
			err = os.Remove(e.Path)
		}
	} else if e.dir && e.removeEmpty() {
		err = nil
	} else if e.dir {
		// Out of the way first: whoever is still writing into the
		// directory by its path (the run the signal interrupted) now
		// gets ENOENT, instead of adding a file RemoveAll has already
		// passed and leaving the directory behind, not empty.
		path := e.Path
		if os.Rename(path, path+".rm") == nil {
			path += ".rm"
		}
		err = removeAllSoon(path)
	} else {
		err = os.Remove(e.Path)
	}
	e.lock.Close() // after the removal: a sweeper never sees it unlocked
	if errors.Is(err, fs.ErrNotExist) {
		err = nil
	}
	return err
}

// removeAllSoon removes path and everything in it. A create already
// under way in it (the run a signal interrupted, still writing) can land
// after RemoveAll read the directory: it tries again briefly.
func removeAllSoon(path string) error {
	var err error
	for range 5 {
		if err = os.RemoveAll(path); err == nil {
			break
		}
		time.Sleep(time.Millisecond)
	}
	return err
}

// removeEmpty takes apart a directory entry that holds nothing but its
// lock file, as a bundle's work directory does once the bundle has moved
// out, by Dir's steps in reverse: the directory becomes its stage again,
// its lock file the guard beside it (still locked: the lock belongs to
// the open file), then the empty stage goes, then the guard. So a kill
// at any step leaves only what a sweep removes, where removing the lock
// file first would leave an empty directory no sweep may touch; and it
// takes four system calls where a rename out of the way and a walk take
// ten. It reports false, with the directory put back under its name,
// when anything else is there (a run a signal interrupted may be writing
// into it), and the caller takes the long way.
func (e *Entry) removeEmpty() bool {
	stage := e.Path + stageSuffix
	inside := filepath.Join(stage, lockName)
	if renameNoReplace(e.Path, stage) != nil {
		return false
	}
	afterDirStep("stage again")
	if renameNoReplace(inside, e.Path) != nil {
		_ = renameNoReplace(stage, e.Path)
		return false
	}
	afterDirStep("guard out")
	if os.Remove(stage) != nil {
		if renameNoReplace(e.Path, inside) == nil {
			_ = renameNoReplace(stage, e.Path)
		}
		return false
	}
	afterDirStep("stage removed")
	return os.Remove(e.Path) == nil
}

// Kept tells the registry that the entry's file was moved to its final
// name (by rename or link) and must not be removed. It closes the file.
func (e *Entry) Kept() {
	mu.Lock()
	defer mu.Unlock()
	if !e.done {
		e.done = true
		delete(live, e)
		e.lock.Close()
	}
}

// Critical runs f with RemoveLive held off: a rename that moves a user's
// old bundle aside and the new one into place must not be cut in half by
// a signal handler removing the directory the old one sits in.
func Critical(f func() error) error {
	mu.Lock()
	defer mu.Unlock()
	return f()
}

// RemoveLive removes every entry this process still holds and releases
// every Lock. A signal handler calls it just before the process exits.
func RemoveLive() {
	mu.Lock()
	defer mu.Unlock()
	closing = true
	for e := range live { // order is irrelevant: every entry goes
		_ = e.removeLocked()
	}
	for l := range locks {
		l.releaseLocked()
	}
}

// Stale is a leftover of a dead process found by Sweep.
type Stale struct {
	Path string
	Dir  bool
	// Prefix is the name's part before TempInfix: the prefix Dir or
	// File was given.
	Prefix string
}

// ErrKeep, returned by a Sweep handler, leaves the entry where it is
// without counting as a failure.
var ErrKeep = errors.New("keep it")

// Sweep finds the temporaries in parent whose name is prefix+TempInfix+…
// (any name holding TempInfix when prefix is "") and whose lock no live
// process holds, and calls handle for each (nil handle: remove it). A
// directory counts only if it holds detsim's lock file: anything else of
// that name is left alone. Sweep holds each stale entry's lock while
// handle runs, so two sweepers never handle the same one.
func Sweep(parent, prefix string, handle func(Stale) error) error {
	return eachEntry(parent, func(d fs.DirEntry) error {
		return sweepEntry(parent, prefix, handle, d)
	})
}

// SweepAll is Sweep(parent, "", handle) and SweepLocks(parent) over one
// listing of parent: a bundle's Create does both before every run.
func SweepAll(parent string, handle func(Stale) error) error {
	return eachEntry(parent, func(d fs.DirEntry) error {
		return errors.Join(sweepEntry(parent, "", handle, d), sweepLock(parent, d))
	})
}

// sweepEntry is Sweep's test and handling of one entry of parent.
func sweepEntry(parent, prefix string, handle func(Stale) error, d fs.DirEntry) error {
	name := d.Name()
	at := strings.Index(name, TempInfix)
	if at < 0 || prefix != "" && name[:at] != prefix {
		return nil
	}
	path := filepath.Join(parent, name)
	s := Stale{Path: path, Dir: d.IsDir(), Prefix: name[:at]}
	lockPath := path
	switch {
	case d.IsDir():
		lockPath = filepath.Join(path, lockName)
	case !d.Type().IsRegular():
		return nil
	}
	f, err := os.OpenFile(lockPath, os.O_RDWR, 0)
	if err != nil {
		return nil // no lock file: not detsim's, or already gone
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return nil
	}
	if tryLock(f) != nil {
		return nil // live: another process works there
	}
	if handle != nil {
		err = handle(s)
	}
	if errors.Is(err, ErrKeep) {
		return nil
	}
	if err == nil {
		if s.Dir {
			err = os.RemoveAll(path)
		} else if err = removeStage(f, path+stageSuffix); err == nil {
			err = os.Remove(path)
		}
		if errors.Is(err, fs.ErrNotExist) {
			err = nil
		}
	}
	if err != nil {
		return fmt.Errorf("removing stale %s: %w", path, err)
	}
	return nil
}

// eachEntry calls fn with each entry sweepList finds in parent, and
// returns the errors fn returned, joined: Sweep and SweepLocks each walk
// a directory this way, with their own test of an entry.
func eachEntry(parent string, fn func(fs.DirEntry) error) error {
	ents, err := sweepList(parent)
	if err != nil {
		return err
	}
	var errs []error
	for _, d := range ents {
		if err := fn(d); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// removeStage removes the stage beside a stale guard file (the caller
// holds the guard's lock). The stage of an entry made by Staged, which
// the guard recorded, goes whole, whatever the run had written into it.
// Any other is the stage a Dir killed before its rename, or a removal
// killed after moving the lock file out, left beside its guard; such a
// stage is empty: the guard itself is the stage's lock file when it has
// one, and is then not beside it. So only an empty directory goes
// (rmdir refuses anything else); whatever else bears the name is left
// alone.
func removeStage(guard *os.File, stage string) error {
	if recordedStage(guard, stage) {
		if err := os.RemoveAll(stage); err != nil {
			return err // the guard stays, for a later sweep to finish
		}
		return nil
	}
	err := syscall.Rmdir(stage)
	if err == nil || errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTEMPTY) ||
		errors.Is(err, syscall.EEXIST) || errors.Is(err, syscall.ENOTDIR) {
		return nil
	}
	return &os.PathError{Op: "rmdir", Path: stage, Err: err}
}

// sweepList lists parent for a sweep: nothing where locks cannot be
// taken (live cannot be told from stale) or parent is missing.
func sweepList(parent string) ([]fs.DirEntry, error) {
	if !canLock {
		return nil, nil
	}
	ents, err := os.ReadDir(parent)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return ents, err
}

// SweepLocks removes the output locks (LockPath) in parent whose holder
// has died: a lock file no live process holds the lock of. Lock's check
// that its file is still the one at the path makes removing it safe
// against a process taking it at that moment.
func SweepLocks(parent string) error {
	return eachEntry(parent, func(d fs.DirEntry) error { return sweepLock(parent, d) })
}

// sweepLock is SweepLocks' test and handling of one entry of parent.
func sweepLock(parent string, d fs.DirEntry) error {
	name := d.Name()
	if !d.Type().IsRegular() || !strings.HasPrefix(name, ".") || !strings.HasSuffix(name, lockName) || name == lockName {
		return nil
	}
	path := filepath.Join(parent, name)
	if heldHere(path) {
		return nil // live: this process's own (a bundle's Create holds out's lock as it sweeps)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	if tryLock(f) == nil {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("removing stale lock %s: %w", path, err)
		}
	}
	return nil
}

// heldHere reports whether this process holds the output lock whose
// file is path: no need to open it and be refused its flock.
func heldHere(path string) bool {
	mu.Lock()
	defer mu.Unlock()
	for l := range locks { // any order: looking for one
		if l.path == path {
			return true
		}
	}
	return false
}

// OutLock is a held lock on an output path.
type OutLock struct {
	path string
	f    *os.File
	done bool
}

var locks = map[*OutLock]bool{}

// LockPath is the lock file guarding out: .<base>.detsim-lock beside it.
func LockPath(out string) string {
	return filepath.Join(filepath.Dir(out), "."+filepath.Base(out)+lockName)
}

// Lock takes the lock guarding the output path out, creating its lock
// file. It fails at once with an error wrapping ErrInUse when another
// process holds it. Release removes the file.
func Lock(out string) (*OutLock, error) {
	path := LockPath(out)
	mu.Lock()
	defer mu.Unlock()
	if closing {
		return nil, ErrClosing
	}
	for range 8 {
		f, err := safefile.OpenPlain(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, err
		}
		if err := tryLock(f); err != nil {
			f.Close()
			if errors.Is(err, errWouldBlock) {
				return nil, fmt.Errorf("%s: %w", out, ErrInUse)
			}
			return nil, err
		}
		// The holder before us may have removed the file after we opened
		// it: our lock is then on an unlinked inode and guards nothing.
		held, err1 := f.Stat()
		now, err2 := os.Stat(path)
		if err1 == nil && err2 == nil && os.SameFile(held, now) {
			l := &OutLock{path: path, f: f}
			locks[l] = true
			return l, nil
		}
		f.Close()
	}
	return nil, fmt.Errorf("%s: its lock file %s keeps changing", out, path)
}

// Release removes the lock file and releases the lock. Calling it again
// does nothing.
func (l *OutLock) Release() {
	mu.Lock()
	defer mu.Unlock()
	l.releaseLocked()
}

func (l *OutLock) releaseLocked() {
	if l.done {
		return
	}
	l.done = true
	delete(locks, l)
	os.Remove(l.path) // while still locked: see Lock's SameFile check
	l.f.Close()
}

// ForgetForTest drops an entry's and a lock's hold without removing
// anything, leaving what a SIGKILLed process leaves. Tests only.
func ForgetForTest(e *Entry, l *OutLock) {
	mu.Lock()
	defer mu.Unlock()
	if e != nil && !e.done {
		e.done = true
		delete(live, e)
		e.lock.Close()
	}
	if l != nil && !l.done {
		l.done = true
		delete(locks, l)
		l.f.Close()
	}
}

// recordStage writes stage's identity (stageID) into its guard, for a
// sweep to check with recordedStage. Where there is no identity to
// record, the guard stays empty and a sweep removes the stage only when
// it is empty.
func recordStage(guard *os.File, stage string) error {
	id, ok := stageID(stage)
	if !ok {
		return nil
	}
	_, err := guard.WriteAt([]byte(id), 0)
	return err
}

// recordedStage reports whether guard records the directory now at
// stage: the one its (dead) maker created and wrote into, not merely one
// of that name.
func recordedStage(guard *os.File, stage string) bool {
	id, ok := stageID(stage)
	if !ok {
		return false
	}
	buf := make([]byte, len(id)+1)
	n, _ := guard.ReadAt(buf, 0)
	return string(buf[:n]) == id
}
