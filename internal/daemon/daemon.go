// Package daemon supervises one node daemon (kinds/swim/cmd/swimd, bench's
// memberlistd) as a child process: it starts it and waits for the line
// saying it is ready, asks it for snapshots with SIGUSR1, and stops it
// with SIGTERM, killing it if it does not go. Used by package live
// (--procs) and package testbed; outside the determinism fence.
package daemon

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/detsim/detsim/internal/safefile"
)

// ReadyMarker is what a daemon's ready line holds: "<name>: <id> ready on
// <address>", written to stderr once its socket is bound.
const ReadyMarker = " ready on "

// Timeouts bound every wait on a child.
const (
	StartTimeout    = 5 * time.Second
	StopTimeout     = 5 * time.Second
	SnapshotTimeout = 3 * time.Second
)

// maxTail bounds the stderr kept to explain a child's exit.
const maxTail = 4096

// Child is one running daemon.
type Child struct {
	cmd     *exec.Cmd
	name    string
	snapDir string
	snaps   int
	exited  chan struct{}
	mu      sync.Mutex
	tail    bytes.Buffer
	stopped bool // Stop was called: its exit is expected
}

// Start starts cmd, whose daemon writes snapshots <n>.json into snapDir,
// and waits up to StartTimeout for its ready line. name says which peer
// it is, for messages. A child that exits first, or is not ready in time
// (then it is killed), is an error holding what it wrote to stderr.
func Start(cmd *exec.Cmd, name, snapDir string) (*Child, error) {
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the daemon of %s: %w", name, err)
	}
	c := &Child{cmd: cmd, name: name, snapDir: snapDir, exited: make(chan struct{})}
	ready := make(chan struct{}, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			if strings.Contains(line, ReadyMarker) {
				select {
				case ready <- struct{}{}:
				default:
				}
				continue
			}
			c.mu.Lock()
			if c.tail.Len() < maxTail {
				c.tail.WriteString(line + "\n")
			}
			c.mu.Unlock()
		}
		io.Copy(io.Discard, stderr)
		cmd.Wait()
		close(c.exited)
	}()
	select {
	case <-ready:
		return c, nil
	case <-c.exited:
		return nil, fmt.Errorf("the daemon of %s exited at start: %s", name, c.Tail())
	case <-time.After(StartTimeout):
		cmd.Process.Kill()
		<-c.exited
		return nil, fmt.Errorf("the daemon of %s did not start within %v: %s", name, StartTimeout, c.Tail())
	}
}

// Tail is what the child wrote to stderr, other than its ready line,
// up to a bound.
func (c *Child) Tail() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.TrimSpace(c.tail.String())
}

// Exited is closed when the child has exited.
func (c *Child) Exited() <-chan struct{} { return c.exited }

// Stopped reports whether Stop was called, so an exit is expected.
func (c *Child) Stopped() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stopped
}

// ExitState describes how the child ended, once Exited is closed.
func (c *Child) ExitState() string {
	if c.cmd.ProcessState == nil {
		return "still running"
	}
	return c.cmd.ProcessState.String()
}

// Signal sends sig to the child.
func (c *Child) Signal(sig os.Signal) error { return c.cmd.Process.Signal(sig) }

// Stop asks the child to end with SIGTERM (it flushes its records and
// exits) and kills it if it has not gone within StopTimeout.
func (c *Child) Stop() {
	c.mu.Lock()
	c.stopped = true
	c.mu.Unlock()
	_ = c.cmd.Process.Signal(syscall.SIGCONT) // a paused child cannot handle SIGTERM
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.exited:
	case <-time.After(StopTimeout):
		c.cmd.Process.Kill()
		<-c.exited
	}
}

// MaxSnapshotBytes bounds a child's snapshot file as it is read.
const MaxSnapshotBytes = 256 << 20

// Snapshot asks the child for its tier-2 snapshot (SIGUSR1) and waits up
// to SnapshotTimeout for the file it writes.
func (c *Child) Snapshot() ([]byte, error) {
	path := filepath.Join(c.snapDir, strconv.Itoa(c.snaps)+".json")
	c.snaps++
	if err := c.cmd.Process.Signal(syscall.SIGUSR1); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(SnapshotTimeout)
	for {
		data, err := safefile.ReadFile(path, MaxSnapshotBytes)
		if err == nil {
			return data, nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		select {
		case <-c.exited:
			return nil, fmt.Errorf("the daemon of %s exited before writing its snapshot", c.name)
		default:
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the daemon of %s wrote no snapshot within %v", c.name, SnapshotTimeout)
		}
		time.Sleep(2 * time.Millisecond)
	}
}
