package bundleinfo

import (
	"os"
	"path/filepath"
	"testing"
)

// Any "mode" marks a bundle as production: "live" (whose clock is also
// "wall") and "witness" (memberlist recorded by kinds/swim/bench/, whose clock is
// virtual like the simulator's).
func TestRead_ModeMarksProduction(t *testing.T) {
	for manifest, live := range map[string]bool{
		`{"format":"detsim-bundle/1","clock":"virtual"}`:                  false,
		`{"format":"detsim-bundle/1","clock":"virtual","mode":"witness"}`: true,
		`{"format":"detsim-bundle/1","clock":"wall","mode":"live"}`:       true,
		`{"format":"detsim-bundle/1","clock":"virtual","mode":""}`:        false,
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(manifest), 0o644); err != nil {
			t.Fatal(err)
		}
		in, err := Read(dir)
		if err != nil {
			t.Fatal(err)
		}
		if in.Live != live {
			t.Errorf("%s: Live %v (%s), want %v", manifest, in.Live, in.Why, live)
		}
	}
}
