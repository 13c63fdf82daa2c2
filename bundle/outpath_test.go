package bundle

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/detsim/detsim/internal/fstree"
	"github.com/detsim/detsim/internal/scratch"
)

func TestCreate_NeverReplacesWhatDetsimDidNotWrite(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, out string)
		say   string // in the error
	}{
		{"a web project with a manifest.json", func(t *testing.T, out string) {
			mustWrite(t, filepath.Join(out, ManifestFile), `{"name":"my-app","start_url":"/"}`)
			mustWrite(t, filepath.Join(out, "index.html"), "<html>")
			mustWrite(t, filepath.Join(out, "src", "app.js"), "main()")
		}, "not a detsim manifest"},
		{"a bundle with a file a user added", func(t *testing.T, out string) {
			writeSample(t, out, sampleRecords)
			mustWrite(t, filepath.Join(out, "notes.md"), "what I found")
		}, "notes.md"},
		{"a detsim-bundle/1 bundle with a file added among its snapshots", func(t *testing.T, out string) {
			writeSampleV1(t, out, sampleRecords)
			mustWrite(t, filepath.Join(out, SnapshotsDir, "a", "mine.json"), "{}")
		}, "snapshots/a/mine.json"},
		{"a bundle with a snapshots/ directory a user added", func(t *testing.T, out string) {
			writeSample(t, out, sampleRecords)
			mustWrite(t, filepath.Join(out, SnapshotsDir, "a", "mine.json"), "{}")
		}, "snapshots/"},
		{"a bundle holding a file both plain and compressed", func(t *testing.T, out string) {
			writeSample(t, out, sampleRecords)
			mustWrite(t, filepath.Join(out, ScenarioFile+GzipSuffix), "mine")
		}, ScenarioFile + GzipSuffix},
		{"a bundle with an extra empty directory", func(t *testing.T, out string) {
			writeSample(t, out, sampleRecords)
			if err := os.Mkdir(filepath.Join(out, "plots"), 0o777); err != nil {
				t.Fatal(err)
			}
		}, "plots/"},
		{"a bundle missing a listed file", func(t *testing.T, out string) {
			writeSample(t, out, sampleRecords)
			if err := os.Remove(filepath.Join(out, VerdictsFile)); err != nil {
				t.Fatal(err)
			}
		}, "missing (verdicts.json)"},
		{"a bundle whose events file became a symbolic link", func(t *testing.T, out string) {
			writeSample(t, out, sampleRecords)
			target := filepath.Join(filepath.Dir(out), "precious.txt")
			mustWrite(t, target, "precious")
			ev := filepath.Join(out, EventsFile)
			if err := os.Remove(ev); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, ev); err != nil {
				t.Skip("symlinks unsupported:", err)
			}
		}, EventsFile},
		{"a directory whose manifest.json is a FIFO", func(t *testing.T, out string) {
			if err := os.MkdirAll(out, 0o777); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(filepath.Join(out, ManifestFile), 0o600); err != nil {
				t.Skip("mkfifo:", err)
			}
		}, "not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parent := t.TempDir()
			out := filepath.Join(parent, "out")
			tt.setup(t, out)
			before := fstree.Of(t, parent)
			done := make(chan error, 1)
			go func() {
				w, err := Create(out)
				if err == nil {
					w.Abort()
				}
				done <- err
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Create blocked")
			}
			if !errors.Is(err, ErrOutExists) || !strings.Contains(err.Error(), tt.say) {
				t.Errorf("Create = %v, want ErrOutExists saying %q", err, tt.say)
			}
			fstree.Same(t, parent, before, "Create changed the tree")
		})
	}
}

