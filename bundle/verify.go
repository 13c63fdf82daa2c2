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
	"path"
	"slices"
	"strconv"
	"strings"

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
	root, err := safefile.OpenRoot(dir)
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

// MaxVerdictsBytes bounds verdicts.json as a reader loads it whole (the
// page): an assertion's evidence is a bounded list of references, so a
// real file is kilobytes; the bound only keeps a hostile one from filling
// memory.
const MaxVerdictsBytes = 64 << 20

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

// Verify rechecks everything a bundle claims and returns the problems
// sorted by path, one per difference; none means the bundle is
// internally consistent. It checks that
//
//   - every listed file exists, is a regular file and has the listed
//     SHA-256; every file present is listed; no directory is present that
//     no listed file is in; every listed path is a file of the bundle
//     format, and the manifest lists the files every bundle has;
//   - events.ndjson holds the manifest's record count, and events_sha256
//     agrees with the files entry;
//   - the manifest agrees with scenario.toml: the same seed; duration_ns
//     equal to scenario.toml's, or at most it when the scenario terminates
//     early; scenario_sha256 is a SHA-256 (it is the hash of the file the
//     user gave, which the bundle does not hold, so nothing more can be
//     checked of it);
//   - the snapshot files are exactly those the scenario's requests make:
//     one per host running at each request up to the run's end;
//   - the digest recomputed from events.ndjson and the snapshot files is
//     the manifest's.
//
// The scenario checks run only when scenario.toml matches its hash, and
// the digest is recomputed only when events.ndjson and every snapshot
// file match theirs and name a host and request of the scenario:
// otherwise the file's own problem is the report. The error is for a
// manifest that cannot be read or decoded, when there is nothing to check
// against.
//
// This proves consistency, not origin: whoever rewrites a bundle can
// rewrite its manifest to match (docs/bundle.md, "What verify promises").
//
// Files are read through an os.Root, so a manifest or symbolic link can
// never make Verify read outside dir, and through internal/safefile, so a
// FIFO or device in the bundle is reported, never read.
func Verify(dir string) ([]Problem, error) {
	root, err := safefile.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("bundle: %w", err)
	}
	defer root.Close()
	m, err := readManifest(root)
	if err != nil {
		return nil, err
	}

	v := &verifier{root: root, m: m, intact: make(map[string]bool)}
	v.files()
	v.manifestFields()
	if v.intact[ScenarioFile] {
		v.scenario()
	}
	slices.SortStableFunc(v.problems, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Msg, b.Msg))
	})
	return v.problems, nil
}

// verifier holds one Verify's state.
type verifier struct {
	root      *os.Root
	m         Manifest
	problems  []Problem
	intact    map[string]bool // listed files present with their listed hash
	eventsSum []byte          // events.ndjson's SHA-256, when intact
	snapshots []string        // listed paths under snapshots/, sorted
}

func (v *verifier) add(path, format string, args ...any) {
	v.problems = append(v.problems, Problem{Path: path, Msg: fmt.Sprintf(format, args...)})
}

