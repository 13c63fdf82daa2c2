package bundle

import (
	"compress/gzip"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/detsim/detsim/internal/safefile"
)

// Compress rewrites the bundle at dir as one whose files (all but
// manifest.json, which every reader must read as it is) are stored
// gzip-compressed, for a corpus kept in git. A detsim-bundle/1 bundle is
// converted to detsim-bundle/2 on the way: its snapshot files become
// snapshots.records, in the run's emission order, so its digest is the
// one it had; every other hash in the manifest is of a file's content
// and stays as it was. Any other bundle keeps its format.
//
// dir must be a bundle that verifies (Verify finds no problem): Compress
// never rewrites what it cannot prove is a whole detsim bundle, and the
// result is verified before it replaces dir. It is built beside dir and
// put in place as Writer.Finish puts a bundle, holding dir's lock; on any
// failure dir is as it was. Compressing a compressed bundle rewrites it
// unchanged.
func Compress(dir string) error {
	dir = filepath.Clean(dir)
	problems, err := Verify(dir)
	if err != nil {
		return err
	}
	if len(problems) > 0 {
		return fmt.Errorf("bundle: %s does not verify (%d problems, the first %s); run detsim verify on it: only a whole bundle is rewritten", dir, len(problems), problems[0])
	}
	m, err := ReadManifest(dir)
	if err != nil {
		return err
	}
	w, err := Create(dir)
	if err != nil {
		return err
	}
	defer w.Abort()
	if err := w.FlushEvents(); err != nil {
		return err
	}
	if err := os.Remove(filepath.Join(w.dir, EventsFile)); err != nil {
		return w.fail(fmt.Errorf("bundle: %w", err))
	}
	files := make(map[string]string, len(m.Files))
	for _, rel := range slices.Sorted(maps.Keys(m.Files)) {
		if m.Format == FormatV1 && strings.HasPrefix(rel, SnapshotsDir+"/") {
			continue
		}
		if err := w.gzipCopy(dir, rel); err != nil {
			return err
		}
		files[rel] = m.Files[rel]
	}
	if m.Format == FormatV1 {
		sum, n, err := w.convertSnapshots(dir, m)
		if err != nil {
			return err
		}
		if n > 0 {
			files[SnapshotsFile] = sum
		}
	}
	if m.Format == FormatV1 {
		// Its snapshot files are records now; its events are as they
		// were, one record a line: the format that says exactly that.
		m.Format = FormatV2
	}
	m.Files = files
	if err := w.writeManifest(m); err != nil {
		return err
	}
	if problems, err := Verify(w.dir); err != nil || len(problems) > 0 {
		return fmt.Errorf("bundle: the compressed copy of %s does not verify (%v %v); %s is unchanged", dir, err, problems, dir)
	}
	return w.put(dir + " is compressed")
}

// gzipCopy writes the content of src's file rel into the bundle being
// built as rel+GzipSuffix. The gzip header carries no name or time, so
// the same content always compresses to the same bytes with one Go.
func (w *Writer) gzipCopy(src, rel string) error {
	in, err := OpenFile(src, rel)
	if err != nil {
		return err
	}
	defer in.Close()
	to := filepath.Join(w.dir, filepath.FromSlash(rel)+GzipSuffix)
	if d := path.Dir(rel); d != "." {
		if err := os.MkdirAll(filepath.Join(w.dir, filepath.FromSlash(d)), 0o777); err != nil {
			return w.fail(fmt.Errorf("bundle: %w", err))
		}
	}
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return w.fail(fmt.Errorf("bundle: %w", err))
	}
	zw, _ := gzip.NewWriterLevel(out, gzip.BestCompression)
	_, err = io.Copy(zw, in)
	if cerr := zw.Close(); err == nil {
		err = cerr
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return w.fail(fmt.Errorf("bundle: writing %s: %w", to, err))
	}
	return nil
}

// convertSnapshots writes the snapshot files of the detsim-bundle/1
// bundle src as snapshots.records, gzip-compressed, in the order the run
// emitted them, which is the order the digest hashed them: by request
// (at_ns, then seq) and, within one, by host in scenario.toml's peer
// order. It returns the records' hex SHA-256 and how many there are.
func (w *Writer) convertSnapshots(src string, m Manifest) (string, int, error) {
	root, err := safefile.OpenRoot(src)
	if err != nil {
		return "", 0, err
	}
	defer root.Close()
	sc, err := readRunScenario(root)
	if err != nil {
		return "", 0, fmt.Errorf("bundle: %s: %w", ScenarioFile, err)
	}
	plan := planSnapshots(sc)
	var refs []snapshotRef
	for _, rel := range slices.Sorted(maps.Keys(m.Files)) {
		if host, seq, ok := parseSnapshotPath(rel); ok {
			refs = append(refs, snapshotRef{path: rel, host: plan.hostIdx[host], seq: seq})
		}
	}
	if len(refs) == 0 {
		return "", 0, nil
	}
	slices.SortFunc(refs, func(a, b snapshotRef) int { return compareEmission(plan, a, b) })
	out, err := os.OpenFile(filepath.Join(w.dir, SnapshotsFile+GzipSuffix), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return "", 0, w.fail(fmt.Errorf("bundle: %w", err))
	}
	defer out.Close()
	zw, _ := gzip.NewWriterLevel(out, gzip.BestCompression)
	for _, r := range refs {
		f, err := openStored(root, r.path, r.path)
		if err != nil {
			return "", 0, err
		}
		data, err := readBounded(f, r.path, MaxSnapshotBytes)
		f.Close()
		if err != nil {
			return "", 0, err
		}
		h := appendSnapshotHeader(nil, r.path, plan.at[r.seq], int64(len(data)))
		w.snapHash.Write(h)
		w.snapHash.Write(data)
		if _, err := zw.Write(h); err != nil {
			return "", 0, w.fail(err)
		}
		if _, err := zw.Write(data); err != nil {
			return "", 0, w.fail(err)
		}
	}
	if err := zw.Close(); err != nil {
		return "", 0, w.fail(err)
	}
	if err := out.Close(); err != nil {
		return "", 0, w.fail(err)
	}
	return hex.EncodeToString(w.snapHash.Sum(nil)), len(refs), nil
}
