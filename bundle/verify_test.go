package bundle

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
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

func TestVerify_ReportsEveryDifference(t *testing.T) {
	type want struct{ path, msg string }
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
		}, []want{{"notes.txt", "not listed in the manifest"}, {"snapshots/c/0.json", "not listed in the manifest"}}},
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
			writeSample(t, out, sampleRecords)
			tt.tamper(t, out)
			got, err := Verify(out)
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("Verify = %v, want %d problems %v", got, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if got[i].Path != w.path || !strings.Contains(got[i].Msg, w.msg) {
					t.Errorf("problem %d = %v, want path %s and a message containing %q", i, got[i], w.path, w.msg)
				}
			}
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.manifest != "" {
				mustWrite(t, filepath.Join(dir, ManifestFile), tt.manifest)
			}
			_, err := Verify(dir)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Verify = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}
