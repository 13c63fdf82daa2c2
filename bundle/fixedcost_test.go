package bundle

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkBundle_FixedCost is what every bundle pays whatever its run:
// the output lock, the sweep, the work directory, the six files, the
// rename into place and the clean-up, with one record and no snapshot.
// Run it with TMPDIR on the filesystem to measure (docs/BENCHMARKS.md,
// "Fewer files made and removed").
func BenchmarkBundle_FixedCost(b *testing.B) {
	dir := b.TempDir()
	line := AppendEventLine(nil, sampleRecords[0].at, sampleRecords[0].host, sampleRecords[0].kindTag, sampleRecords[0].ev)
	m := sampleManifestOf(sampleRecords[:1])
	for i := range b.N {
		out := filepath.Join(dir, fmt.Sprint(i))
		w, err := Create(out)
		if err != nil {
			b.Fatal(err)
		}
		if err := w.WriteEventLine(line); err != nil {
			b.Fatal(err)
		}
		if err := w.Finish(m, []byte(sampleScenario), []byte("[]\n")); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := os.RemoveAll(out); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}
