//go:build unix

package scenarios

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/detsim/detsim/internal/fstree"
	"github.com/detsim/detsim/internal/realtime"
)

// hangBound is how long a load may take before the test calls it blocked
// (realtime.Returns scales it with the load).
const hangBound = 10 * time.Second

// TestLoad_NonRegularFilesAreRefusedAtOnce_Issue9: a FIFO (or device)
// named as the scenario or as an extends target is a one-line error
// naming it, never a read that waits for a writer.
func TestLoad_NonRegularFilesAreRefusedAtOnce_Issue9(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.toml")
	fstree.Fifo(t, fifo)
	child := filepath.Join(dir, "child.toml")
	if err := os.WriteFile(child, []byte("name = \"c\"\n[base]\nextends = \"fifo.toml\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dev := filepath.Join(dir, "dev.toml")
	if err := os.WriteFile(dev, []byte("name = \"d\"\n[base]\nextends = \"/dev/zero\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, path, want string }{
		{"scenario is a FIFO", fifo, fifo + ": cannot read: it is not a regular file (a named pipe)"},
		{"extends a FIFO", child, child + `: base.extends: cannot read "` + filepath.ToSlash(fifo) + `": it is not a regular file (a named pipe)`},
		{"scenario is a device", "/dev/zero", "/dev/zero: cannot read: it is not a regular file (a character device)"},
		{"extends a device", dev, dev + `: base.extends: cannot read "/dev/zero": it is not a regular file (a character device)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var err error
			realtime.Returns(t, "Load", hangBound, func() { _, err = Load(c.path, testRegistry()) })
			if err == nil || err.Error() != c.want {
				t.Errorf("err = %v\nwant %s", err, c.want)
			}
			if err != nil && strings.Contains(err.Error(), "\n") {
				t.Errorf("more than one line: %v", err)
			}
		})
	}
	t.Run("Resolve of a FIFO", func(t *testing.T) {
		var err error
		realtime.Returns(t, "Resolve", hangBound, func() { _, err = Resolve(fifo, testRegistry()) })
		if err == nil || !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("err = %v", err)
		}
	})
}
