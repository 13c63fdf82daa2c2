package bundle

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/detsim/detsim/internal/safefile"
	"github.com/detsim/detsim/internal/scratch"
)

// ErrOutInUse is wrapped by Create's error when another detsim run is
// writing the same output path right now.
var ErrOutInUse = scratch.ErrInUse

// checkOut returns nil if out is missing or is provably a detsim bundle
// (see provenBundle), and otherwise an error wrapping ErrOutExists that
// says what is there.
func checkOut(out string) error {
	info, err := os.Lstat(out)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("bundle: checking output path: %w", err)
	}
	var what string
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		what = "a symbolic link"
	case info.Mode().IsRegular():
		what = "a regular file"
	case !info.IsDir():
		what = "a " + info.Mode().Type().String() + " file"
	default:
		if err := provenBundle(out); err != nil {
			what = err.Error()
		}
	}
	if what == "" {
		return nil
	}
	return fmt.Errorf("bundle: %s is %s: %w; choose a new path or remove it", out, what, ErrOutExists)
}

// provenBundle returns nil when dir is a bundle detsim wrote: its
// manifest parses as a detsim manifest, and the files present are exactly
// the files it lists (plus manifest.json itself), under exactly the
// directories those files need. Anything else — a web project that
// happens to hold a manifest.json, a bundle a user added notes to — is
// described in the error, the extra entries named, and is never replaced.
// Hashes are not checked: a bundle whose content changed is still
// detsim's to replace, and hashing gigabytes before every run would cost
// more than the run.
func provenBundle(dir string) error {
	root, err := safefile.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	if _, err := root.Lstat(ManifestFile); err != nil {
		return errors.New("a directory without " + ManifestFile)
	}
	m, err := readManifest(root)
	if err != nil {
		return fmt.Errorf("a directory whose %s is not a detsim manifest (%v)", ManifestFile, strings.TrimPrefix(err.Error(), "bundle: "))
	}
	extra, missing, err := inventory(root, m)
	if err != nil {
		return fmt.Errorf("a directory detsim cannot list (%v)", err)
	}
	switch {
	case len(extra) > 0:
		return fmt.Errorf("a detsim bundle holding files detsim did not write (%s)", listSome(extra))
	case len(missing) > 0:
		return fmt.Errorf("a damaged detsim bundle: its manifest lists files that are missing (%s)", listSome(missing))
	}
	return nil
}

// inventory compares the entries under root with the files m lists.
// extra holds every entry detsim would not have written: an unlisted
// file, a symbolic link or other non-regular file, a directory no listed
// file needs (directories carry a trailing slash). missing holds listed
// files that are absent. Both are sorted.
func inventory(root *os.Root, m Manifest) (extra, missing []string, err error) {
	needed := map[string]bool{".": true}
	if m.Format == FormatV1 {
		needed[SnapshotsDir] = true // always created, empty or not
	}
	for _, rel := range slices.Sorted(maps.Keys(m.Files)) {
		for d := path.Dir(rel); d != "."; d = path.Dir(d) {
			needed[d] = true
		}
	}
	seen := map[string]bool{}
	err = fs.WalkDir(root.FS(), ".", func(rel string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			if !needed[rel] {
				extra = append(extra, rel+"/")
				return fs.SkipDir
			}
		case rel == ManifestFile && d.Type().IsRegular():
		case d.Type().IsRegular():
			if listed, _, ok := storedAs(m, rel); ok && !seen[listed] {
				seen[listed] = true
			} else {
				extra = append(extra, rel)
			}
		default:
			extra = append(extra, rel)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	for _, rel := range slices.Sorted(maps.Keys(m.Files)) {
		if !seen[rel] {
			missing = append(missing, rel)
		}
	}
	slices.Sort(extra)
	slices.Sort(missing)
	return extra, missing, nil
}

// listSome names up to five paths, and how many more there are.
func listSome(paths []string) string {
	const shown = 5
	s := strings.Join(paths[:min(len(paths), shown)], ", ")
	if len(paths) > shown {
		s += fmt.Sprintf(" and %d more", len(paths)-shown)
	}
	return s
}

// insideBundle returns the nearest directory above out that is a detsim
// bundle, or "" if there is none. A bundle is detsim's to replace whole;
// writing another bundle inside one would make it a bundle with files it
// does not list.
func insideBundle(out string) (string, error) {
	abs, err := filepath.Abs(out)
	if err != nil {
		return "", err
	}
	for dir := filepath.Dir(abs); ; dir = filepath.Dir(dir) {
		if isManifestDir(dir) {
			return dir, nil
		}
		if filepath.Dir(dir) == dir {
			return "", nil
		}
	}
}

// isManifestDir reports whether dir holds a manifest.json that reads as a
// detsim manifest.
func isManifestDir(dir string) bool {
	// Most directories hold no manifest.json: one stat says so, where
	// opening the directory as a root and closing it again costs three
	// system calls for each of out's ancestors, on every run.
	if _, err := os.Lstat(filepath.Join(dir, ManifestFile)); err != nil {
		return false
	}
	root, err := safefile.OpenRoot(dir)
	if err != nil {
		return false
	}
	defer root.Close()
	if _, err := root.Lstat(ManifestFile); err != nil {
		return false
	}
	_, err = readManifest(root)
	return err == nil
}

// sweepStale removes what killed runs left in out's parent directory,
// whatever output they were writing: every detsim temporary whose lock
// no live process holds (a bundle's work directory, a half-written page
// or pin), and every output lock file whose holder died. A killed
// 1000-peer run's work directory is hundreds of megabytes; it must not
// wait for a run with the same --out. If such a run died between moving
// the old bundle aside and moving its new one into place, its output is
// missing and the old bundle sits in the work directory: it is put back
// first (under that output's lock), so a killed run never costs the user
// the bundle they had. The caller holds out's lock.
func sweepStale(out string) error {
	parent := filepath.Dir(out)
	return scratch.SweepAll(parent, func(s scratch.Stale) error {
		if !s.Dir {
			return nil
		}
		old := filepath.Join(s.Path, oldDir)
		if _, err := os.Lstat(old); err != nil {
			return nil
		}
		theirs := filepath.Join(parent, strings.TrimPrefix(s.Prefix, "."))
		if theirs != filepath.Join(parent, filepath.Base(out)) {
			// Another output's leftover: restore it under that output's
			// lock, or leave it to the run that holds it.
			lock, err := scratch.Lock(theirs)
			if err != nil {
				return scratch.ErrKeep
			}
			defer lock.Release()
			if restoreOld(old, theirs) != nil {
				return scratch.ErrKeep // that run's to report, not this one's
			}
			return nil
		}
		return restoreOld(old, out)
	})
}

// restoreOld puts the bundle a killed run moved aside to old back at
// out, unless out now holds that run's new bundle (the old copy is then
// the leftover).
func restoreOld(old, out string) error {
	if _, err := os.Lstat(out); !errors.Is(err, fs.ErrNotExist) {
		if provenBundle(out) == nil {
			return nil // the new bundle is in place; the old copy is the leftover
		}
		// Something else now stands at out: neither it nor the old
		// bundle is detsim's to throw away.
		return fmt.Errorf("a killed run left the bundle it was replacing at %s, and %s now holds something else; move one of them", old, out)
	}
	if err := os.Rename(old, out); err != nil {
		return fmt.Errorf("restoring the bundle a killed run moved aside to %s: %w", old, err)
	}
	return nil
}

// workPrefix is the name prefix of out's work directories.
func workPrefix(out string) string { return "." + filepath.Base(out) }

// oldDir is where install moves the bundle it replaces, inside the work
// directory.
const oldDir = "old"
