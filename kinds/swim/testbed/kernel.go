package testbed

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/detsim/detsim/internal/safefile"
	"github.com/detsim/detsim/kinds/swim/testbed/tbnet"
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
	_, err := runCommand(stdin, name, args...)
	return err
}

// commandOutput is command for a command whose standard output is read.
func commandOutput(name string, args ...string) ([]byte, error) {
	return runCommand("", name, args...)
}

func runCommand(stdin, name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var stdout, out bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.MultiWriter(&stdout, &out), &out
	if err := cmd.Run(); err != nil {
		what := strings.Join(append([]string{name}, args...), " ")
		if len(what) > 200 {
			what = what[:200] + "..."
		}
		msg := strings.TrimSpace(out.String())
		if stdin != "" {
			msg += "\ninput:\n" + stdin
		}
		return nil, fmt.Errorf("%s: %v: %s", what, err, msg)
	}
	return stdout.Bytes(), nil
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
// that the run holds locked (flock) while it lives, and whose content is
// the run's record (runRecord). A run whose lock can be taken is dead,
// and the namespaces its record names, and that carry its marker, are
// swept.
type runLock struct {
	id  string
	f   *os.File
	rec runRecord
}

// runRecord is what a run writes, and syncs, before it creates any
// namespace: the names it will create and the token it marks each one
// with. A sweep removes a dead run's namespace only if the record names
// it and the namespace carries the token (docs/testbed.md, "Nothing
// outside the run is touched"): a name alone proves nothing, since
// anyone may call a namespace dtb-….
type runRecord struct {
	Run        string   `json:"run"`
	PID        int      `json:"pid"`
	Token      string   `json:"token"`
	Namespaces []string `json:"namespaces"`
}

// maxRecordBytes bounds a record read back: 32 peers' names are 2 KB.
const maxRecordBytes = 64 << 10

// marker is what a run sets as the alias of the loopback device of each
// namespace it creates (`ip link set lo alias`): the alias lives inside
// the namespace, dies with it, and survives the run's SIGKILL. The token
// is 128 bits of the operating system's randomness, in the record only,
// so no namespace made by anyone else carries it.
func (r runRecord) marker() string { return "detsim-testbed " + r.Run + " " + r.Token }

// withGlobalLock runs f while holding LockDir's own lock, which orders
// every sweep against every run's taking of its lock: a sweep never sees
// a starting run's namespaces without its lock and record.
func withGlobalLock(f func() error) error {
	if err := os.MkdirAll(LockDir, 0o700); err != nil {
		return fmt.Errorf("testbed: %w", err)
	}
	// The records decide what a sweep deletes, so only a directory no one
	// but this user can write holds them.
	var st unix.Stat_t
	if err := unix.Lstat(LockDir, &st); err != nil {
		return fmt.Errorf("testbed: %w", err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR || int(st.Uid) != os.Geteuid() || st.Mode&0o022 != 0 {
		return fmt.Errorf("testbed: %s is not a directory of this user's that only it can write (mode %o, owner %d): its run records cannot be trusted; remove it", LockDir, st.Mode, st.Uid)
	}
	g, err := os.OpenFile(filepath.Join(LockDir, "lock"), os.O_RDWR|os.O_CREATE|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return fmt.Errorf("testbed: %w", err)
	}
	defer g.Close()
	if err := unix.Flock(int(g.Fd()), unix.LOCK_EX); err != nil {
		return fmt.Errorf("testbed: locking %s: %w", g.Name(), err)
	}
	return f()
}

// claim sweeps what killed runs left, then takes a lock for a new run
// and writes its record, naming the namespace of each role, before the
// run creates any of them.
func claim(roles []string) (*runLock, Swept, error) {
	var l *runLock
	var swept Swept
	err := withGlobalLock(func() error {
		var err error
		if swept, err = sweepLocked(); err != nil {
			return err
		}
		id := newRunID()
		var token [16]byte
		rand.Read(token[:])
		rec := runRecord{Run: id, PID: os.Getpid(), Token: hex.EncodeToString(token[:])}
		for _, role := range roles {
			rec.Namespaces = append(rec.Namespaces, nsName(id, role))
		}
		data, err := json.Marshal(rec)
		if err != nil {
			return err
		}
		f, err := os.OpenFile(filepath.Join(LockDir, id+".lock"), os.O_RDWR|os.O_CREATE|os.O_EXCL|unix.O_NOFOLLOW, 0o600)
		if err != nil {
			return fmt.Errorf("testbed: %w", err)
		}
		if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
			f.Close()
			return fmt.Errorf("testbed: locking %s: %w", f.Name(), err)
		}
		if _, err = f.Write(append(data, '\n')); err == nil {
			err = f.Sync()
		}
		if err == nil {
			err = syncDir(LockDir)
		}
		if err != nil {
			os.Remove(f.Name())
			f.Close()
			return fmt.Errorf("testbed: writing the run's record: %w", err)
		}
		l = &runLock{id: id, f: f, rec: rec}
		return nil
	})
	return l, swept, err
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// create makes namespace ns, one of the record's, and marks it. It
// reports whether it made ns: `ip netns add` refuses a name that exists,
// so a namespace it did not make is never reported, and never removed
// by the run. A namespace made but not yet marked (the run killed in
// between) is one a sweep leaves, and reports.
func (l *runLock) create(ns string) (bool, error) {
	if err := command("", "ip", "netns", "add", ns); err != nil {
		return false, err
	}
	return true, command("", "ip", "-n", ns, "link", "set", "lo", "alias", l.rec.marker())
}

// release ends the run's claim. keep says whether the record stays for
// the next sweep: when some namespace of the run's could not be removed.
func (l *runLock) release(keep bool) {
	if !keep {
		os.Remove(l.f.Name())
	}
	l.f.Close()
}

// Swept is what a sweep did.
type Swept struct {
	// Removed names the dead runs' namespaces it removed, with the
	// processes inside them.
	Removed []string
	// Left are namespaces named like a testbed run's that it did not
	// touch, because no dead run's record and marker show detsim made
	// them.
	Left []Left
}

// Left is a namespace a sweep left alone, as not detsim's, and why.
type Left struct{ Name, Why string }

// Sweep removes every namespace a dead testbed run left (a run killed
// with SIGKILL cannot remove its own), killing the processes still in
// them. A namespace is a dead run's only if the run's record names it and
// it carries the run's marker; a running run's namespaces, and any
// namespace named dtb-… that is not a dead run's, are never touched, and
// the latter are reported in Left.
func Sweep() (Swept, error) {
	var swept Swept
	err := withGlobalLock(func() error {
		var err error
		swept, err = sweepLocked()
		return err
	})
	return swept, err
}

// sweepLocked is Sweep under the global lock.
func sweepLocked() (Swept, error) {
	var out Swept
	entries, err := os.ReadDir(netnsDir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return out, fmt.Errorf("testbed: listing %s: %w", netnsDir, err)
	}
	exists := map[string]bool{}
	var named []string // every namespace named like a run's, in order
	for _, e := range entries {
		if tbnet.ValidName(e.Name()) {
			exists[e.Name()] = true
			named = append(named, e.Name())
		}
	}
	locks, err := os.ReadDir(LockDir)
	if err != nil {
		return out, fmt.Errorf("testbed: %w", err)
	}
	accounted := map[string]bool{} // a live run's, or decided on below
	var live []string              // live runs' name prefixes
	for _, e := range locks {
		id, ok := strings.CutSuffix(e.Name(), ".lock")
		if !ok {
			continue
		}
		path := filepath.Join(LockDir, e.Name())
		f, err := os.OpenFile(path, os.O_RDWR|unix.O_NOFOLLOW, 0)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				continue // released meanwhile
			}
			return out, fmt.Errorf("testbed: %w", err)
		}
		if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil {
			f.Close() // held: the run is alive, and all its names are its
			live = append(live, tbnet.Prefix+id+"-")
			continue
		}
		rec, _ := readRecord(f, id) // a record that cannot be read names nothing
		for _, ns := range rec.Namespaces {
			accounted[ns] = true
			if !exists[ns] {
				continue // never made, or removed by the run
			}
			if got, err := markerOf(ns); err != nil || got != rec.marker() {
				out.Left = append(out.Left, Left{ns, fmt.Sprintf("dead run %s's record names it, but it does not carry the run's marker", id)})
				continue
			}
			if err := removeNamespaces([]string{ns}); err != nil {
				f.Close() // the record stays: the next sweep tries again
				return out, err
			}
			out.Removed = append(out.Removed, ns)
		}
		os.Remove(path)
		f.Close()
	}
	for _, ns := range named {
		if accounted[ns] || slices.ContainsFunc(live, func(p string) bool { return strings.HasPrefix(ns, p) }) {
			continue
		}
		if _, err := os.Lstat(filepath.Join(netnsDir, ns)); err != nil {
			continue // a run that ended meanwhile removed it
		}
		out.Left = append(out.Left, Left{ns, "no testbed run's record names it"})
	}
	return out, nil
}

// readRecord reads run id's record from its lock file. Only names of
// the run's own (dtb-<id>-…) count: a record names nothing else.
func readRecord(f *os.File, id string) (runRecord, error) {
	data, err := safefile.Read(f, f.Name(), maxRecordBytes)
	if err != nil {
		return runRecord{}, err
	}
	var rec runRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		return runRecord{}, err
	}
	if rec.Run != id || len(rec.Token) < 32 {
		return runRecord{}, fmt.Errorf("%s: not run %s's record", f.Name(), id)
	}
	var own []string
	for _, ns := range rec.Namespaces {
		if tbnet.ValidName(ns) && strings.HasPrefix(ns, tbnet.Prefix+id+"-") {
			own = append(own, ns)
		}
	}
	rec.Namespaces = own
	return rec, nil
}

// markerOf reads the alias of namespace ns's loopback device.
func markerOf(ns string) (string, error) {
	out, err := commandOutput("ip", "-j", "-n", ns, "link", "show", "dev", "lo")
	if err != nil {
		return "", err
	}
	var links []struct {
		Alias string `json:"ifalias"`
	}
	if err := json.Unmarshal(out, &links); err != nil || len(links) != 1 {
		return "", fmt.Errorf("ip -j -n %s link show dev lo: unexpected output %q", ns, out)
	}
	return links[0].Alias, nil
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
