package bundle

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// editManifest rewrites out's manifest.json through edit.
func editManifest(t *testing.T, out string, edit func(m *Manifest)) {
	t.Helper()
	m, err := ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	edit(&m)
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(out, ManifestFile), string(data))
}

func flipByte(t *testing.T, path string, at int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[at] ^= 0x01
	mustWrite(t, path, string(data))
}

// rewriteListed writes data to the bundle file rel and fixes up the
// manifest to match, as someone rewriting a bundle and its manifest
// together would: the file's hash, and for events.ndjson events_sha256
// and the record count.
func rewriteListed(t *testing.T, out, rel, data string) {
	t.Helper()
	mustWrite(t, filepath.Join(out, filepath.FromSlash(rel)), data)
	sum := sha256.Sum256([]byte(data))
	editManifest(t, out, func(m *Manifest) {
		m.Files[rel] = hex.EncodeToString(sum[:])
		if rel == EventsFile {
			m.EventsSHA256 = m.Files[rel]
			m.Records = int64(strings.Count(data, "\n"))
		}
	})
}

// removeListed deletes the bundle file rel and its manifest entry.
func removeListed(t *testing.T, out, rel string) {
	t.Helper()
	if err := os.Remove(filepath.Join(out, filepath.FromSlash(rel))); err != nil {
		t.Fatal(err)
	}
	editManifest(t, out, func(m *Manifest) { delete(m.Files, rel) })
}

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
}

// verifyWithin runs Verify, failing the test if it has not returned in
// ten seconds: a blocked read must fail the test, not hang it.
func verifyWithin(t *testing.T, dir string) ([]Problem, error) {
	t.Helper()
	type result struct {
		p   []Problem
		err error
	}
	done := make(chan result, 1)
	go func() {
		p, err := Verify(dir)
		done <- result{p, err}
	}()
	select {
	case r := <-done:
		return r.p, r.err
	case <-time.After(10 * time.Second):
		t.Fatal("Verify blocked for 10 s")
		return nil, nil
	}
}

// want is a problem Verify must report: the file, and a part of the
// message.
type want struct{ path, msg string }

// checkProblems runs Verify on out and checks that it reports want, in
// order, and nothing else.
func checkProblems(t *testing.T, out string, want []want) {
	t.Helper()
	got, err := verifyWithin(t, out)
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if len(got) != len(want) {
		t.Fatalf("Verify = %v, want %d problems %v", got, len(want), want)
	}
	for i, w := range want {
		if got[i].Path != w.path || !strings.Contains(got[i].Msg, w.msg) {
			t.Errorf("problem %d = %v, want path %s and a message containing %q", i, got[i], w.path, w.msg)
		}
	}
}

