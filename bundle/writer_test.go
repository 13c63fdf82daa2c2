package bundle

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/detsim/detsim/internal/fstree"
)

func TestWriter_WritesLayout_9_1(t *testing.T) {
	out := filepath.Join(t.TempDir(), "runs", "nested", "out")
	writeSample(t, out, sampleRecords)

	var files []string
	err := filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(out, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"events.ndjson", "known_gaps.md", "manifest.json", "scenario.toml",
		"snapshots.records", "verdicts.json"}
	if !slices.Equal(files, want) {
		t.Errorf("bundle files = %v, want %v", files, want)
	}
	if got := fstree.Names(t, filepath.Dir(out)); !slices.Equal(got, []string{"out"}) {
		t.Errorf("output's parent holds %v, want only the bundle (no work directory left)", got)
	}
	gaps, err := os.ReadFile(filepath.Join(out, KnownGapsFile))
	if err != nil || string(gaps) != KnownGaps() {
		t.Errorf("known_gaps.md is not the embedded document (err %v)", err)
	}
	problems, err := Verify(out)
	if err != nil || len(problems) != 0 {
		t.Errorf("Verify of a fresh bundle = %v, %v; want no problems", problems, err)
	}

	m, err := ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	if m.Records != int64(len(sampleRecords)) || m.TimeUnit != "ns" || m.Clock != "virtual" || m.Format != Format {
		t.Errorf("writer-owned fields not filled: %+v", m)
	}
	if m.Seed != sampleManifest.Seed || m.SimulatorVersion != sampleManifest.SimulatorVersion {
		t.Errorf("caller fields not kept: %+v", m)
	}
	if len(m.Substitutions) == 0 || m.Substitutions[0] != ReceiveTimeSubstitution {
		t.Errorf("substitutions = %q, want the receive-time substitution first", m.Substitutions)
	}
}

