// Package outfile writes the one-file results of detsim's commands — a
// shrunk scenario, a pinned seed and its verdicts — so that a file that
// already exists is never replaced unless the user asked (--force), a
// half-written file never appears under the final name, and a symbolic
// link at the path is replaced itself, never written through to its
// target.
//
// Check runs before the work that produces the data, so an unusable path
// is refused before minutes of runs, not after.
package outfile

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/detsim/detsim/internal/safefile"
	"github.com/detsim/detsim/internal/scratch"
)

// ErrExists is wrapped when the path exists and force is off.
var ErrExists = errors.New("already exists")

// Check reports whether Write(path, …, force) can be expected to
// succeed: the path is not empty, its directory exists and takes a new
// file, and nothing is at the path — or force is set and what is there
// is a file or a symbolic link (a directory is never replaced).
func Check(path string, force bool) error {
	if path == "" {
		return errors.New("the output path is empty")
	}
	dir := filepath.Dir(path)
	info, err := os.Stat(dir)
	switch {
	case err != nil:
		return fmt.Errorf("%s: no such directory", dir)
	case !info.IsDir():
		return fmt.Errorf("%s: not a directory", dir)
	}
	if err := checkTarget(path, force); err != nil {
		return err
	}
	sweep(path)
	probe, err := scratch.File(dir, "."+filepath.Base(path))
	if err != nil {
		return fmt.Errorf("%s is not writable: %w", dir, err)
	}
	return probe.Remove()
}

func checkTarget(path string, force bool) error {
	info, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case info.IsDir():
		return fmt.Errorf("%s is a directory", path)
	case !force:
		what := "a file"
		if info.Mode()&fs.ModeSymlink != 0 {
			what = "a symbolic link"
		}
		return fmt.Errorf("%s %w as %s that this run did not write; not overwritten (--force replaces it)", path, ErrExists, what)
	case !info.Mode().IsRegular() && info.Mode()&fs.ModeSymlink == 0:
		return fmt.Errorf("%s is not a regular file (%s); not replaced", path, info.Mode().Type())
	}
	return nil
}

// Write puts data at path (mode 0644) through a temporary file beside it.
// Without force it fails with ErrExists if anything is at path, checked
// atomically by linking the finished temporary to the final name; with
// force it renames the temporary over a file or symbolic link there.
func Write(path string, data []byte, force bool) error {
	if err := checkTarget(path, force); err != nil {
		return err
	}
	sweep(path)
	tmp, err := scratch.File(filepath.Dir(path), "."+filepath.Base(path))
	if err != nil {
		return err
	}
	defer tmp.Remove()
	f := tmp.File()
	err = f.Chmod(0o644) // CreateTemp makes 0600; these files are shared
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if force {
		if err := os.Rename(tmp.Path, path); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
		tmp.Kept()
		return nil
	}
	err = os.Link(tmp.Path, path)
	switch {
	case errors.Is(err, fs.ErrExist):
		return fmt.Errorf("%s %w (it appeared while this run worked); not overwritten", path, ErrExists)
	case err != nil && !errors.Is(err, errors.ErrUnsupported) && !isNoLink(err):
		return fmt.Errorf("writing %s: %w", path, err)
	case err != nil:
		return createExclusive(path, data) // a filesystem without hard links
	}
	return nil // the deferred Remove drops the temporary name
}

// createExclusive writes data to a new file at path, failing if it
// exists: the fallback where hard links are not supported.
func createExclusive(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s %w; not overwritten", path, ErrExists)
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path) // ours: created above, exclusively
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// sweep removes the temporaries of path that a killed process left
// beside it. A failure to remove one is no reason to refuse the write.
func sweep(path string) {
	_ = RemoveStale(path)
}

// Holds reports whether path is a regular file, not a symbolic link,
// holding exactly data: what a Write of data left in place. A caller
// that writes several files in order uses it to recognise the first of
// them, left by a run killed before the last, as its own.
func Holds(path string, data []byte) bool {
	info, err := os.Lstat(path)
	if err != nil || !info.Mode().IsRegular() || info.Size() != int64(len(data)) {
		return false
	}
	got, err := safefile.ReadFile(path, int64(len(data)))
	return err == nil && bytes.Equal(got, data)
}

// RemoveStale removes the temporaries of path that a killed Write left
// beside it (named for path, and locked by no live process), and nothing
// else. Check and Write do it themselves; a caller that finishes a
// killed write without calling either (a pin whose verdicts file was
// already in place) calls it.
func RemoveStale(path string) error {
	return scratch.Sweep(filepath.Dir(path), "."+filepath.Base(path), nil)
}
