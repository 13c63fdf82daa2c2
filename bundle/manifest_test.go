package bundle

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/detsim/detsim/internal/golden"
)

// TestManifest_Golden_9_4 pins manifest.json's bytes: member order, file
// order and the writer-owned values. The known-gaps digest is masked so
// editing that document does not churn the golden file.
func TestManifest_Golden_9_4(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	writeSample(t, out, sampleRecords)
	got, err := os.ReadFile(filepath.Join(out, ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(knownGaps)
	got = bytes.ReplaceAll(got, []byte(hex.EncodeToString(sum[:])), []byte("<sha256 of known_gaps.md>"))

	golden.Check(t, filepath.Join("testdata", "manifest.golden.json"), got)
}

func TestParityChecksum_CoversEventsAndSnapshotsOnly_7_6(t *testing.T) {
	base := Manifest{
		SimulatorVersion: "abc",
		HostArch:         "amd64",
		Files: map[string]string{
			"events.ndjson":      "e1",
			"known_gaps.md":      "k1",
			"scenario.toml":      "s1",
			"snapshots/a/0.json": "a0",
			"snapshots/b/2.json": "b2",
			"verdicts.json":      "v1",
		},
	}
	want := sha256.Sum256([]byte("events.ndjson e1\nsnapshots/a/0.json a0\nsnapshots/b/2.json b2\n"))
	if got := ParityChecksum(base); got != hex.EncodeToString(want[:]) {
		t.Fatalf("ParityChecksum = %s, want SHA-256 of the sorted path/digest lines %x", got, want)
	}

	edit := func(f func(m *Manifest)) Manifest {
		m := base
		m.Files = make(map[string]string)
		for _, k := range []string{"events.ndjson", "known_gaps.md", "scenario.toml", "snapshots/a/0.json", "snapshots/b/2.json", "verdicts.json"} {
			m.Files[k] = base.Files[k]
		}
		f(&m)
		return m
	}
	same := []struct {
		name string
		m    Manifest
	}{
		{"other commit", edit(func(m *Manifest) { m.SimulatorVersion = "def" })},
		{"other architecture", edit(func(m *Manifest) { m.HostArch = "386" })},
		{"other scenario path", edit(func(m *Manifest) { m.ScenarioPath = "/elsewhere.toml" })},
		{"other verdicts", edit(func(m *Manifest) { m.Files["verdicts.json"] = "v2" })},
		{"other known gaps", edit(func(m *Manifest) { m.Files["known_gaps.md"] = "k2" })},
	}
	for _, tt := range same {
		if ParityChecksum(tt.m) != ParityChecksum(base) {
			t.Errorf("%s changed the parity checksum", tt.name)
		}
	}
	differ := []struct {
		name string
		m    Manifest
	}{
		{"other events", edit(func(m *Manifest) { m.Files["events.ndjson"] = "e2" })},
		{"other snapshot", edit(func(m *Manifest) { m.Files["snapshots/b/2.json"] = "b3" })},
		{"extra snapshot", edit(func(m *Manifest) { m.Files["snapshots/c/0.json"] = "c0" })},
		{"missing snapshot", edit(func(m *Manifest) { delete(m.Files, "snapshots/a/0.json") })},
	}
	for _, tt := range differ {
		if ParityChecksum(tt.m) == ParityChecksum(base) {
			t.Errorf("%s left the parity checksum unchanged", tt.name)
		}
	}
}

func TestParityChecksum_SameRunOnAnotherMachine(t *testing.T) {
	dir := t.TempDir()
	writeSample(t, filepath.Join(dir, "one"), sampleRecords)
	saved := sampleManifest
	defer func() { sampleManifest = saved }()
	sampleManifest.SimulatorVersion, sampleManifest.HostArch = "unknown", "386"
	writeSample(t, filepath.Join(dir, "two"), sampleRecords)

	one, err := ReadManifest(filepath.Join(dir, "one"))
	if err != nil {
		t.Fatal(err)
	}
	two, err := ReadManifest(filepath.Join(dir, "two"))
	if err != nil {
		t.Fatal(err)
	}
	if ParityChecksum(one) != ParityChecksum(two) {
		t.Error("parity checksum depends on the commit or architecture")
	}
}

func TestMergeSubstitutions_ReceiveTimeFirstNoDuplicates_9_5(t *testing.T) {
	got := mergeSubstitutions(ReceiveTimeSubstitution, []string{"x", ReceiveTimeSubstitution, "x", "y"})
	want := []string{ReceiveTimeSubstitution, "x", "y"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("mergeSubstitutions = %q, want %q", got, want)
	}
	if got := mergeSubstitutions(ReceiveTimeSubstitution, nil); len(got) != 1 {
		t.Errorf("mergeSubstitutions(ReceiveTimeSubstitution, nil) = %q, want the receive-time substitution alone", got)
	}
}