func TestWriter_EventsReadableFromDirAfterFlush(t *testing.T) {
	w, err := Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	var line []byte
	for _, r := range sampleRecords {
		line = AppendEventLine(line[:0], r.at, r.host, r.kindTag, r.ev)
		if err := w.WriteEventLine(line); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.FlushEvents(); err != nil {
		t.Fatal(err)
	}
	if err := w.FlushEvents(); err != nil {
		t.Errorf("second FlushEvents: %v, want nil", err)
	}
	n := 0
	err = ReadEvents(w.Dir(), func(lineNo int, rec EventRecord) error {
		want := sampleRecords[n]
		n++
		if lineNo != n || rec.VirtualTimeNs != want.at || rec.HostID != want.host || rec.KindTag != want.kindTag || rec.Type != want.ev.typ {
			t.Errorf("line %d = %+v, want %+v", lineNo, rec, want)
		}
		return nil
	})
	if err != nil || n != len(sampleRecords) {
		t.Errorf("ReadEvents read %d records, err %v; want %d", n, err, len(sampleRecords))
	}
	if err := w.WriteEventLine(line); err == nil {
		t.Error("WriteEventLine after FlushEvents succeeded, want an error")
	}
	if err := w.Finish(sampleManifest, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := w.Finish(sampleManifest, nil, nil); err == nil {
		t.Error("second Finish succeeded, want an error")
	}
}

func TestCreate_RefusesNonBundleOutput(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, out string)
	}{
		{"regular file", func(t *testing.T, out string) { mustWrite(t, out, "precious") }},
		{"empty directory", func(t *testing.T, out string) {
			if err := os.Mkdir(out, 0o777); err != nil {
				t.Fatal(err)
			}
		}},
		{"directory of other files", func(t *testing.T, out string) { mustWrite(t, filepath.Join(out, "thesis.tex"), "precious") }},
		{"manifest.json is a directory", func(t *testing.T, out string) {
			if err := os.MkdirAll(filepath.Join(out, ManifestFile), 0o777); err != nil {
				t.Fatal(err)
			}
		}},
		{"symbolic link to a bundle", func(t *testing.T, out string) {
			real := filepath.Join(filepath.Dir(out), "real")
			writeSample(t, real, sampleRecords)
			if err := os.Symlink(real, out); err != nil {
				t.Skip("symlinks unsupported:", err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parent := t.TempDir()
			out := filepath.Join(parent, "out")
			tt.setup(t, out)
			before := fstree.Names(t, parent)
			w, err := Create(out)
			if err == nil {
				w.Abort()
				t.Fatal("Create succeeded, want an error")
			}
			if !errors.Is(err, ErrOutExists) {
				t.Errorf("error %v does not wrap ErrOutExists", err)
			}
			if !strings.Contains(err.Error(), out) {
				t.Errorf("error %q does not name the path", err)
			}
			if after := fstree.Names(t, parent); !slices.Equal(before, after) {
				t.Errorf("Create changed the parent: %v -> %v", before, after)
			}
		})
	}
}

func TestCreate_RejectsPathsThatNameNoDirectory(t *testing.T) {
	for _, out := range []string{"", ".", "..", "/", "a/.."} {
		if w, err := Create(out); err == nil {
			w.Abort()
			t.Errorf("Create(%q) succeeded, want an error", out)
		}
	}
}

func TestFinish_ReplacesExistingBundle(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	writeSample(t, out, sampleRecords)
	writeSample(t, out, sampleRecords[:1])

	if got := fstree.Names(t, parent); !slices.Equal(got, []string{"out"}) {
		t.Errorf("parent holds %v after replacing, want only the bundle", got)
	}
	m, err := ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	if m.Records != 1 {
		t.Errorf("replaced bundle has %d records, want the new run's 1", m.Records)
	}
	if problems, err := Verify(out); err != nil || len(problems) != 0 {
		t.Errorf("Verify after replace = %v, %v; want none (no file of the old bundle may survive)", problems, err)
	}
}

func TestFinish_RefusesNonBundleThatAppearedSinceCreate(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	w, err := Create(out)
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, out, "precious")
	err = w.Finish(sampleManifest, nil, nil)
	if !errors.Is(err, ErrOutExists) {
		t.Errorf("Finish = %v, want ErrOutExists", err)
	}
	w.Abort()
	if data, _ := os.ReadFile(out); string(data) != "precious" {
		t.Errorf("the file at the output path was changed to %q", data)
	}
	if got := fstree.Names(t, parent); !slices.Equal(got, []string{"out"}) {
		t.Errorf("parent holds %v after Abort, want only the user's file", got)
	}
}

func TestAbort_RemovesWorkDirectory(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	w, err := Create(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteEventLine(AppendEventLine(nil, 1, "a", "echo", sampleRecords[0].ev)); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteSnapshotAt("a", 0, 5, []byte("{}")); err != nil {
		t.Fatal(err)
	}
	w.Abort()
	w.Abort()
	if got := fstree.Names(t, parent); len(got) != 0 {
		t.Errorf("parent holds %v after Abort, want nothing", got)
	}
	if err := w.WriteEventLine([]byte("{}\n")); err == nil {
		t.Error("WriteEventLine after Abort succeeded, want an error")
	}
}

func TestAbort_AfterFinishKeepsBundle(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	w, err := Create(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Finish(sampleManifest, nil, nil); err != nil {
		t.Fatal(err)
	}
	w.Abort()
	if _, err := ReadManifest(out); err != nil {
		t.Errorf("bundle gone after Abort following Finish: %v", err)
	}
}

func TestAbort_KeepsExistingBundle(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	writeSample(t, out, sampleRecords)
	w, err := Create(out)
	if err != nil {
		t.Fatal(err)
	}
	w.Abort()
	if problems, err := Verify(out); err != nil || len(problems) != 0 {
		t.Errorf("existing bundle damaged by an aborted run: %v, %v", problems, err)
	}
}

func TestWriteEventLine_RejectsLinesThatAreNotOneRecord(t *testing.T) {
	w, err := Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	for _, line := range []string{"", "{}", "{}\n{}\n", "{\n}\n"} {
		if err := w.WriteEventLine([]byte(line)); err == nil {
			t.Errorf("WriteEventLine(%q) succeeded, want an error", line)
		}
	}
	if err := w.WriteEventLine([]byte("{}\n")); err != nil {
		t.Errorf("a rejected line poisoned the writer: %v", err)
	}
}

func TestWriteSnapshot_RejectsBadNames(t *testing.T) {
	w, err := Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	for _, id := range []string{"", ".", "..", "../x", "a/b", `a\b`, "a b", "é", strings.Repeat("x", 65)} {
		if err := w.WriteSnapshotAt(id, 0, 5, []byte("{}")); err == nil {
			t.Errorf("WriteSnapshotAt(%q) succeeded, want an error", id)
		}
	}
	if err := w.WriteSnapshotAt("a", -1, 5, []byte("{}")); err == nil {
		t.Error("negative sequence accepted")
	}
	if err := w.WriteSnapshotAt(strings.Repeat("x", 64), 0, 5, []byte("{}")); err != nil {
		t.Errorf("64-character id refused: %v", err)
	}
	if err := w.WriteSnapshotAt("a", 3, 5, []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteSnapshotAt("a", 3, 5, []byte("{}")); err == nil {
		t.Error("second snapshot a/3 accepted, want an error")
	}
}

func TestWriteEventLines_RejectsBatchesThatAreNotWholeLines(t *testing.T) {
	w, err := Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	for _, c := range []struct {
		b string
		n int64
	}{{"{}", 1}, {"{}\n{}", 2}, {"{}\n{}\n", 1}, {"{}\n", 2}, {"", 1}} {
		if err := w.WriteEventLines([]byte(c.b), c.n); err == nil {
			t.Errorf("WriteEventLines(%q, %d) succeeded, want an error", c.b, c.n)
		}
	}
	if err := w.WriteEventLines([]byte("{}\n{}\n"), 2); err != nil {
		t.Errorf("a rejected batch poisoned the writer: %v", err)
	}
	if err := w.WriteEventLine([]byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	if err := w.FlushEvents(); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(w.Dir(), EventsFile)); err != nil || string(b) != "{}\n{}\n{}\n" {
		t.Errorf("events.ndjson = %q, %v", b, err)
	}
}

// TestWriter_AbortedBundleLeavesNothingInTheNext: write buffers go from
// one Writer to the next (buffers); bytes an aborted writer left
// unflushed in them must not reach the next bundle's files.
func TestWriter_AbortedBundleLeavesNothingInTheNext(t *testing.T) {
	parent := t.TempDir()
	for range 3 {
		w, err := Create(filepath.Join(parent, "aborted"))
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteEventLine(AppendEventLine(nil, 7, "z", "echo", fakeEvent{"stray", "left in the buffer", 9})); err != nil {
			t.Fatal(err)
		}
		if err := w.WriteSnapshotAt("z", 0, 7, []byte(`{"stray":true}`)); err != nil {
			t.Fatal(err)
		}
		w.Abort()
	}
	out := filepath.Join(parent, "out")
	writeSample(t, out, sampleRecords)
	if problems, err := Verify(out); err != nil || len(problems) != 0 {
		t.Fatalf("Verify = %v, %v; want no problems", problems, err)
	}
	for _, f := range []string{EventsFile, SnapshotsFile} {
		b, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "stray") {
			t.Errorf("%s holds what an aborted writer buffered:\n%s", f, b)
		}
	}
}

// TestWriter_ReusesItsWriteBuffers: a process writing bundle after
// bundle (a benchmark, a suite) takes back the write buffers of the last
// one rather than allocate a quarter-megabyte twice a bundle
// (docs/BENCHMARKS.md, "Buffers kept between runs"). A collection in
// between may empty the pool, so one attempt of three must show it.
func TestWriter_ReusesItsWriteBuffers(t *testing.T) {
	parent := t.TempDir()
	writeSample(t, filepath.Join(parent, "warm"), sampleRecords)
	var least uint64 = 1 << 62
	for i := range 3 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		writeSample(t, filepath.Join(parent, fmt.Sprint("b", i)), sampleRecords)
		runtime.ReadMemStats(&after)
		least = min(least, after.TotalAlloc-before.TotalAlloc)
	}
	if least >= eventsBufferSize {
		t.Errorf("a bundle of %d records allocated at least %d bytes, want less than one write buffer (%d)",
			len(sampleRecords), least, eventsBufferSize)
	}
}

// TestWriter_ManifestIsWhatItWrote: a batch run takes its result's
// parity checksum from Writer.Manifest instead of reading manifest.json
// back, so the two must agree field for field.
func TestWriter_ManifestIsWhatItWrote(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	w := sampleWriter(t, out, sampleRecords)
	finishSample(t, w, sampleManifestOf(sampleRecords))
	read, err := ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	if got := w.Manifest(); !reflect.DeepEqual(got, read) {
		t.Errorf("Writer.Manifest() = %+v\nmanifest.json       = %+v", got, read)
	}
	if ParityChecksum(w.Manifest()) != ParityChecksum(read) {
		t.Error("the parity checksums differ")
	}
}