// files checks the files on disk against the manifest's list.
func (v *verifier) files() {
	m := v.m
	for _, rel := range requiredFiles {
		if _, ok := m.Files[rel]; !ok {
			v.add(rel, "required bundle file not listed in the manifest")
		}
	}
	if want, ok := m.Files[EventsFile]; ok && m.EventsSHA256 != want {
		v.add(ManifestFile, "events_sha256 %s differs from the files entry for %s (%s)", m.EventsSHA256, EventsFile, want)
	}

	// dirs are the directories a bundle may hold: snapshots/, always
	// created, and every listed file's parents.
	dirs := map[string]bool{SnapshotsDir: true}
	listed := slices.Sorted(maps.Keys(m.Files))
	for _, rel := range listed {
		if !fs.ValidPath(rel) {
			continue
		}
		for d := path.Dir(rel); d != "."; d = path.Dir(d) {
			dirs[d] = true
		}
	}

	seen := make(map[string]bool)
	walkErr := fs.WalkDir(v.root.FS(), ".", func(rel string, d fs.DirEntry, err error) error {
		if err != nil {
			v.add(rel, "unreadable: %v", err)
			return nil
		}
		if d.IsDir() {
			if rel != "." && !dirs[rel] {
				v.add(rel, "a directory no listed file is in: a bundle holds only what its manifest lists")
			}
			return nil
		}
		if rel == ManifestFile {
			return nil
		}
		want, isListed := m.Files[rel]
		if isListed {
			seen[rel] = true
		}
		switch {
		case !d.Type().IsRegular():
			v.add(rel, "not a regular file (%s)", safefile.Describe(d.Type()))
		case !isListed:
			v.add(rel, "present in the bundle but not listed in the manifest")
		default:
			sum, lines, err := hashFile(v.root, rel)
			switch {
			case err != nil:
				v.add(rel, "unreadable: %v", err)
			case hex.EncodeToString(sum) != want:
				v.add(rel, "content changed: manifest lists sha256 %s, file has %x", want, sum)
			case rel == EventsFile && lines != m.Records:
				v.add(rel, "holds %d records, manifest lists %d", lines, m.Records)
				v.intact[rel] = true
				v.eventsSum = sum
			default:
				v.intact[rel] = true
				if rel == EventsFile {
					v.eventsSum = sum
				}
			}
		}
		return nil
	})
	if walkErr != nil {
		v.add(".", "walking the bundle: %v", walkErr)
	}
	for _, rel := range listed {
		switch {
		case rel == ManifestFile || !fs.ValidPath(rel) || rel == ".":
			v.add(rel, "not a valid bundle file path")
			continue
		case !seen[rel]:
			v.add(rel, "listed in the manifest but missing")
		}
		switch {
		case slices.Contains(requiredFiles, rel):
		case strings.HasPrefix(rel, SnapshotsDir+"/"):
			if _, _, ok := parseSnapshotPath(rel); !ok {
				v.add(rel, "not a snapshot path (snapshots/<peer id>/<request seq>.json)")
				continue
			}
			v.snapshots = append(v.snapshots, rel)
		case v.m.Mode == ModeTestbed && path.Dir(rel) == TestbedDir:
		default:
			v.add(rel, "not a file of the bundle format (%s, %s/, and %s/ in a testbed bundle)", strings.Join(requiredFiles, ", "), SnapshotsDir, TestbedDir)
		}
	}
}

// manifestFields checks the manifest's own fields that no file backs.
func (v *verifier) manifestFields() {
	if !isSHA256Hex(v.m.ScenarioSHA256) {
		v.add(ManifestFile, "scenario_sha256 %q is not a lower-case hex SHA-256", v.m.ScenarioSHA256)
	}
	clock := "virtual"
	switch v.m.Mode {
	case "":
	case ModeLive, ModeTestbed, ModeEdge:
		clock = "wall"
	case ModeWitness:
	default:
		v.add(ManifestFile, "mode %q, want %q, %q, %q, %q or none", v.m.Mode, ModeLive, ModeTestbed, ModeEdge, ModeWitness)
	}
	if v.m.TimeUnit != "ns" || v.m.Clock != clock {
		v.add(ManifestFile, "time_unit %q and clock %q, want \"ns\" and %q", v.m.TimeUnit, v.m.Clock, clock)
	}
	if v.m.Interrupted != "" && v.m.Mode != ModeLive && v.m.Mode != ModeTestbed && v.m.Mode != ModeEdge {
		v.add(ManifestFile, "interrupted is set, but only a live, testbed or edge run can be interrupted")
	}
	if (v.m.Testbed != nil) != (v.m.Mode == ModeTestbed) {
		v.add(ManifestFile, "testbed is set if and only if mode is %q", ModeTestbed)
	}
}

