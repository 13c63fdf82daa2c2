package testbed

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/detsim/detsim/testbed/tbnet"
)

// netnsDir is where `ip netns add` pins a namespace.
const netnsDir = "/run/netns"

// LockDir holds a lock file per running testbed run, so that a later
// run can tell a killed run's namespaces from a live one's.
const LockDir = "/run/detsim-testbed"

// commandTimeout bounds every ip, tc and nft invocation.
const commandTimeout = 20 * time.Second

// Tools are the commands the testbed runs.
var Tools = []string{"ip", "tc", "nft"}

// Preflight says what this machine lacks for a testbed run, or nil: root
// (namespaces, links and rules need CAP_NET_ADMIN), the ip, tc and nft
// commands (Debian's iproute2 and nftables), and /dev/net/tun.
func Preflight() error {
	var missing []string
	if os.Geteuid() != 0 {
		missing = append(missing, "root (network namespaces, veth pairs, HTB and nftables need CAP_NET_ADMIN)")
	}
	for _, t := range Tools {
		if _, err := exec.LookPath(t); err != nil {
			pkg := "iproute2"
			if t == "nft" {
				pkg = "nftables"
			}
			missing = append(missing, fmt.Sprintf("the %s command (Debian package %s)", t, pkg))
		}
	}
	if _, err := os.Stat("/dev/net/tun"); err != nil {
		missing = append(missing, "/dev/net/tun (the delay line's TUN device)")
	}
	if len(missing) > 0 {
		return fmt.Errorf("testbed: this machine lacks %s", strings.Join(missing, ", "))
	}
	return nil
}

// command runs name with args (and stdin, if not empty), bounded in time;
// a failure carries what the command wrote.
func command(stdin, name string, args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		what := strings.Join(append([]string{name}, args...), " ")
		if len(what) > 200 {
			what = what[:200] + "..."
		}
		msg := strings.TrimSpace(out.String())
		if stdin != "" {
			msg += "\ninput:\n" + stdin
		}
		return fmt.Errorf("%s: %v: %s", what, err, msg)
	}
	return nil
}

// batch runs ip's or tc's batch mode on lines, in namespace ns ("" for
// this process's namespace).
func batch(tool, ns string, lines []string) error {
	if len(lines) == 0 {
		return nil
	}
	args := []string{"-force", "-batch", "-"}
	if ns != "" {
		args = append([]string{"-n", ns}, args...)
	}
	return command(strings.Join(lines, "\n")+"\n", tool, args...)
}

