package bundle

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/detsim/detsim/internal/jsonw"
)

// fakeEvent is a diagnostics event as a host kind would define one.
type fakeEvent struct {
	typ  string
	note string
	n    int64
}

func (e fakeEvent) Type() string { return e.typ }

func (e fakeEvent) AppendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	dst = jsonw.AppendKey(dst, "type")
	dst = jsonw.AppendString(dst, e.typ)
	dst = append(dst, ',')
	dst = jsonw.AppendKey(dst, "note")
	dst = jsonw.AppendString(dst, e.note)
	dst = append(dst, ',')
	dst = jsonw.AppendKey(dst, "n")
	dst = jsonw.AppendInt(dst, e.n)
	return append(dst, '}')
}

// record is one event as the tests write it.
type record struct {
	at      int64
	host    string
	kindTag string
	ev      fakeEvent
}

var sampleRecords = []record{
	{0, "a", "echo", fakeEvent{"state_transition", "initial", 0}},
	{1_500_000, "b", "echo", fakeEvent{"message_sent", "to \"a\"\n", 64}},
	{2_000_000, "", "engine", fakeEvent{"mutation", "Partition", -1}},
}

// sampleScenario is the sample bundle's scenario.toml: peers a and b,
// snapshot requests at 1 ms and 3 ms, and a killed at 2 ms, so request 1
// finds only b running — the snapshots sampleSnapshots holds. Its seed and
// duration are sampleManifest's.
//
//go:embed testdata/sample_scenario.toml
var sampleScenario string

// sampleRequestsAt are sampleScenario's snapshot request times, by seq.
var sampleRequestsAt = []int64{1_000_000, 3_000_000}

// sampleSnapshots are in the order the engine emits them: by request,
// then by host id.
var sampleSnapshots = []struct {
	host string
	seq  int
	data string
}{
	{"a", 0, `{"members":["a","b"]}` + "\n"},
	{"b", 0, `{"members":["b"]}` + "\n"},
	{"b", 1, `{"members":["a","b"]}` + "\n"},
}

var sampleManifest = Manifest{
	SimulatorVersion: "0123456789abcdef0123456789abcdef01234567",
	ScenarioPath:     "scenarios/smoke/pair.toml",
	ScenarioSHA256:   "5f2b1a9c0d6e4f3a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a",
	Seed:             9223372036854775807, // the largest seed a scenario can hold
	DurationNs:       10_000_000_000,
	HostArch:         "amd64",
	// Digest is filled in by writeSample (sampleDigest).
}

// sampleDigest is the engine's digest (engine.Digest) of records and the
// sample snapshots, spelled out here from its documented format so that
// Verify's recomputation is checked against an independent one:
// SHA-256(SHA-256(events.ndjson) ‖ SHA-256(snapshot records)), each
// snapshot record a header line then the snapshot's bytes.
func sampleDigest(records []record) string {
	events, snaps := sha256.New(), sha256.New()
	var line []byte
	for _, r := range records {
		line = AppendEventLine(line[:0], r.at, r.host, r.kindTag, r.ev)
		events.Write(line)
	}
	for _, s := range sampleSnapshots {
		snaps.Write([]byte(`{"snapshot":"snapshots/` + s.host + "/" + strconv.Itoa(s.seq) + `.json","virtual_time_ns":` +
			strconv.FormatInt(sampleRequestsAt[s.seq], 10) + `,"bytes":` + strconv.Itoa(len(s.data)) + "}\n"))
		snaps.Write([]byte(s.data))
	}
	h := sha256.New()
	h.Write(events.Sum(nil))
	h.Write(snaps.Sum(nil))
	return hex.EncodeToString(h.Sum(nil))
}

// writeSample writes a bundle to out holding records, the sample
// snapshots, sampleScenario and sampleManifest with its digest: a bundle
// Verify finds intact.
func writeSample(t *testing.T, out string, records []record) {
	t.Helper()
	finishSample(t, sampleWriter(t, out, records), sampleManifestOf(records))
}

// sampleWriter is a bundle being written at out that holds records and
// sampleSnapshots, for a test to add to and finish (finishSample).
func sampleWriter(t *testing.T, out string, records []record) *Writer {
	t.Helper()
	w, err := Create(out)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	t.Cleanup(w.Abort)
	var line []byte
	for _, r := range records {
		line = AppendEventLine(line[:0], r.at, r.host, r.kindTag, r.ev)
		if err := w.WriteEventLine(line); err != nil {
			t.Fatalf("WriteEventLine: %v", err)
		}
	}
	for _, s := range sampleSnapshots {
		if err := w.WriteSnapshotAt(s.host, s.seq, sampleRequestsAt[s.seq], []byte(s.data)); err != nil {
			t.Fatalf("WriteSnapshotAt: %v", err)
		}
	}
	return w
}

// sampleManifestOf is sampleManifest with the digest of records.
func sampleManifestOf(records []record) Manifest {
	m := sampleManifest
	m.Digest = sampleDigest(records)
	return m
}

// finishSample finishes w with m, sampleScenario and no verdicts.
func finishSample(t *testing.T, w *Writer, m Manifest) {
	t.Helper()
	if err := w.Finish(m, []byte(sampleScenario), []byte(`{"verdicts":[]}`+"\n")); err != nil {
		t.Fatalf("Finish: %v", err)
	}
}

func mustWrite(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o666); err != nil {
		t.Fatal(err)
	}
}

// writeSampleV1 writes the sample bundle in the detsim-bundle/1 layout
// detsim wrote before snapshots.records (one file per snapshot under
// snapshots/<host>/, snapshots/ always present), as the old writer did:
// the bundles in testdata/calibration are in it.
func writeSampleV1(t *testing.T, out string, records []record) {
	t.Helper()
	writeSample(t, out, records)
	m, err := ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	var snaps []SnapshotRecord
	if err := EachSnapshot(out, m, func(s SnapshotRecord) error {
		s.Data = bytes.Clone(s.Data)
		snaps = append(snaps, s)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(out, SnapshotsFile)); err != nil {
		t.Fatal(err)
	}
	delete(m.Files, SnapshotsFile)
	if err := os.Mkdir(filepath.Join(out, SnapshotsDir), 0o777); err != nil {
		t.Fatal(err)
	}
	for _, s := range snaps {
		mustWrite(t, filepath.Join(out, filepath.FromSlash(s.Path)), string(s.Data))
		sum := sha256.Sum256(s.Data)
		m.Files[s.Path] = hex.EncodeToString(sum[:])
	}
	m.Format = FormatV1
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(out, ManifestFile), string(data)+"\n")
}
