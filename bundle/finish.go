package bundle

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"

	"github.com/detsim/detsim/internal/scratch"
)

// Finish completes the bundle and moves it to the output path. It writes
// scenario.toml and verdicts.json as given and known_gaps.md from the
// copy built into the binary, fills in m's writer-owned fields (see
// Manifest), writes manifest.json last, and renames the bundle into
// place (nothing is fsynced: writeFile says why).
//
// If the output path holds a bundle, Finish renames it into a work
// directory of its own beside it, renames the new bundle into place, then
// deletes the old one. Between the two renames — two metadata operations
// on one filesystem — the output path does not exist; a crash in that
// window leaves both bundles intact, and the next run beside them puts
// the old one back. Finish never replaces anything
// but a bundle: if a non-bundle appeared at the output path since Create,
// it fails with ErrOutExists.
//
// On failure the output path is as it was and the work directory remains
// until Abort.
func (w *Writer) Finish(m Manifest, scenarioTOML []byte, verdictsJSON []byte) error {
	if err := w.FlushEvents(); err != nil {
		return err
	}
	if err := w.usable(flushed, "Finish"); err != nil {
		return err
	}
	if err := w.closeSnapshots(); err != nil {
		return err
	}
	for _, f := range []struct {
		rel  string
		data []byte
	}{
		{ScenarioFile, scenarioTOML},
		{VerdictsFile, verdictsJSON},
		{KnownGapsFile, knownGaps},
	} {
		if err := w.writeFile(f.rel, f.data); err != nil {
			return err
		}
	}

	m.Format = Format
	m.TimeUnit = "ns"
	m.Clock = "virtual"
	first := ReceiveTimeSubstitution
	switch m.Mode {
	case ModeLive:
		m.Clock, first = "wall", LiveClockSubstitution
	case ModeTestbed:
		m.Clock, first = "wall", TestbedClockSubstitution
	case ModeEdge:
		m.Clock, first = "wall", EdgeClockSubstitution
	}
	m.Records = w.records
	m.EventsSHA256 = w.files[EventsFile]
	m.Files = maps.Clone(w.files)
	m.Substitutions = mergeSubstitutions(first, m.Substitutions)
	if err := w.writeManifest(m); err != nil {
		return err
	}
	return w.put(w.out + " is complete")
}

// writeManifest writes m as manifest.json: the last file a bundle is
// given (Finish and Compress alike), the one every reader opens first.
func (w *Writer) writeManifest(m Manifest) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return w.fail(fmt.Errorf("bundle: encoding manifest: %w", err))
	}
	if err := w.writeFile(ManifestFile, append(data, '\n')); err != nil {
		return err
	}
	delete(w.files, ManifestFile) // the manifest does not list itself
	w.manifest = m
	return nil
}

// Manifest returns the manifest Finish wrote, with every writer-owned
// field filled in: what ReadManifest of the output path would return,
// without opening and parsing it again.
func (w *Writer) Manifest() Manifest { return w.manifest }

// put moves the built bundle to the output path (install, as a critical
// section), then removes the work directories and releases the lock.
// done says what is already true should only that removal fail: the
// bundle is in place by then.
func (w *Writer) put(done string) error {
	if w.aside == nil {
		// Made outside the critical section, which holds off the
		// registry a new scratch entry must join.
		if _, err := os.Lstat(w.out); err == nil {
			aside, err := scratch.Dir(filepath.Dir(w.out), workPrefix(w.out))
			if err != nil {
				return fmt.Errorf("bundle: creating work directory for %s: %w", w.out, err)
			}
			w.aside = aside
		}
	}
	if err := scratch.Critical(w.install); err != nil {
		return err
	}
	w.state = finished
	err := w.work.Remove()
	if w.aside != nil {
		err = errors.Join(err, w.aside.Remove())
	}
	w.lock.Release()
	if err != nil {
		return fmt.Errorf("bundle: %s, but removing the work directory failed: %w", done, err)
	}
	return nil
}

// install renames the finished bundle to the output path, setting aside
// an existing bundle there first. It runs as a scratch.Critical section:
// a signal must not remove the work directory while the old bundle is in
// it.
func (w *Writer) install() error {
	replacing := false
	if _, err := os.Lstat(w.out); err == nil {
		if err := checkOut(w.out); err != nil {
			return err
		}
		if w.aside == nil {
			return fmt.Errorf("bundle: a bundle appeared at %s while this run wrote its own; run again to replace it", w.out)
		}
		replacing = true
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("bundle: checking output path: %w", err)
	}
	old := ""
	if replacing {
		old = filepath.Join(w.aside.Path, oldDir)
		if err := os.Rename(w.out, old); err != nil {
			return fmt.Errorf("bundle: moving the old bundle aside: %w", err)
		}
	}
	if err := os.Rename(w.dir, w.out); err != nil {
		if replacing {
			if rerr := os.Rename(old, w.out); rerr != nil {
				return fmt.Errorf("bundle: moving the new bundle into place: %w (and restoring the old one failed: %v; it is at %s)", err, rerr, old)
			}
		}
		return fmt.Errorf("bundle: moving the new bundle into place: %w", err)
	}
	return nil
}
