package bundle

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"slices"

	"github.com/detsim/detsim/internal/safefile"
)

// Problem is one way a bundle on disk differs from its manifest.
type Problem struct {
	// Path is the slash-separated bundle path the problem is about.
	Path string
	Msg  string
}

func (p Problem) String() string { return p.Path + ": " + p.Msg }

// requiredFiles are the files every bundle's manifest must list.
var requiredFiles = []string{EventsFile, KnownGapsFile, ScenarioFile, VerdictsFile}

// ReadManifest reads and decodes dir's manifest.json. It fails if the
// manifest is unreadable, is not JSON, or is not a Format manifest.
func ReadManifest(dir string) (Manifest, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return Manifest{}, fmt.Errorf("bundle: %w", err)
	}
	defer root.Close()
	return readManifest(root)
}

// MaxManifestBytes bounds manifest.json. A manifest lists one line per
// file; a run of 10,000 hosts with 1,000 snapshot requests each would list
// 10^7 files, far past any run the engine can hold, in about 1 GB. 64 MiB
// leaves room for any real bundle and keeps a hostile one from filling
// memory.
const MaxManifestBytes = 64 << 20

// readManifest reads the manifest through root. It refuses anything but
// a regular file before reading (a FIFO would block the read forever)
// and a manifest over MaxManifestBytes.
func readManifest(root *os.Root) (Manifest, error) {
	f, err := safefile.OpenIn(root, ManifestFile)
	if err != nil {
		return Manifest{}, fmt.Errorf("bundle: %w", err)
	}
	defer f.Close()
	data, err := safefile.Read(f, ManifestFile, MaxManifestBytes)
	if err != nil {
		return Manifest{}, fmt.Errorf("bundle: %w", err)
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return Manifest{}, fmt.Errorf("bundle: %s: %w", ManifestFile, err)
	}
	if m.Format != Format {
		return Manifest{}, fmt.Errorf("bundle: %s: format %q, this detsim reads %q", ManifestFile, m.Format, Format)
	}
	if m.Files == nil {
		return Manifest{}, fmt.Errorf("bundle: %s: no files listed", ManifestFile)
	}
	return m, nil
}

// Verify rechecks a bundle against its manifest: every listed file must
// exist with the listed SHA-256, every file present must be listed,
// events.ndjson must hold the manifest's record count, and the manifest
// must list the files every bundle has. It returns the problems sorted by
// path; none means the bundle is intact. The error is for a manifest that
// cannot be read or decoded, when there is nothing to check against.
//
// Files are read through an os.Root, so a manifest or symbolic link can
// never make Verify read outside dir.
func Verify(dir string) ([]Problem, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("bundle: %w", err)
	}
	defer root.Close()
	m, err := readManifest(root)
	if err != nil {
		return nil, err
	}

	var problems []Problem
	add := func(path, format string, args ...any) {
		problems = append(problems, Problem{Path: path, Msg: fmt.Sprintf(format, args...)})
	}
	for _, rel := range requiredFiles {
		if _, ok := m.Files[rel]; !ok {
			add(rel, "required bundle file not listed in the manifest")
		}
	}
	if want, ok := m.Files[EventsFile]; ok && m.EventsSHA256 != want {
		add(ManifestFile, "events_sha256 %s differs from the files entry for %s (%s)", m.EventsSHA256, EventsFile, want)
	}

	seen := make(map[string]bool)
	walkErr := fs.WalkDir(root.FS(), ".", func(rel string, d fs.DirEntry, err error) error {
		if err != nil {
			add(rel, "unreadable: %v", err)
			return nil
		}
		if d.IsDir() || rel == ManifestFile {
			return nil
		}
		want, listed := m.Files[rel]
		if listed {
			seen[rel] = true
		}
		switch {
		case !d.Type().IsRegular():
			add(rel, "not a regular file (%s)", d.Type())
		case !listed:
			add(rel, "present in the bundle but not listed in the manifest")
		default:
			sum, lines, err := hashFile(root, rel)
			switch {
			case err != nil:
				add(rel, "unreadable: %v", err)
			case sum != want:
				add(rel, "content changed: manifest lists sha256 %s, file has %s", want, sum)
			case rel == EventsFile && lines != m.Records:
				add(rel, "holds %d records, manifest lists %d", lines, m.Records)
			}
		}
		return nil
	})
	if walkErr != nil {
		add(".", "walking the bundle: %v", walkErr)
	}
	for _, rel := range slices.Sorted(maps.Keys(m.Files)) {
		switch {
		case seen[rel]:
		case rel == ManifestFile || !fs.ValidPath(rel) || rel == ".":
			add(rel, "not a valid bundle file path")
		default:
			add(rel, "listed in the manifest but missing")
		}
	}
	slices.SortStableFunc(problems, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Msg, b.Msg))
	})
	return problems, nil
}

// hashFile streams one bundle file through SHA-256, counting its lines.
func hashFile(root *os.Root, rel string) (sum string, lines int64, err error) {
	f, err := root.Open(rel)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	buf := make([]byte, 256<<10)
	for {
		n, err := f.Read(buf)
		h.Write(buf[:n])
		lines += int64(bytes.Count(buf[:n], []byte{'\n'}))
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", 0, err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), lines, nil
}
