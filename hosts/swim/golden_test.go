package swim

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// TestGolden_IsolateAndHeal pins a whole trace: three members, c cut off
// at 3 s (suspected, then declared dead, while c declares the others
// dead), healed at 9 s (reconnect, refutations, reconvergence). Every
// event and the final snapshots are compared byte for byte; a change is a
// behaviour change to review (regenerate with -update).
func TestGolden_IsolateAndHeal(t *testing.T) {
	c := newCluster(t, abc, DefaultConfig(), nil)
	c.run(3 * s)
	c.isolate("c", true)
	c.run(9 * s)
	c.isolate("c", false)
	c.run(14 * s)
	var out []byte
	for _, r := range c.log {
		out = append(out, r.String()...)
		out = append(out, '\n')
	}
	for _, id := range c.ids {
		out = append(out, c.nodes[id].Snapshot()...)
		out = append(out, '\n')
	}
	path := filepath.Join("testdata", "isolate_and_heal.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != string(out) {
		t.Fatalf("trace differs from %s; review and rerun with -update if intended", path)
	}
}
