package bundle

import (
	"os"
	"path/filepath"
	"slices"
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
	Seed:             18446744073709551615,
	DurationNs:       10_000_000_000,
	HostArch:         "amd64",
	Digest:           "d1",
}

// writeSample writes a bundle to out holding records, the sample
// snapshots and sampleManifest.
func writeSample(t *testing.T, out string, records []record) {
	t.Helper()
	w, err := Create(out)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	defer w.Abort()
	var line []byte
	for _, r := range records {
		line = AppendEventLine(line[:0], r.at, r.host, r.kindTag, r.ev)
		if err := w.WriteEventLine(line); err != nil {
			t.Fatalf("WriteEventLine: %v", err)
		}
	}
	for _, s := range sampleSnapshots {
		if err := w.WriteSnapshot(s.host, s.seq, []byte(s.data)); err != nil {
			t.Fatalf("WriteSnapshot: %v", err)
		}
	}
	if err := w.Finish(sampleManifest, []byte("seed = 7\n"), []byte(`{"verdicts":[]}`+"\n")); err != nil {
		t.Fatalf("Finish: %v", err)
	}
}

// entries lists the names in dir, sorted.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
	}
	slices.Sort(names)
	return names
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
