package bundle

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// RunDigest, given the snapshots in any order, is the digest Verify
// recomputes (checked against the independent spelling in sampleDigest).
func TestRunDigest_IsTheVerifiedDigest(t *testing.T) {
	var events []byte
	for _, r := range sampleRecords {
		events = AppendEventLine(events, r.at, r.host, r.kindTag, r.ev)
	}
	sum := sha256.Sum256(events)
	var snaps []DigestSnapshot
	for _, s := range sampleSnapshots {
		snaps = append(snaps, DigestSnapshot{Host: s.host, Seq: s.seq, AtNs: sampleRequestsAt[s.seq], Data: []byte(s.data)})
	}
	slices.Reverse(snaps)
	if got, want := RunDigest(sum[:], snaps), sampleDigest(sampleRecords); got != want {
		t.Errorf("RunDigest %s, want %s", got, want)
	}
}

// A live bundle: mode "live", clock "wall", the live clock substitution
// first, the machine recorded; Verify accepts it, and accepts it
// interrupted before the scenario's end.
func TestVerify_LiveBundle(t *testing.T) {
	for _, interrupted := range []string{"", "cancelled at 5 s"} {
		out := filepath.Join(t.TempDir(), "b")
		w := sampleWriter(t, out, sampleRecords)
		m := sampleManifestOf(sampleRecords)
		m.Mode, m.Interrupted = ModeLive, interrupted
		m.Machine = &Machine{GOOS: "linux", GOARCH: "amd64", CPUs: 2, GoVersion: "go1.26"}
		if interrupted != "" {
			m.DurationNs = 5_000_000
		}
		finishSample(t, w, m)
		got, err := ReadManifest(out)
		if err != nil {
			t.Fatal(err)
		}
		if got.Clock != "wall" || got.Substitutions[0] != LiveClockSubstitution || got.Machine == nil || got.Machine.CPUs != 2 {
			t.Errorf("live manifest: clock %q, substitutions %q, machine %+v", got.Clock, got.Substitutions, got.Machine)
		}
		if problems, err := Verify(out); err != nil || len(problems) > 0 {
			t.Errorf("interrupted=%q: Verify: %v %v", interrupted, problems, err)
		}
	}
}

// A sim bundle claiming to be interrupted, an unknown mode, or a live
// bundle whose clock says virtual, is a problem.
func TestVerify_LiveFieldsChecked(t *testing.T) {
	for name, tc := range map[string]struct {
		edit func(m *Manifest)
		want string
	}{
		"interrupted sim": {func(m *Manifest) { m.Interrupted = "x" }, "only a live, testbed or edge run"},
		"testbed without its record": {func(m *Manifest) {
			m.Mode, m.Clock = ModeTestbed, "wall"
		}, "testbed is set if and only if"},
		"testbed record on a sim": {func(m *Manifest) { m.Testbed = &Testbed{Kernel: "6.1"} }, "testbed is set if and only if"},
		"unknown mode":            {func(m *Manifest) { m.Mode = "replay" }, `mode "replay"`},
		"live clock":              {func(m *Manifest) { m.Mode = ModeLive }, `want "ns" and "wall"`},
	} {
		out := filepath.Join(t.TempDir(), "b")
		writeSample(t, out, sampleRecords)
		editManifest(t, out, tc.edit)
		problems, err := Verify(out)
		if err != nil {
			t.Fatal(err)
		}
		var all []string
		for _, p := range problems {
			all = append(all, p.String())
		}
		if !strings.Contains(strings.Join(all, "\n"), tc.want) {
			t.Errorf("%s: problems %q, want one containing %q", name, all, tc.want)
		}
	}
}

