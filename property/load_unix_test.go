//go:build unix

package property

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/detsim/detsim/hosts/builtin"
)

// TestLoad_APropertyFileThatIsAFIFOIsRefused_Issue9: the property file
// is read like a scenario, through safefile: a FIFO is a one-line error,
// never a read that waits for a writer.
func TestLoad_APropertyFileThatIsAFIFOIsRefused_Issue9(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "p.toml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	var err error
	done := make(chan struct{})
	go func() { defer close(done); _, err = Resolve(fifo, builtin.Registry()) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("property.Resolve blocked on a FIFO")
	}
	if want := fifo + ": cannot read: it is not a regular file (a named pipe)"; err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
}
