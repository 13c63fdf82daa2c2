package batch

import (
	"crypto/sha256"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/scenarios"
)

// earlyScenario terminates early: its only assertion fails once the
// 41st ping is sent, about a second in, long before duration_ns. It
// starts c down, resurrects it and kills a, and asks for snapshots before
// and after the early end, so Verify meets every rule of the snapshot
// plan on one real run.
//
//go:embed testdata/early.toml
var earlyScenario string

// verifiedRun runs sc through Run and returns its bundle directory and
// result after checking that Verify finds nothing: the digest Verify
// recomputes from the files is the engine's own (Run writes the engine's
// Digest into the manifest), and the snapshot files are exactly those the
// scenario's plan says.
func verifiedRun(t *testing.T, sc *scenarios.Scenario) (string, *Result) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "bundle")
	res, err := Run(sc, builtin.Registry(), Config{Out: out, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	m, err := bundle.ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	if m.Digest != res.Digest {
		t.Fatalf("manifest digest %s, engine's %s", m.Digest, res.Digest)
	}
	problems, err := bundle.Verify(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("%s: false alarm: %s", sc.Path, p)
	}
	return out, res
}

func snapshotFiles(t *testing.T, out string) []string {
	t.Helper()
	m, err := bundle.ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	var snaps []string
	if err := bundle.EachSnapshot(out, m, func(s bundle.SnapshotRecord) error {
		snaps = append(snaps, s.Path)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(snaps)
	return snaps
}

// TestVerify_LibraryRunsAreIntact: Verify on real bundles raises no false
// alarm — snapshots, a peer that starts down, kills, fresh and
// state-preserving resurrects, a snapshot at duration_ns, SWIM clusters.
func TestVerify_LibraryRunsAreIntact(t *testing.T) {
	reg := builtin.Registry()
	for _, name := range []string{
		"reference/echo_parity", "smoke/three_mesh", "topology/churn",
		"topology/rolling_restart", "reproduction/gossip_flap",
	} {
		t.Run(name, func(t *testing.T) {
			sc, err := scenarios.LoadLibrary(name, reg)
			if err != nil {
				t.Fatal(err)
			}
			verifiedRun(t, sc)
		})
	}
}

// TestVerify_EchoParitySnapshotPlan pins, on the determinism reference,
// the files the snapshot plan rests on (f starts down until 2 s, b is
// dead from 6 s to 8 s, d from 12 s to 13.5 s), and that removing a
// snapshot together with its manifest entry is caught on a real bundle.
func TestVerify_EchoParitySnapshotPlan(t *testing.T) {
	sc, err := scenarios.LoadLibrary("reference/echo_parity", builtin.Registry())
	if err != nil {
		t.Fatal(err)
	}
	out, _ := verifiedRun(t, sc)
	snaps := snapshotFiles(t, out)
	for _, absent := range []string{"snapshots/f/0.json", "snapshots/b/2.json", "snapshots/d/3.json"} {
		if slices.Contains(snaps, absent) {
			t.Errorf("the run wrote %s; the plan says that host was not running", absent)
		}
	}
	if len(snaps) != 6*5-3 {
		t.Errorf("%d snapshot files, want 27: %v", len(snaps), snaps)
	}

	// The record removed from snapshots.records, its hash fixed up.
	removed := "snapshots/a/2.json"
	m, err := bundle.ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	var kept []byte
	if err := bundle.EachSnapshot(out, m, func(s bundle.SnapshotRecord) error {
		if s.Path != removed {
			kept = fmt.Appendf(kept, `{"snapshot":"%s","virtual_time_ns":%d,"bytes":%d}`+"\n", s.Path, s.AtNs, len(s.Data))
			kept = append(kept, s.Data...)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, bundle.SnapshotsFile), kept, 0o666); err != nil {
		t.Fatal(err)
	}
	m.Files[bundle.SnapshotsFile] = fmt.Sprintf("%x", sha256.Sum256(kept))
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, bundle.ManifestFile), data, 0o666); err != nil {
		t.Fatal(err)
	}
	problems, err := bundle.Verify(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) != 2 || problems[0].Path != bundle.ManifestFile || !strings.Contains(problems[0].Msg, "digest") ||
		problems[1].Path != removed || !strings.Contains(problems[1].Msg, "requested snapshot has no file") {
		t.Errorf("Verify = %v, want a digest mismatch and %s reported missing", problems, removed)
	}
}

// TestVerify_EarlyTerminatedRunIsIntact: a run that stops early records
// its end as duration_ns and writes no snapshot due after it; Verify
// accepts both.
func TestVerify_EarlyTerminatedRunIsIntact(t *testing.T) {
	sc, err := scenarios.Parse("early.toml", []byte(earlyScenario), builtin.Registry(), nil)
	if err != nil {
		t.Fatal(err)
	}
	out, res := verifiedRun(t, sc)
	if !res.Early || res.EndNs >= 20_000_000_000 || res.EndNs <= 600_000_000 {
		t.Fatalf("run ended at %d (early %v); the scenario is built to end early between 0.6 s and 20 s", res.EndNs, res.Early)
	}
	want := []string{"snapshots/a/1.json", "snapshots/b/0.json", "snapshots/b/1.json", "snapshots/c/0.json"}
	if got := snapshotFiles(t, out); !slices.Equal(got, want) {
		t.Errorf("snapshot files %v, want %v", got, want)
	}
}

// TestVerify_AgreesWithTheLoaderAndKinds: Verify repeats, without
// importing them, two facts of other packages; they must not drift.
func TestVerify_AgreesWithTheLoaderAndKinds(t *testing.T) {
	if bundle.MaxScenarioBytes != scenarios.MaxFileBytes {
		t.Errorf("bundle.MaxScenarioBytes = %d, scenarios.MaxFileBytes = %d", bundle.MaxScenarioBytes, scenarios.MaxFileBytes)
	}
	reg := builtin.Registry()
	for _, tag := range reg.Tags() {
		k, _ := reg.Lookup(tag)
		down, _ := hosts.DownStates(k)
		if down != bundle.DownState {
			t.Errorf("kind %q: DownState %q; Verify's snapshot plan assumes %q", tag, down, bundle.DownState)
		}
		if len(k.States()) > 0 && k.States()[0] == down {
			t.Errorf("kind %q: its default initial_state is its DownState; Verify's plan assumes a peer without initial_state runs", tag)
		}
	}
}
