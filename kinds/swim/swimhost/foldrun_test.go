package swimhost_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/detsim/detsim/batch"
	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/scenarios"
)

// TestFold_ExpandsToTheLinesOneByOne: a bundle whose writer folded each
// node's start-up view (docs/bundle.md, "Folded lines") reads, through
// bundle.EachLine, as exactly the lines the run emitted one record at a
// time (what a Tap sees, each serialised on its own as the old writer
// wrote it): the same bytes in the same order with the same numbers; the
// records count is theirs and the bundle verifies. On the old writer
// nothing folds and the folded file's line count fails it; a fold
// expanded wrongly fails the comparison.
func TestFold_ExpandsToTheLinesOneByOne(t *testing.T) {
	reg := builtin.Registry()
	names := []string{"smoke/three_mesh", "smoke/ring8", "failure_modes/restart_low_incarnation", "topology/churn", "reproduction/gossip_flap"}
	load := map[string]func() (*scenarios.Scenario, error){}
	for _, name := range names {
		load[name] = func() (*scenarios.Scenario, error) { return scenarios.LoadLibrary(name, reg) }
	}
	big := filepath.Join("..", "bench", "testdata", "swim1000_60s.toml")
	if !testing.Short() {
		names = append(names, big)
		load[big] = func() (*scenarios.Scenario, error) {
			data, err := os.ReadFile(big)
			if err != nil {
				return nil, err
			}
			return scenarios.Parse(big, data, reg, os.ReadFile)
		}
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			sc, err := load[name]()
			if err != nil {
				t.Fatal(err)
			}
			tapped, err := os.Create(filepath.Join(dir, "tapped.ndjson"))
			if err != nil {
				t.Fatal(err)
			}
			w := bufio.NewWriter(tapped)
			var taps int64
			res, err := batch.Run(sc, reg, batch.Config{Out: filepath.Join(dir, "folded"), Tap: func(line, step, at int64, b []byte) {
				if taps++; line != taps {
					t.Fatalf("the Tap saw line %d as the %d-th", line, taps)
				}
				w.Write(b)
			}})
			if err != nil {
				t.Fatal(err)
			}
			if err := errors.Join(w.Flush(), tapped.Close()); err != nil {
				t.Fatal(err)
			}
			if res.Records != taps {
				t.Fatalf("records: %d, the Tap saw %d", res.Records, taps)
			}
			if p, err := bundle.Verify(filepath.Join(dir, "folded")); err != nil || len(p) > 0 {
				t.Fatalf("the folded bundle: Verify = %v, %v", p, err)
			}
			lines := physicalLines(t, filepath.Join(dir, "folded", bundle.EventsFile))
			if lines >= taps {
				t.Fatalf("the folded events.ndjson has %d lines for %d records: nothing folded", lines, taps)
			}
			f, err := os.Open(filepath.Join(dir, "tapped.ndjson"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			lineScan := bufio.NewScanner(f)
			lineScan.Buffer(nil, 64<<20)
			n := 0
			err = bundle.EachLine(filepath.Join(dir, "folded"), func(line int, b []byte) error {
				n++
				if !lineScan.Scan() {
					t.Fatalf("line %d: the expansion goes on past the %d lines emitted", line, n-1)
				}
				if line != n || !bytes.Equal(b, lineScan.Bytes()) {
					t.Fatalf("line %d (record %d) expands to\n%s\nemitted it was\n%s", line, n, b, lineScan.Bytes())
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if lineScan.Scan() || int64(n) != taps {
				t.Fatalf("the expansion gave %d lines of %d", n, taps)
			}
		})
	}
}

// physicalLines counts the newlines of a file.
func physicalLines(t *testing.T, path string) int64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return int64(bytes.Count(b, []byte{'\n'}))
}

// TestFold_ExpandedIsWhatTheOldWriterWrote: the expansion of a folded
// bundle is, byte for byte, the events.ndjson the detsim-bundle/2 writer
// wrote for the same run: hashed as that writer's digest hashed it
// (SHA-256 of the events' SHA-256 and the snapshot records'), it gives
// the digest batch/testdata/golden_digests.txt held for
// reproduction/gossip_flap before the fold. The folded file itself
// gives another: the one bytes that changed.
func TestFold_ExpandedIsWhatTheOldWriterWrote(t *testing.T) {
	const oldDigest = "04cafa027b404534483fd90669b0c385fab42c80f56b965b3e32f4bed6b7d36e" // golden_digests.txt at eb61602
	out, res := runLibrary(t, "reproduction/gossip_flap")
	events := sha256.New()
	if err := bundle.EachLine(out, func(_ int, b []byte) error {
		events.Write(b)
		events.Write([]byte{'\n'})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	snaps, err := os.ReadFile(filepath.Join(out, bundle.SnapshotsFile))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	s := sha256.Sum256(snaps)
	d := sha256.Sum256(append(events.Sum(nil), s[:]...))
	if got := hex.EncodeToString(d[:]); got != oldDigest {
		t.Errorf("the expanded bundle's digest is %s, the old writer's was %s", got, oldDigest)
	}
	if res.Digest == oldDigest {
		t.Errorf("the folded bundle's digest is the old one: nothing folded")
	}
}

// TestFold_ABundleOfFoldsIsNeverReadAsTheOldFormat: a bundle holding
// folded lines says detsim-bundle/3, which a reader of detsim-bundle/2
// refuses by name (main's detsim: `manifest.json: format
// "detsim-bundle/3", this detsim reads "detsim-bundle/2" and
// "detsim-bundle/1"`, exit 2); and the same bundle relabelled /2 is not
// misread as one: verify counts its lines as records and names the
// difference. The old writer labelled its bundles /2 and fails the
// first check; so would a fold written under the old label.
func TestFold_ABundleOfFoldsIsNeverReadAsTheOldFormat(t *testing.T) {
	out, _ := runLibrary(t, "smoke/three_mesh")
	m, err := bundle.ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	if m.Format != bundle.Format || m.Format == bundle.FormatV2 || m.Format == bundle.FormatV1 {
		t.Fatalf("a bundle of folded lines says format %q: a reader of %s would read it", m.Format, bundle.FormatV2)
	}
	path := filepath.Join(out, bundle.ManifestFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	relabelled := bytes.Replace(b, []byte(`"format": "`+bundle.Format+`"`), []byte(`"format": "`+bundle.FormatV2+`"`), 1)
	if bytes.Equal(relabelled, b) {
		t.Fatalf("no format member to relabel in %s", b)
	}
	if err := os.WriteFile(path, relabelled, 0o666); err != nil {
		t.Fatal(err)
	}
	problems, err := bundle.Verify(out)
	if err != nil || !slices.ContainsFunc(problems, func(p bundle.Problem) bool {
		return p.Path == bundle.EventsFile && strings.Contains(p.Msg, "records, manifest lists")
	}) {
		t.Errorf("a bundle of folded lines labelled %s: Verify = %v, %v; want its records miscounted named", bundle.FormatV2, problems, err)
	}
}

// runLibrary runs the library scenario name into a fresh bundle, returned
// with the run's result.
func runLibrary(t *testing.T, name string) (string, *batch.Result) {
	t.Helper()
	reg := builtin.Registry()
	sc, err := scenarios.LoadLibrary(name, reg)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "b")
	res, err := batch.Run(sc, reg, batch.Config{Out: out})
	if err != nil {
		t.Fatal(err)
	}
	return out, res
}