func TestCreate_RefusesAnOutputInsideABundle(t *testing.T) {
	parent := t.TempDir()
	b := filepath.Join(parent, "b")
	writeSample(t, b, sampleRecords)
	before := fstree.Of(t, parent)
	for _, out := range []string{filepath.Join(b, "inner"), filepath.Join(b, SnapshotsDir, "a", "deeper", "x")} {
		w, err := Create(out)
		if err == nil {
			w.Abort()
		}
		if !errors.Is(err, ErrOutExists) || !strings.Contains(err.Error(), "inside the detsim bundle "+b) {
			t.Errorf("Create(%s) = %v, want a refusal naming the bundle", out, err)
		}
	}
	fstree.Same(t, parent, before, "the bundle changed")
}

func TestCreate_SecondWriterOfTheSameOutputIsInUse(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	writeSample(t, out, sampleRecords)
	old := fstree.Of(t, out)
	w, err := Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	w2, err := Create(out)
	if err == nil {
		w2.Abort()
	}
	if !errors.Is(err, ErrOutInUse) || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("second Create = %v, want ErrOutInUse", err)
	}
	fstree.Same(t, out, old, "the old bundle changed while the first writer held it")
	w.Abort()
	if got := fstree.Names(t, parent); len(got) != 1 || got[0] != "out" {
		t.Errorf("parent holds %v after Abort, want only the old bundle", got)
	}
}

// killWhileWriting leaves what a process SIGKILLed mid-run leaves: its
// work directory, unlocked, and its out lock file, unlocked.
func killWhileWriting(t *testing.T, out string) *Writer {
	t.Helper()
	w, err := Create(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteEventLine(AppendEventLine(nil, 1, "a", "echo", sampleRecords[0].ev)); err != nil {
		t.Fatal(err)
	}
	simulateKill(w)
	return w
}

// killBetweenRenames leaves what a run replacing the bundle at out
// leaves when killed between install's two renames: its stage, and the
// old bundle in the work directory put made for it. It returns where the
// old bundle is.
func killBetweenRenames(t *testing.T, out string) string {
	t.Helper()
	w := killWhileWriting(t, out)
	aside, err := scratch.Dir(filepath.Dir(out), workPrefix(out))
	if err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(aside.Path, oldDir)
	if err := os.Rename(out, old); err != nil {
		t.Fatal(err)
	}
	scratch.ForgetForTest(aside, nil)
	if _, err := os.Stat(w.Dir()); err != nil {
		t.Fatalf("the killed run's stage is gone: %v", err)
	}
	return old
}

func TestCreate_RemovesWorkDirectoriesKilledRunsLeft(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	killWhileWriting(t, out)
	killWhileWriting(t, out)
	if n := len(fstree.Names(t, parent)); n < 2 {
		t.Fatalf("the simulated kills left %d entries, want the work directories", n)
	}
	writeSample(t, out, sampleRecords)
	if got := fstree.Names(t, parent); len(got) != 1 || got[0] != "out" {
		t.Errorf("parent holds %v, want only the new bundle", got)
	}
}

func TestCreate_RestoresTheBundleAKilledRunHadMovedAside(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	writeSample(t, out, sampleRecords)
	want := fstree.Of(t, out)
	killBetweenRenames(t, out)
	w2, err := Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Abort()
	fstree.Same(t, out, want, "the old bundle was not restored")
}

// FuzzCreate_OutPathDecision builds a random tree at the output path —
// a real bundle or not, with files, directories and symbolic links added
// or removed — runs a whole write, and checks the one rule: if anything
// there was not provably a detsim bundle, nothing changed; a sibling or a
// link's target never changes.
func FuzzCreate_OutPathDecision(f *testing.F) {
	f.Add([]byte{0})
	f.Add([]byte{1})
	f.Add([]byte{1, 2, 5})
	f.Add([]byte{1, 3, 1})
	f.Add([]byte{2, 4, 0, 6})
	f.Add([]byte{1, 7, 2})
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 12 {
			ops = ops[:12]
		}
		parent := t.TempDir()
		out := filepath.Join(parent, "out")
		mustWrite(t, filepath.Join(parent, "sibling.txt"), "precious")
		names := []string{ManifestFile, EventsFile, VerdictsFile, "notes.md", SnapshotsDir + "/a/0.json", SnapshotsDir + "/z/9.json", "src/x.js", "deep/er/y"}
		realBundle := false
		for i, op := range ops {
			name := filepath.Join(out, filepath.FromSlash(names[int(op>>3)%len(names)]))
			switch op % 8 {
			case 0: // nothing at out
			case 1:
				if i == 0 {
					writeSampleQuiet(t, out)
					realBundle = true
				}
			case 2:
				tryWrite(name, fmt.Sprint("user ", i))
			case 3:
				os.RemoveAll(name)
			case 4:
				os.MkdirAll(name, 0o777)
			case 5:
				os.MkdirAll(filepath.Dir(name), 0o777)
				os.Symlink(filepath.Join(parent, "sibling.txt"), name)
			case 6:
				os.MkdirAll(filepath.Dir(out), 0o777)
				os.RemoveAll(out)
				os.Symlink(parent, out)
			case 7:
				tryWrite(filepath.Join(out, ManifestFile), `{"format":"detsim-bundle/1","files":{}}`)
			}
		}
		_ = realBundle
		before := fstree.Of(t, parent)
		proven := provenBundle(out) == nil
		w, err := Create(out)
		if err == nil {
			line := AppendEventLine(nil, 1, "a", "echo", sampleRecords[0].ev)
			if err = w.WriteEventLine(line); err == nil {
				err = w.Finish(sampleManifest, []byte("seed = 1\n"), []byte("[]\n"))
			}
			w.Abort()
		}
		after := fstree.Of(t, parent)
		if after["sibling.txt"] != before["sibling.txt"] {
			t.Fatalf("the sibling file changed: %q -> %q", before["sibling.txt"], after["sibling.txt"])
		}
		if err != nil && !maps.Equal(before, after) {
			t.Fatalf("a refused write changed the tree (%v):\nbefore %v\nafter  %v", err, before, after)
		}
		if err == nil {
			if _, statErr := os.Lstat(out); !proven && statErr == nil && before["out"] != "" {
				t.Fatalf("replaced something that was not provably a bundle:\n%v", before)
			}
			for p := range before {
				if strings.HasPrefix(p, "out"+string(filepath.Separator)) || p == "out" || p == "sibling.txt" || p == "." {
					continue
				}
				if _, ok := after[p]; !ok {
					t.Fatalf("%s vanished", p)
				}
			}
		}
	})
}

