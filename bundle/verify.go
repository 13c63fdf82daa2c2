package bundle

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
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
	if m.Format != Format && m.Format != FormatV2 && m.Format != FormatV1 {
		return Manifest{}, fmt.Errorf("bundle: %s: format %q, this detsim reads %q, %q and %q", ManifestFile, m.Format, Format, FormatV2, FormatV1)
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

	v := &verifier{root: root, m: m, intact: make(map[string]bool), stored: make(map[string]string)}
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
	// snapshots are the snapshots' paths: the listed files under
	// snapshots/ of a FormatV1 bundle, sorted, or the records of a Format
	// bundle's snapshots.records, in file order, with snapAt the time
	// each record gives and snapsSum the file's SHA-256.
	snapshots []string
	snapAt    map[string]int64
	snapsSum  []byte
	stored    map[string]string // listed file -> the entry on disk holding it
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
	dirs := map[string]bool{}
	if m.Format == FormatV1 {
		dirs[SnapshotsDir] = true
	}
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
		listed, gz, isListed := storedAs(m, rel)
		want := m.Files[listed]
		if isListed {
			if other, twice := v.stored[listed]; twice {
				v.add(listed, "stored twice, as %s and as %s: a reader could take either", other, rel)
				return nil
			}
			v.stored[listed] = rel
			seen[listed] = true
		}
		switch {
		case !d.Type().IsRegular():
			v.add(rel, "not a regular file (%s)", safefile.Describe(d.Type()))
		case !isListed:
			v.add(rel, "present in the bundle but not listed in the manifest")
		default:
			sum, lines, err := v.hashStored(rel, gz)
			rel := listed
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
		case rel == SnapshotsFile && hasRecordsFile(m.Format):
		case strings.HasPrefix(rel, SnapshotsDir+"/") && m.Format == FormatV1:
			if _, _, ok := parseSnapshotPath(rel); !ok {
				v.add(rel, "not a snapshot path (snapshots/<peer id>/<request seq>.json)")
				continue
			}
			v.snapshots = append(v.snapshots, rel)
		case v.m.Mode == ModeTestbed && path.Dir(rel) == TestbedDir:
		case m.Format == FormatV1:
			v.add(rel, "not a file of the %s format (%s, %s/, and %s/ in a testbed bundle)", FormatV1, strings.Join(requiredFiles, ", "), SnapshotsDir, TestbedDir)
		default:
			v.add(rel, "not a file of the %s format (%s, %s, and %s/ in a testbed bundle)", m.Format, strings.Join(requiredFiles, ", "), SnapshotsFile, TestbedDir)
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
	if hasRecordsFile(m.Format) {
		// snapshots.records is the digest's snapshot stream as written:
		// its hash, taken once above, is the digest's second half.
		if _, ok := m.Files[SnapshotsFile]; ok && !v.intact[SnapshotsFile] {
			return
		}
		snaps := v.snapsSum
		if snaps == nil {
			empty := sha256.Sum256(nil)
			snaps = empty[:]
		}
		if digest := digestOf(v.eventsSum, snaps); digest != m.Digest {
			v.add(ManifestFile, "digest %s does not match the bundle: recomputed from %s and %s it is %s", m.Digest, EventsFile, SnapshotsFile, digest)
		}
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
		at, timed := v.snapAt[rel]
		switch {
		case !ok:
			v.add(rel, "scenario.toml declares no peer %q", host)
			placed = false
		case seq >= len(plan.at):
			v.add(rel, "scenario.toml makes no snapshot request %d (it makes %d)", seq, len(plan.at))
			placed = false
		case has[[2]int{h, seq}]:
			v.add(rel, "recorded twice in %s", SnapshotsFile)
			placed = false
		case timed && at != plan.at[seq]:
			v.add(rel, "its record in %s says virtual_time_ns %d, but snapshot request %d is due at at_ns %d", SnapshotsFile, at, seq, plan.at[seq])
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

// hashStored streams the content of the bundle entry rel (gzip-
// decompressed when gz) through SHA-256, counting its lines; the records
// of snapshots.records are read from the same stream (v.snapshots). It
// opens without blocking and refuses anything but a regular file, so a
// file swapped for a FIFO after the walk saw it is reported, not read.
func (v *verifier) hashStored(rel string, gz bool) (sum []byte, lines int64, err error) {
	f, err := safefile.OpenIn(v.root, rel)
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
	var r io.Reader = f
	if gz {
		zr, err := gzip.NewReader(bufio.NewReaderSize(f, 64<<10))
		if err != nil {
			return nil, 0, err
		}
		defer zr.Close()
		r = zr
	}
	h := sha256.New()
	if strings.TrimSuffix(rel, GzipSuffix) == SnapshotsFile && hasRecordsFile(v.m.Format) {
		v.snapAt = make(map[string]int64)
		perr := readSnapshotRecords(io.TeeReader(r, h), func(rec SnapshotRecord) error {
			v.snapshots = append(v.snapshots, rec.Path)
			if _, twice := v.snapAt[rec.Path]; !twice {
				v.snapAt[rec.Path] = rec.AtNs
			}
			return nil
		})
		if perr != nil {
			v.add(SnapshotsFile, "%v", perr)
			v.snapshots = nil
		}
		if _, err := io.Copy(h, r); err != nil {
			return nil, 0, err
		}
		v.snapsSum = h.Sum(nil)
		return v.snapsSum, 0, nil
	}
	if strings.TrimSuffix(rel, GzipSuffix) == EventsFile && v.m.Format == Format {
		// A folded line counts the records it stands for.
		return countRecords(r, h)
	}
	buf := make([]byte, 256<<10)
	for {
		n, err := r.Read(buf)
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

// countRecords streams a detsim-bundle/3 events.ndjson through h,
// counting the records its lines stand for (LineRecords). A fold that
// cannot be expanded is an error.
func countRecords(r io.Reader, h hash.Hash) (sum []byte, records int64, err error) {
	sc := bufio.NewScanner(io.TeeReader(r, h))
	sc.Buffer(make([]byte, 0, 256<<10), maxEventLine)
	line := int64(0)
	for sc.Scan() {
		line++
		n, err := LineRecords(sc.Bytes())
		if err != nil {
			return nil, 0, fmt.Errorf("line %d: %w", line, err)
		}
		records += int64(n)
	}
	if err := sc.Err(); err != nil {
		return nil, 0, err
	}
	return h.Sum(nil), records, nil
}