// A sim manifest carries none of the live fields: sim bundles and their
// goldens are byte-identical to before.
func TestManifest_SimOmitsLiveFields(t *testing.T) {
	out := filepath.Join(t.TempDir(), "b")
	writeSample(t, out, sampleRecords)
	data, err := os.ReadFile(filepath.Join(out, ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`"mode"`, `"interrupted"`, `"machine"`} {
		if strings.Contains(string(data), k) {
			t.Errorf("sim manifest holds %s", k)
		}
	}
}

// A witness bundle (kinds/swim/bench/: memberlist on the scenario's links in a
// synctest bubble): mode "witness" with the virtual clock verifies; with a
// wall clock it does not.
func TestVerify_WitnessBundle(t *testing.T) {
	out := filepath.Join(t.TempDir(), "b")
	m := sampleManifestOf(sampleRecords)
	m.Mode = ModeWitness
	finishSample(t, sampleWriter(t, out, sampleRecords), m)
	got, err := ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	if got.Mode != ModeWitness || got.Clock != "virtual" {
		t.Errorf("witness manifest: mode %q, clock %q", got.Mode, got.Clock)
	}
	if problems, err := Verify(out); err != nil || len(problems) > 0 {
		t.Errorf("Verify: %v %v", problems, err)
	}
	editManifest(t, out, func(m *Manifest) { m.Clock = "wall" })
	if problems, _ := Verify(out); len(problems) == 0 {
		t.Error("a witness bundle with a wall clock verifies")
	}
}

// A testbed bundle: mode "testbed", the wall clock, its own substitution
// first, the realised edges in the manifest and its testbed/ files
// listed; Verify accepts it. The same testbed/ file in a live bundle is
// a file outside the format.
func TestVerify_TestbedBundle(t *testing.T) {
	draws := filepath.Join(t.TempDir(), "draws")
	if err := os.WriteFile(draws, []byte("t_in from to bytes\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{ModeTestbed, ModeLive} {
		out := filepath.Join(t.TempDir(), "b")
		w := sampleWriter(t, out, sampleRecords)
		if err := w.CopyTestbedFile("delays.tsv", draws); err != nil {
			t.Fatal(err)
		}
		if err := w.CopyTestbedFile("../x", draws); err == nil {
			t.Error("CopyTestbedFile took a name with a path in it")
		}
		m := sampleManifestOf(sampleRecords)
		m.Mode = mode
		if mode == ModeTestbed {
			m.Testbed = &Testbed{Kernel: "6.18", Impl: "swimd", Edges: []TestbedEdge{{From: "a", To: "b", LatencyNs: 45e6, MTUBytes: 1500}},
				Lateness: &TestbedLateness{Packets: 900, P50Ns: 600e3, P99Ns: 5e6, MaxNs: 12e6, SmallestLatencyNs: 45e6},
				Load:     &TestbedLoad{CPUs: 2, Samples: 9, Load1Min: 1.5, Load1Median: 2.25, Load1Max: 4},
				Marked:   "the delay line's p99 lateness 5.00 ms > 1/10 of the 45.0 ms smallest latency asked"}
		}
		finishSample(t, w, m)
		problems, err := Verify(out)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ReadManifest(out)
		if err != nil {
			t.Fatal(err)
		}
		switch mode {
		case ModeTestbed:
			if len(problems) > 0 {
				t.Errorf("testbed bundle: %v", problems)
			}
			if got.Clock != "wall" || got.Substitutions[0] != TestbedClockSubstitution || got.Testbed == nil || got.Testbed.Edges[0].MTUBytes != 1500 {
				t.Errorf("testbed manifest: clock %q, substitutions %q, testbed %+v", got.Clock, got.Substitutions, got.Testbed)
			}
			// The delay line's own error and the machine's load come back
			// as written (docs/bundle.md).
			if got.Testbed != nil && (got.Testbed.Lateness == nil || *got.Testbed.Lateness != *m.Testbed.Lateness ||
				got.Testbed.Load == nil || *got.Testbed.Load != *m.Testbed.Load || got.Testbed.Marked != m.Testbed.Marked) {
				t.Errorf("testbed's own error: lateness %+v load %+v marked %q", got.Testbed.Lateness, got.Testbed.Load, got.Testbed.Marked)
			}
		case ModeLive:
			if len(problems) != 1 || problems[0].Path != "testbed/delays.tsv" {
				t.Errorf("live bundle with a testbed file: problems %v, want one on testbed/delays.tsv", problems)
			}
		}
	}
}