// tryWrite writes a file if it can: a fuzzed tree may have a directory
// or a link in the way, which is part of what is being tried.
func tryWrite(path, data string) {
	os.MkdirAll(filepath.Dir(path), 0o777)
	os.WriteFile(path, []byte(data), 0o666)
}

// writeSampleQuiet is writeSample for a fuzz body.
func writeSampleQuiet(t *testing.T, out string) { writeSample(t, out, sampleRecords) }

// simulateKill drops every lock w holds without removing anything, as
// the kernel does for a SIGKILLed process.
func simulateKill(w *Writer) {
	w.events.Close()
	w.state = aborted
	scratch.ForgetForTest(w.work, w.lock)
}

func TestCreate_KeepsTheOldBundleWhenSomethingElseTookItsPlace(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	writeSample(t, out, sampleRecords)
	want := fstree.Of(t, out)
	old := killBetweenRenames(t, out)
	mustWrite(t, filepath.Join(out, "mine.txt"), "a user's file where the bundle was")
	w2, err := Create(out)
	if err == nil {
		w2.Abort()
		t.Fatal("Create succeeded, want a refusal naming both")
	}
	fstree.Same(t, old, want, "the old bundle was not kept where the killed run left it")
	if data, _ := os.ReadFile(filepath.Join(out, "mine.txt")); string(data) != "a user's file where the bundle was" {
		t.Errorf("the user's file changed: %q", data)
	}
}
