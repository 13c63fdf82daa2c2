package bundle

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/detsim/detsim/internal/fstree"
)

// The snapshots of a run are one file, snapshots.records, holding the
// digest's snapshot stream byte for byte: the bundle has no directory,
// the file's SHA-256 in the manifest is the digest's second half, and the
// writer's running hash (what the engine takes for its digest) is it.
func TestWriter_SnapshotsAreOneFileThatIsTheDigestStream(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	writeSample(t, out, sampleRecords)
	des, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, de := range des {
		if de.IsDir() {
			t.Errorf("bundle holds directory %s: a simulated bundle is files only", de.Name())
		}
	}
	data, err := os.ReadFile(filepath.Join(out, SnapshotsFile))
	if err != nil {
		t.Fatal(err)
	}
	var stream []byte
	for _, s := range sampleSnapshots {
		stream = appendSnapshotHeader(stream, snapshotPath(s.host, s.seq), sampleRequestsAt[s.seq], int64(len(s.data)))
		stream = append(stream, s.data...)
	}
	if !bytes.Equal(data, stream) {
		t.Errorf("%s =\n%s\nwant the digest's snapshot stream\n%s", SnapshotsFile, data, stream)
	}
	m, err := ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(stream)
	if m.Files[SnapshotsFile] != hex.EncodeToString(sum[:]) {
		t.Errorf("manifest lists %s as %s, want %x", SnapshotsFile, m.Files[SnapshotsFile], sum)
	}
	ev, _ := hex.DecodeString(m.EventsSHA256)
	if got := digestOf(ev, sum[:]); got != m.Digest || got != sampleDigest(sampleRecords) {
		t.Errorf("digest of the two files' hashes = %s, manifest %s, independent %s", got, m.Digest, sampleDigest(sampleRecords))
	}
}

func TestWriter_NoSnapshotsNoFile(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	w, err := Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if got := w.SnapshotsSHA256(); !bytes.Equal(got, sha256.New().Sum(nil)) {
		t.Errorf("SnapshotsSHA256 with no snapshot = %x, want the empty stream's", got)
	}
	if err := w.Finish(sampleManifest, nil, nil); err != nil {
		t.Fatal(err)
	}
	if got := fstree.Names(t, out); slices.Contains(got, SnapshotsFile) || slices.Contains(got, SnapshotsDir) {
		t.Errorf("a run without snapshots wrote %v", got)
	}
}

// rewriteRecords writes data as snapshots.records and fixes the
// manifest's hash of it, as someone rewriting a bundle and its manifest
// together would.
func rewriteRecords(t *testing.T, out string, edit func([]byte) []byte) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(out, SnapshotsFile))
	if err != nil {
		t.Fatal(err)
	}
	rewriteListed(t, out, SnapshotsFile, string(edit(data)))
}

func gzipFile(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(data)
	zw.Close()
	mustWrite(t, path+GzipSuffix, b.String())
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
}

