//go:build unix

package property

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/internal/fstree"
	"github.com/detsim/detsim/internal/realtime"
)

// TestLoad_APropertyFileThatIsAFIFOIsRefused_Issue9: the property file
// is read like a scenario, through safefile: a FIFO is a one-line error,
// never a read that waits for a writer.
func TestLoad_APropertyFileThatIsAFIFOIsRefused_Issue9(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "p.toml")
	fstree.Fifo(t, fifo)
	var err error
	realtime.Returns(t, "property.Resolve", 10*time.Second, func() { _, err = Resolve(fifo, builtin.Registry()) })
	if want := fifo + ": cannot read: it is not a regular file (a named pipe)"; err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
}
