//go:build unix

package sweep

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/internal/fstree"
	"github.com/detsim/detsim/internal/realtime"
)

// TestDirItems_AFIFOEntryIsAnErrorNotAHang_Issue9: `detsim check DIR`
// walks DIR; a FIFO named *.toml in it is reported as that entry's load
// error (the CLI's exit 2) and the walk never waits on it.
func TestDirItems_AFIFOEntryIsAnErrorNotAHang_Issue9(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "sub", "pipe.toml")
	if err := os.MkdirAll(filepath.Dir(fifo), 0o755); err != nil {
		t.Fatal(err)
	}
	fstree.Fifo(t, fifo)
	if err := os.WriteFile(filepath.Join(dir, "ok.toml"), []byte(echoScenario("# expect: pass-now", false)), 0o644); err != nil {
		t.Fatal(err)
	}
	var items []Item
	var err error
	realtime.Returns(t, "DirItems", 10*time.Second, func() { items, err = DirItems(dir, builtin.Registry()) })
	if want := fifo + ": cannot read: it is not a regular file (a named pipe)"; err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
	if len(items) != 1 || filepath.Base(items[0].Name) != "ok.toml" {
		t.Errorf("items = %v, want the one regular file", items)
	}
}