func TestVerify_Format2_ReportsEveryDifference(t *testing.T) {
	recs := filepath.FromSlash(SnapshotsFile)
	tests := []struct {
		name   string
		tamper func(t *testing.T, out string)
		want   []want
	}{
		{"intact", func(*testing.T, string) {}, nil},
		{"stored compressed", func(t *testing.T, out string) {
			for _, f := range []string{EventsFile, SnapshotsFile, ScenarioFile, VerdictsFile, KnownGapsFile} {
				gzipFile(t, filepath.Join(out, f))
			}
		}, nil},
		{"snapshot byte flipped", func(t *testing.T, out string) {
			flipByte(t, filepath.Join(out, recs), len(`{"snapshot":"snapshots/a/0.json","virtual_time_ns":1000000,"bytes":11}`)+3)
		}, []want{{SnapshotsFile, "content changed"}}},
		{"compressed snapshot byte flipped", func(t *testing.T, out string) {
			flipByte(t, filepath.Join(out, recs), len(`{"snapshot":"snapshots/a/0.json","virtual_time_ns":1000000,"bytes":11}`)+3)
			gzipFile(t, filepath.Join(out, recs))
		}, []want{{SnapshotsFile, "content changed"}}},
		{"stored both plain and compressed", func(t *testing.T, out string) {
			data, _ := os.ReadFile(filepath.Join(out, EventsFile))
			gzipFile(t, filepath.Join(out, EventsFile))
			mustWrite(t, filepath.Join(out, EventsFile), string(data))
		}, []want{{EventsFile, "stored twice"}}},
		{"snapshot record removed, hash fixed", func(t *testing.T, out string) {
			rewriteRecords(t, out, func(b []byte) []byte {
				i := bytes.Index(b, []byte(`{"snapshot":"snapshots/b/1.json"`))
				return b[:i]
			})
		}, []want{{ManifestFile, "digest"}, {"snapshots/b/1.json", "requested snapshot has no file"}}},
		{"snapshot record's time edited, hash fixed", func(t *testing.T, out string) {
			rewriteRecords(t, out, func(b []byte) []byte {
				return bytes.Replace(b, []byte(`"snapshots/b/1.json","virtual_time_ns":3000000`), []byte(`"snapshots/b/1.json","virtual_time_ns":3000001`), 1)
			})
		}, []want{{"snapshots/b/1.json", "due at at_ns 3000000"}, {"snapshots/b/1.json", "requested snapshot has no file"}}},
		{"snapshot record duplicated, hash fixed", func(t *testing.T, out string) {
			rewriteRecords(t, out, func(b []byte) []byte { return append(b, b...) })
		}, []want{{"snapshots/a/0.json", "recorded twice"}, {"snapshots/b/0.json", "recorded twice"}, {"snapshots/b/1.json", "recorded twice"}}},
		{"snapshot record cut short, hash fixed", func(t *testing.T, out string) {
			rewriteRecords(t, out, func(b []byte) []byte { return b[:len(b)-1] })
		}, []want{{ManifestFile, "digest"}, {SnapshotsFile, "the file ends first"}, {"snapshots/a/0.json", "requested snapshot has no file"}, {"snapshots/b/0.json", "requested snapshot has no file"}, {"snapshots/b/1.json", "requested snapshot has no file"}}},
		{"snapshot record header not the writer's, hash fixed", func(t *testing.T, out string) {
			rewriteRecords(t, out, func(b []byte) []byte {
				return bytes.Replace(b, []byte(`{"snapshot":"snapshots/a/0.json",`), []byte(`{"snapshot": "snapshots/a/0.json",`), 1)
			})
		}, []want{{ManifestFile, "digest"}, {SnapshotsFile, "not a snapshot record header"}, {"snapshots/a/0.json", "requested snapshot has no file"}, {"snapshots/b/0.json", "requested snapshot has no file"}, {"snapshots/b/1.json", "requested snapshot has no file"}}},
		{"a detsim-bundle/1 snapshot file listed", func(t *testing.T, out string) {
			rewriteListed(t, out, "snapshots/a/0.json", "{}")
		}, []want{{"snapshots/a/0.json", "not a file of the " + Format + " format"}}},
		{"a compressed manifest is not the manifest", func(t *testing.T, out string) {
			mustWrite(t, filepath.Join(out, ManifestFile+GzipSuffix), "x")
		}, []want{{ManifestFile + GzipSuffix, "not listed"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			writeSample(t, out, sampleRecords)
			tt.tamper(t, out)
			checkProblems(t, out, tt.want)
		})
	}
}

// A bundle whose manifest claims the other format is never read as that
// format: every file the claimed format has no place for is named.
func TestVerify_FormatLieIsReportedNotMisread(t *testing.T) {
	out := filepath.Join(t.TempDir(), "v1")
	writeSampleV1(t, out, sampleRecords)
	editManifest(t, out, func(m *Manifest) { m.Format = Format })
	got, err := Verify(out)
	if err != nil || !slices.ContainsFunc(got, func(p Problem) bool {
		return p.Path == "snapshots/a/0.json" && strings.Contains(p.Msg, "not a file of the "+Format+" format")
	}) {
		t.Errorf("a detsim-bundle/1 bundle labelled /3: Verify = %v, %v; want its snapshot files named", got, err)
	}
	out = filepath.Join(t.TempDir(), "v2")
	writeSample(t, out, sampleRecords)
	editManifest(t, out, func(m *Manifest) { m.Format = FormatV1 })
	got, err = Verify(out)
	if err != nil || !slices.ContainsFunc(got, func(p Problem) bool {
		return p.Path == SnapshotsFile && strings.Contains(p.Msg, "not a file of the detsim-bundle/1 format")
	}) {
		t.Errorf("a detsim-bundle/3 bundle labelled /1: Verify = %v, %v; want %s named", got, err, SnapshotsFile)
	}
}

// snapshotsOf reads every snapshot of a bundle as "path data" lines.
func snapshotsOf(t *testing.T, dir string) []string {
	t.Helper()
	m, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	if err := EachSnapshot(dir, m, func(s SnapshotRecord) error {
		got = append(got, s.Path+" "+string(s.Data))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	return got
}

func eventsOf(t *testing.T, dir string) []EventRecord {
	t.Helper()
	var got []EventRecord
	if err := ReadEvents(dir, func(_ int, r EventRecord) error {
		got = append(got, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return got
}

// Compress converts a detsim-bundle/1 bundle (testdata/calibration's) to
// a compressed detsim-bundle/2 one that verifies, keeps its digest and
// every content hash, and reads as the same events and snapshots; a
// second Compress changes nothing.
func TestCompress_ConvertsAndReadsTheSame(t *testing.T) {
	for _, v1 := range []bool{true, false} {
		out := filepath.Join(t.TempDir(), "out")
		if v1 {
			writeSampleV1(t, out, sampleRecords)
		} else {
			writeSample(t, out, sampleRecords)
		}
		before, err := ReadManifest(out)
		if err != nil {
			t.Fatal(err)
		}
		events, snaps := eventsOf(t, out), snapshotsOf(t, out)
		if err := Compress(out); err != nil {
			t.Fatalf("Compress (v1 %v): %v", v1, err)
		}
		if p, err := Verify(out); err != nil || len(p) != 0 {
			t.Fatalf("compressed bundle: Verify = %v, %v", p, err)
		}
		after, err := ReadManifest(out)
		if err != nil {
			t.Fatal(err)
		}
		// A detsim-bundle/1 bundle becomes /2 (its snapshots as records,
		// one line a record as before); any other keeps its format.
		format := before.Format
		if format == FormatV1 {
			format = FormatV2
		}
		if after.Format != format || after.Digest != before.Digest || after.EventsSHA256 != before.EventsSHA256 || after.Files[ScenarioFile] != before.Files[ScenarioFile] {
			t.Errorf("manifest after Compress = %+v, want format %s and the digest and hashes of %+v", after, format, before)
		}
		for _, name := range fstree.Names(t, out) {
			if name != ManifestFile && !strings.HasSuffix(name, GzipSuffix) {
				t.Errorf("%s stored uncompressed", name)
			}
		}
		if got := eventsOf(t, out); !slices.EqualFunc(got, events, func(a, b EventRecord) bool {
			return a.VirtualTimeNs == b.VirtualTimeNs && a.HostID == b.HostID && a.Type == b.Type && bytes.Equal(a.Event, b.Event)
		}) {
			t.Errorf("compressed events read differently")
		}
		if got := snapshotsOf(t, out); !slices.Equal(got, snaps) {
			t.Errorf("compressed snapshots = %q, want %q", got, snaps)
		}
		if v, err := ReadFile(out, ScenarioFile, MaxScenarioBytes); err != nil || string(v) != sampleScenario {
			t.Errorf("ReadFile(scenario.toml) of a compressed bundle = %q, %v", v, err)
		}
		tree := fstree.Of(t, out)
		if err := Compress(out); err != nil {
			t.Fatal(err)
		}
		fstree.Same(t, out, tree, "a second Compress changed the bundle")
	}
}

// Compress refuses a bundle that does not verify and leaves it as it was:
// it rewrites only what it can prove is a whole detsim bundle.
func TestCompress_RefusesABundleThatDoesNotVerify(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	writeSampleV1(t, out, sampleRecords)
	flipByte(t, filepath.Join(out, EventsFile), 5)
	before := fstree.Of(t, parent)
	if err := Compress(out); err == nil || !strings.Contains(err.Error(), "does not verify") {
		t.Errorf("Compress of a damaged bundle = %v, want a refusal", err)
	}
	fstree.Same(t, parent, before, "Compress changed a bundle it refused")
}

// A compressed file is read through a bound on what it decompresses to,
// not on its size on disk.
func TestReadFile_BoundsTheDecompressedContent(t *testing.T) {
	dir := t.TempDir()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(bytes.Repeat([]byte{' '}, 1<<20))
	zw.Close()
	mustWrite(t, filepath.Join(dir, VerdictsFile+GzipSuffix), b.String())
	if _, err := ReadFile(dir, VerdictsFile, 1<<10); err == nil {
		t.Error("a 1 MiB verdicts.json read under a 1 KiB bound")
	}
	f, err := OpenFile(dir, VerdictsFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if n, _ := io.Copy(io.Discard, f); n != 1<<20 {
		t.Errorf("OpenFile read %d bytes, want %d", n, 1<<20)
	}
}