// scenario checks the manifest and the snapshot files against
// scenario.toml, then recomputes the digest.
func (v *verifier) scenario() {
	sc, err := readRunScenario(v.root)
	if err != nil {
		v.add(ScenarioFile, "cannot be read as a scenario, so the run cannot be checked against it: %v", err)
		return
	}
	m := v.m
	if m.Seed != uint64(sc.Seed) {
		v.add(ManifestFile, "seed %d differs from scenario.toml's seed %d", m.Seed, sc.Seed)
	}
	// The run ends at duration_ns, where Terminate pops, unless early
	// termination or an output cap (the manifest says "truncated") stops
	// it sooner; batch.Run records the end.
	end := sc.DurationNs
	early := sc.EarlyTerminate || m.Truncated != "" || m.Interrupted != ""
	switch {
	case !early && m.DurationNs != sc.DurationNs:
		v.add(ManifestFile, "duration_ns %d differs from scenario.toml's duration_ns %d (the scenario does not terminate early and the run is not truncated)", m.DurationNs, sc.DurationNs)
	case early && m.DurationNs > sc.DurationNs:
		v.add(ManifestFile, "duration_ns %d is after scenario.toml's duration_ns %d", m.DurationNs, sc.DurationNs)
	case early && m.DurationNs < 0:
		v.add(ManifestFile, "duration_ns %d is negative", m.DurationNs)
	case early:
		end = m.DurationNs
	}

	plan := planSnapshots(sc)
	refs, placed := v.checkSnapshots(plan, end, early)
	if !placed || !v.intact[EventsFile] {
		return
	}
	for _, r := range refs {
		if !v.intact[r.path] {
			return
		}
	}
	digest, err := recomputeDigest(v.root, v.eventsSum, plan, refs)
	switch {
	case err != nil:
		v.add(ManifestFile, "digest cannot be recomputed: %v", err)
	case digest != m.Digest:
		v.add(ManifestFile, "digest %s does not match the bundle: recomputed from %s and the snapshot files it is %s", m.Digest, EventsFile, digest)
	}
}

// checkSnapshots compares the listed snapshot files with those the run
// writes: request seq, due at or before end, writes one file per host it
// finds running. A request due exactly at end, when the run terminated
// early, may or may not have popped before the run stopped: its files
// must be all there or all absent. It returns the listed snapshots as
// references, and whether every one names a host and request of plan.
func (v *verifier) checkSnapshots(plan *snapshotPlan, end int64, early bool) ([]snapshotRef, bool) {
	var refs []snapshotRef
	placed := true
	has := make(map[[2]int]bool, len(v.snapshots))
	for _, rel := range v.snapshots {
		host, seq, _ := parseSnapshotPath(rel)
		h, ok := plan.hostIdx[host]
		switch {
		case !ok:
			v.add(rel, "scenario.toml declares no peer %q", host)
			placed = false
		case seq >= len(plan.at):
			v.add(rel, "scenario.toml makes no snapshot request %d (it makes %d)", seq, len(plan.at))
			placed = false
		default:
			refs = append(refs, snapshotRef{path: rel, host: h, seq: seq})
			has[[2]int{h, seq}] = true
		}
	}
	for seq, at := range plan.at {
		present := 0
		for h := range plan.hosts {
			if plan.running[seq][h] && has[[2]int{h, seq}] {
				present++
			}
		}
		maybe := early && at == end
		for h, id := range plan.hosts {
			running, listed := plan.running[seq][h], has[[2]int{h, seq}]
			rel := func() string { return SnapshotsDir + "/" + id + "/" + strconv.Itoa(seq) + ".json" }
			switch {
			case at > end && listed:
				v.add(rel(), "snapshot request %d (at_ns %d) is after the run ended (duration_ns %d): the run wrote no such snapshot", seq, at, end)
			case at > end:
			case listed && !running:
				v.add(rel(), "%s was not running at snapshot request %d (at_ns %d): the run wrote no such snapshot", id, seq, at)
			case running && !listed && (!maybe || present > 0):
				v.add(rel(), "requested snapshot has no file: request %d (at_ns %d) found %s running, and the manifest lists no snapshot of it", seq, at, id)
			}
		}
	}
	return refs, placed
}

func isSHA256Hex(s string) bool {
	if len(s) != 2*sha256.Size {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// hashFile streams one bundle file through SHA-256, counting its lines.
// It opens without blocking and refuses anything but a regular file, so
// a file swapped for a FIFO after the walk saw it is reported, not read.
func hashFile(root *os.Root, rel string) (sum []byte, lines int64, err error) {
	f, err := safefile.OpenIn(root, rel)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	if err := safefile.CheckRegular(rel, info); err != nil {
		return nil, 0, err
	}
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
			return nil, 0, err
		}
	}
	return h.Sum(nil), lines, nil
}