// TestVerify_ReportsEveryDifference holds the checks of a
// detsim-bundle/1 bundle, the layout of the bundles detsim wrote before
// snapshots.records: a new detsim verifies them as the old one did
// (TestVerify_Format2_ReportsEveryDifference holds the new layout).
func TestVerify_ReportsEveryDifference(t *testing.T) {
	tests := []struct {
		name   string
		tamper func(t *testing.T, out string)
		want   []want
	}{
		{"intact", func(*testing.T, string) {}, nil},
		{"events byte flipped", func(t *testing.T, out string) {
			flipByte(t, filepath.Join(out, EventsFile), 40)
		}, []want{{EventsFile, "content changed"}}},
		{"snapshot byte flipped", func(t *testing.T, out string) {
			flipByte(t, filepath.Join(out, "snapshots", "b", "1.json"), 3)
		}, []want{{"snapshots/b/1.json", "content changed"}}},
		{"scenario deleted", func(t *testing.T, out string) {
			if err := os.Remove(filepath.Join(out, ScenarioFile)); err != nil {
				t.Fatal(err)
			}
		}, []want{{ScenarioFile, "listed in the manifest but missing"}}},
		{"snapshot directory deleted", func(t *testing.T, out string) {
			if err := os.RemoveAll(filepath.Join(out, "snapshots", "b")); err != nil {
				t.Fatal(err)
			}
		}, []want{{"snapshots/b/0.json", "missing"}, {"snapshots/b/1.json", "missing"}}},
		{"stray files", func(t *testing.T, out string) {
			mustWrite(t, filepath.Join(out, "notes.txt"), "hi")
			mustWrite(t, filepath.Join(out, "snapshots", "c", "0.json"), "{}")
		}, []want{
			{"notes.txt", "not listed in the manifest"},
			{"snapshots/c", "directory no listed file is in"},
			{"snapshots/c/0.json", "not listed in the manifest"},
		}},
		{"extra empty directory", func(t *testing.T, out string) {
			if err := os.Mkdir(filepath.Join(out, "extra"), 0o777); err != nil {
				t.Fatal(err)
			}
		}, []want{{"extra", "directory no listed file is in"}}},
		{"extra empty snapshot directory", func(t *testing.T, out string) {
			if err := os.Mkdir(filepath.Join(out, SnapshotsDir, "c"), 0o777); err != nil {
				t.Fatal(err)
			}
		}, []want{{"snapshots/c", "directory no listed file is in"}}},
		{"FIFO planted", func(t *testing.T, out string) {
			mkfifo(t, filepath.Join(out, "fifo"))
		}, []want{{"fifo", "not a regular file"}}},
		{"scenario.toml replaced by a FIFO", func(t *testing.T, out string) {
			if err := os.Remove(filepath.Join(out, ScenarioFile)); err != nil {
				t.Fatal(err)
			}
			mkfifo(t, filepath.Join(out, ScenarioFile))
		}, []want{{ScenarioFile, "not a regular file"}}},
		{"snapshot replaced by a FIFO", func(t *testing.T, out string) {
			if err := os.Remove(filepath.Join(out, "snapshots", "b", "1.json")); err != nil {
				t.Fatal(err)
			}
			mkfifo(t, filepath.Join(out, "snapshots", "b", "1.json"))
		}, []want{{"snapshots/b/1.json", "not a regular file"}}},
		{"listed file outside the bundle format", func(t *testing.T, out string) {
			rewriteListed(t, out, "notes.txt", "hi")
		}, []want{{"notes.txt", "not a file of the detsim-bundle/1 format"}}},
		{"seed differs from scenario.toml", func(t *testing.T, out string) {
			editManifest(t, out, func(m *Manifest) { m.Seed = 7 })
		}, []want{{ManifestFile, "seed 7 differs from scenario.toml's seed 9223372036854775807"}}},
		{"duration differs from scenario.toml", func(t *testing.T, out string) {
			editManifest(t, out, func(m *Manifest) { m.DurationNs = 9_000_000_000 })
		}, []want{{ManifestFile, "duration_ns 9000000000 differs from scenario.toml's duration_ns 10000000000"}}},
		{"early termination: a shorter run is consistent", func(t *testing.T, out string) {
			rewriteListed(t, out, ScenarioFile, "early_terminate_on_all_assertions_resolved = true\n"+sampleScenario)
			editManifest(t, out, func(m *Manifest) { m.DurationNs = 5_000_000_000 })
		}, nil},
		{"early termination: never past scenario.toml's duration", func(t *testing.T, out string) {
			rewriteListed(t, out, ScenarioFile, "early_terminate_on_all_assertions_resolved = true\n"+sampleScenario)
			editManifest(t, out, func(m *Manifest) { m.DurationNs = 10_000_000_001 })
		}, []want{{ManifestFile, "duration_ns 10000000001 is after scenario.toml's duration_ns 10000000000"}}},
		{"early termination: snapshots after the end", func(t *testing.T, out string) {
			rewriteListed(t, out, ScenarioFile, "early_terminate_on_all_assertions_resolved = true\n"+sampleScenario)
			editManifest(t, out, func(m *Manifest) { m.DurationNs = 2_500_000 })
		}, []want{{"snapshots/b/1.json", "after the run ended"}}},
		{"scenario_sha256 not a SHA-256", func(t *testing.T, out string) {
			editManifest(t, out, func(m *Manifest) { m.ScenarioSHA256 = "5F2B" })
		}, []want{{ManifestFile, "scenario_sha256"}}},
		{"time unit edited", func(t *testing.T, out string) {
			editManifest(t, out, func(m *Manifest) { m.TimeUnit = "ms" })
		}, []want{{ManifestFile, `time_unit "ms"`}}},
		{"scenario.toml not a scenario", func(t *testing.T, out string) {
			rewriteListed(t, out, ScenarioFile, "seed = \"seven\"\n")
		}, []want{{ScenarioFile, "cannot be read as a scenario"}}},
		{"scenario.toml nested too deep", func(t *testing.T, out string) {
			rewriteListed(t, out, ScenarioFile, "x = "+strings.Repeat("[", 100)+strings.Repeat("]", 100)+"\n")
		}, []want{{ScenarioFile, "nest more than"}}},
		{"scenario.toml too large", func(t *testing.T, out string) {
			rewriteListed(t, out, ScenarioFile, sampleScenario+strings.Repeat("#", MaxScenarioBytes)+"\n")
		}, []want{{ScenarioFile, "bytes"}}},
		{"event rewritten, every hash fixed", func(t *testing.T, out string) {
			data, err := os.ReadFile(filepath.Join(out, EventsFile))
			if err != nil {
				t.Fatal(err)
			}
			rewriteListed(t, out, EventsFile, strings.Replace(string(data), "Partition", "Partitiom", 1))
		}, []want{{ManifestFile, "digest"}}},
		{"digest edited", func(t *testing.T, out string) {
			editManifest(t, out, func(m *Manifest) { m.Digest = strings.Repeat("0", 64) })
		}, []want{{ManifestFile, "digest"}}},
		{"snapshot removed with its manifest entry", func(t *testing.T, out string) {
			removeListed(t, out, "snapshots/b/1.json")
		}, []want{{ManifestFile, "digest"}, {"snapshots/b/1.json", "requested snapshot has no file"}}},
		{"snapshot directory removed with its manifest entries", func(t *testing.T, out string) {
			removeListed(t, out, "snapshots/a/0.json")
			if err := os.Remove(filepath.Join(out, "snapshots", "a")); err != nil {
				t.Fatal(err)
			}
		}, []want{{ManifestFile, "digest"}, {"snapshots/a/0.json", "requested snapshot has no file"}}},
		{"snapshot of a killed host added with its manifest entry", func(t *testing.T, out string) {
			rewriteListed(t, out, "snapshots/a/1.json", "{}\n")
		}, []want{{ManifestFile, "digest"}, {"snapshots/a/1.json", "was not running"}}},
		{"snapshot for a request the scenario does not make", func(t *testing.T, out string) {
			rewriteListed(t, out, "snapshots/b/7.json", "{}\n")
		}, []want{{"snapshots/b/7.json", "no snapshot request 7"}}},
		{"snapshot of an undeclared peer", func(t *testing.T, out string) {
			rewriteListed(t, out, "snapshots/zed/0.json", "{}\n")
		}, []want{{"snapshots/zed/0.json", "no peer \"zed\""}}},
		{"snapshot name not a sequence number", func(t *testing.T, out string) {
			rewriteListed(t, out, "snapshots/b/01.json", "{}\n")
		}, []want{{"snapshots/b/01.json", "not a snapshot path"}}},
		{"stray symbolic link", func(t *testing.T, out string) {
			if err := os.Symlink("/etc/passwd", filepath.Join(out, "link")); err != nil {
				t.Skip("symlinks unsupported:", err)
			}
		}, []want{{"link", "not a regular file"}}},
		{"record count wrong", func(t *testing.T, out string) {
			editManifest(t, out, func(m *Manifest) { m.Records++ })
		}, []want{{EventsFile, "holds 3 records, manifest lists 4"}}},
		{"events_sha256 disagrees with files", func(t *testing.T, out string) {
			editManifest(t, out, func(m *Manifest) { m.EventsSHA256 = strings.Repeat("0", 64) })
		}, []want{{ManifestFile, "events_sha256"}}},
		{"required file unlisted", func(t *testing.T, out string) {
			editManifest(t, out, func(m *Manifest) { delete(m.Files, VerdictsFile) })
		}, []want{{VerdictsFile, "not listed in the manifest"}, {VerdictsFile, "required bundle file not listed"}}},
		{"path escaping the bundle", func(t *testing.T, out string) {
			mustWrite(t, filepath.Join(filepath.Dir(out), "outside"), "x")
			editManifest(t, out, func(m *Manifest) { m.Files["../outside"] = strings.Repeat("0", 64) })
		}, []want{{"../outside", "not a valid bundle file path"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			writeSampleV1(t, out, sampleRecords)
			tt.tamper(t, out)
			checkProblems(t, out, tt.want)
		})
	}
}

func TestVerify_ErrorsWithoutUsableManifest(t *testing.T) {
	tests := []struct {
		name     string
		manifest string // "" = no manifest.json
		want     string
	}{
		{"missing", "", "manifest.json"},
		{"not JSON", "{", "manifest.json"},
		{"other format", `{"format":"detsim-bundle/9","files":{}}`, `format "detsim-bundle/9"`},
		{"no files", `{"format":"detsim-bundle/1"}`, "no files"},
		{"oversized", `{"format":"detsim-bundle/1","files":{}}` + strings.Repeat(" ", MaxManifestBytes), "at most"},
		{"a FIFO", "fifo", "not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			switch tt.manifest {
			case "":
			case "fifo":
				mkfifo(t, filepath.Join(dir, ManifestFile))
			default:
				mustWrite(t, filepath.Join(dir, ManifestFile), tt.manifest)
			}
			_, err := verifyWithin(t, dir)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Verify = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}