// newRunID is a fresh run id: 8 hex digits from the operating system's
// randomness, so that runs at once, in one machine, never share a name.
func newRunID() string {
	var b [4]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// runLock is a testbed run's claim on its namespaces: a file in LockDir
// that the run holds locked (flock) while it lives. A run whose lock can
// be taken is dead, and its namespaces are swept.
type runLock struct {
	id string
	f  *os.File
}

// withGlobalLock runs f while holding LockDir's own lock, which orders
// every sweep against every run's taking of its lock: a sweep never sees
// a starting run's namespaces without its lock.
func withGlobalLock(f func() error) error {
	if err := os.MkdirAll(LockDir, 0o700); err != nil {
		return fmt.Errorf("testbed: %w", err)
	}
	g, err := os.OpenFile(filepath.Join(LockDir, "lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("testbed: %w", err)
	}
	defer g.Close()
	if err := unix.Flock(int(g.Fd()), unix.LOCK_EX); err != nil {
		return fmt.Errorf("testbed: locking %s: %w", g.Name(), err)
	}
	return f()
}

// claim sweeps what killed runs left and takes a lock for a new run.
func claim() (*runLock, []string, error) {
	var l *runLock
	var swept []string
	err := withGlobalLock(func() error {
		var err error
		if swept, err = sweepLocked(); err != nil {
			return err
		}
		id := newRunID()
		f, err := os.OpenFile(filepath.Join(LockDir, id+".lock"), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return fmt.Errorf("testbed: %w", err)
		}
		if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
			f.Close()
			return fmt.Errorf("testbed: locking %s: %w", f.Name(), err)
		}
		l = &runLock{id: id, f: f}
		return nil
	})
	return l, swept, err
}

func (l *runLock) release() {
	os.Remove(l.f.Name())
	l.f.Close()
}

// Sweep removes every namespace a dead testbed run left (a run killed
// with SIGKILL cannot remove its own), killing the processes still in
// them, and returns their names. A running run's namespaces are kept.
func Sweep() ([]string, error) {
	var swept []string
	err := withGlobalLock(func() error {
		var err error
		swept, err = sweepLocked()
		return err
	})
	return swept, err
}

// sweepLocked is Sweep under the global lock.
func sweepLocked() ([]string, error) {
	entries, err := os.ReadDir(netnsDir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("testbed: listing %s: %w", netnsDir, err)
	}
	byRun := map[string][]string{}
	var runs []string
	for _, e := range entries {
		name := e.Name()
		if !tbnet.ValidName(name) {
			continue
		}
		id, _, ok := strings.Cut(strings.TrimPrefix(name, tbnet.Prefix), "-")
		if !ok {
			continue
		}
		if _, seen := byRun[id]; !seen {
			runs = append(runs, id)
		}
		byRun[id] = append(byRun[id], name)
	}
	// Lock files of dead runs that left no namespace (killed before
	// making one, or after removing them) go too.
	if locks, err := os.ReadDir(LockDir); err == nil {
		for _, e := range locks {
			id, ok := strings.CutSuffix(e.Name(), ".lock")
			if !ok || byRun[id] != nil {
				continue
			}
			path := filepath.Join(LockDir, e.Name())
			if f, err := os.OpenFile(path, os.O_RDWR, 0); err == nil {
				if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil {
					os.Remove(path)
				}
				f.Close()
			}
		}
	}
	var swept []string
	for _, id := range runs {
		lockPath := filepath.Join(LockDir, id+".lock")
		f, err := os.OpenFile(lockPath, os.O_RDWR, 0)
		if err == nil {
			if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil {
				f.Close() // held: the run is alive
				continue
			}
		} else if !errors.Is(err, os.ErrNotExist) {
			return swept, fmt.Errorf("testbed: %w", err)
		}
		if err := removeNamespaces(byRun[id]); err != nil {
			if f != nil {
				f.Close()
			}
			return swept, err
		}
		swept = append(swept, byRun[id]...)
		if f != nil {
			os.Remove(lockPath)
			f.Close()
		}
	}
	return swept, nil
}

// removeNamespaces kills every process inside the named namespaces, then
// deletes them; with them go their veth ends, qdiscs, nftables tables and
// the TUN device.
func removeNamespaces(names []string) error {
	for _, ns := range names {
		for _, pid := range namespacePids(ns) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	var lines []string
	for _, ns := range names {
		lines = append(lines, "netns del "+ns)
	}
	if err := batch("ip", "", lines); err != nil {
		// One may have gone meanwhile; delete the rest one by one.
		var failed []string
		for _, ns := range names {
			if _, err := os.Stat(filepath.Join(netnsDir, ns)); err != nil {
				continue
			}
			if err := command("", "ip", "netns", "del", ns); err != nil {
				failed = append(failed, err.Error())
			}
		}
		if len(failed) > 0 {
			return fmt.Errorf("testbed: removing namespaces: %s", strings.Join(failed, "; "))
		}
	}
	return nil
}

// namespacePids lists the processes whose network namespace is ns.
func namespacePids(ns string) []int {
	var want unix.Stat_t
	if err := unix.Stat(filepath.Join(netnsDir, ns), &want); err != nil {
		return nil
	}
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		var st unix.Stat_t
		if unix.Stat("/proc/"+p.Name()+"/ns/net", &st) != nil {
			continue
		}
		if st.Dev == want.Dev && st.Ino == want.Ino {
			pids = append(pids, pid)
		}
	}
	return pids
}
