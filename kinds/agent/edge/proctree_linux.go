package edge

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// procTree is one run's process tree (proctree.go).
type procTree struct {
	via    string   // "cgroup" or "subreaper"
	dir    string   // cgroup: the run's cgroup
	f      *os.File // cgroup: dir, for SysProcAttr.CgroupFD
	marker string   // subreaper: NAME=VALUE in the command's environment
	cmd    *exec.Cmd
	pid    int // the command, once started
}

// toolRunEnv is the subreaper marker's name.
const toolRunEnv = "DETSIM_TOOL_RUN"

var trees struct {
	once   sync.Once
	parent string // the detsim-owned parent cgroup; "" when cgroups are not usable
	seq    atomic.Int64
	broken atomic.Bool // a command could not be cloned into its cgroup

	reaper sync.Once
	mu     sync.Mutex   // held across a start and its registration, and while reaping orphans
	mains  map[int]bool // commands started and not yet waited for: os/exec reaps those
}

// cgroupsOff makes every tree a subreaper one (tests of the fallback).
var cgroupsOff atomic.Bool

// runCgroup is the name of a run's cgroup: the edge's pid, then a count.
var runCgroup = regexp.MustCompile(`^run-([0-9]+)-[0-9]+$`)

// newProcTree returns the tree of a command about to start.
func newProcTree() *procTree {
	trees.once.Do(setupCgroups)
	for range 3 {
		if trees.parent == "" || cgroupsOff.Load() || trees.broken.Load() {
			break
		}
		dir := filepath.Join(trees.parent, fmt.Sprintf("run-%d-%d", os.Getpid(), trees.seq.Add(1)))
		if err := os.Mkdir(dir, 0o755); err != nil {
			if errors.Is(err, fs.ErrExist) {
				continue // a previous edge of this pid left it, and it is not empty yet
			}
			break
		}
		f, err := os.Open(dir)
		if err != nil {
			_ = os.Remove(dir)
			break
		}
		return &procTree{via: "cgroup", dir: dir, f: f}
	}
	return subreaperTree()
}

func subreaperTree() *procTree {
	trees.reaper.Do(func() { _ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) })
	return &procTree{via: "subreaper", marker: fmt.Sprintf("%s=%d.%d", toolRunEnv, os.Getpid(), trees.seq.Add(1))}
}

// setupCgroups finds the cgroup v2 hierarchy and makes the parent there,
// removing the empty run cgroups a crashed edge left.
func setupCgroups() {
	mount := cgroup2Mount()
	own := ownCgroup()
	if mount == "" || own == "" {
		return
	}
	parent := filepath.Join(mount, own, "detsim-tools")
	if err := os.Mkdir(parent, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return
	}
	// cgroup.kill is Linux 5.14; a parent without it has children without it.
	if _, err := os.Stat(filepath.Join(parent, "cgroup.kill")); err != nil {
		return
	}
	trees.parent = parent
	sweepCgroups(parent)
}

// sweepCgroups removes the run cgroups under parent that an edge no
// longer running made and whose processes are gone.
func sweepCgroups(parent string) {
	ents, _ := os.ReadDir(parent)
	for _, ent := range ents {
		m := runCgroup.FindStringSubmatch(ent.Name())
		if !ent.IsDir() || m == nil {
			continue
		}
		if pid, _ := strconv.Atoi(m[1]); pid != os.Getpid() {
			if _, err := os.Stat("/proc/" + m[1]); err == nil {
				continue // its edge may still be running
			}
		}
		dir := filepath.Join(parent, ent.Name())
		if !populated(dir) {
			_ = rmCgroup(dir, time.Now())
		}
	}
}

// cgroup2Mount is where the cgroup v2 hierarchy is mounted:
// /sys/fs/cgroup, or on a hybrid host /sys/fs/cgroup/unified.
func cgroup2Mount() string {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	var found []string
	for line := range strings.Lines(string(b)) {
		pre, post, ok := strings.Cut(line, " - ")
		f := strings.Fields(pre)
		if ok && len(f) >= 5 && strings.HasPrefix(post, "cgroup2 ") {
			found = append(found, f[4])
		}
	}
	if slices.Contains(found, "/sys/fs/cgroup") {
		return "/sys/fs/cgroup"
	}
	if len(found) > 0 {
		return found[0]
	}
	return ""
}

// ownCgroup is the edge's own cgroup v2 path.
func ownCgroup() string {
	b, _ := os.ReadFile("/proc/self/cgroup")
	for line := range strings.Lines(string(b)) {
		if p, ok := strings.CutPrefix(strings.TrimSpace(line), "0::"); ok && strings.HasPrefix(p, "/") {
			return p
		}
	}
	return ""
}

// startInTree starts the command build returns in a tree of its own. A
// command that cannot be cloned into its cgroup (one the edge may make
// but not move a process into) is started again in the fallback, which
// then serves every later run.
func startInTree(build func() *exec.Cmd) (*exec.Cmd, *procTree, error) {
	t := newProcTree()
	cmd := build()
	t.prepare(cmd)
	err := t.start(cmd)
	if err != nil && t.via == "cgroup" {
		t.release()
		t, cmd = subreaperTree(), build()
		t.prepare(cmd)
		if err = t.start(cmd); err == nil {
			trees.broken.Store(true)
		}
	}
	if err != nil {
		t.release()
		return nil, nil, err
	}
	return cmd, t, nil
}

// prepare sets cmd up to start in the tree.
func (t *procTree) prepare(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if t.via == "cgroup" {
		cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, int(t.f.Fd())
		return
	}
	cmd.Env = append(cmd.Environ(), t.marker)
}

// start starts cmd, registered so no orphan reaping takes its status
// from os/exec.
func (t *procTree) start(cmd *exec.Cmd) error {
	trees.mu.Lock()
	defer trees.mu.Unlock()
	if err := cmd.Start(); err != nil {
		return err
	}
	t.cmd, t.pid = cmd, cmd.Process.Pid
	if trees.mains == nil {
		trees.mains = map[int]bool{}
	}
	trees.mains[t.pid] = true
	return nil
}

// exited is closed when the command has exited, before it is reaped:
// its descendants are still there to see.
func (t *procTree) exited() <-chan struct{} {
	c := make(chan struct{})
	go func() {
		var info unix.Siginfo
		for unix.Waitid(unix.P_PID, t.pid, &info, unix.WEXITED|unix.WNOWAIT, nil) == unix.EINTR {
		}
		close(c)
	}()
	return c
}

// wait waits for the command (os/exec's Wait), once it has exited.
func (t *procTree) wait() error { return t.cmd.Wait() }

// alive is the tree's live processes other than the command, in pid
// order.
func (t *procTree) alive() []int {
	var pids []int
	for _, p := range t.members() {
		if p.pid != t.pid && p.state != 'Z' {
			pids = append(pids, p.pid)
		}
	}
	return pids
}

// members is the tree's processes, as /proc shows them now.
func (t *procTree) members() []proc {
	if t.via == "cgroup" {
		var out []proc
		_ = filepath.WalkDir(t.dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return nil
			}
			b, _ := os.ReadFile(filepath.Join(path, "cgroup.procs"))
			for f := range strings.FieldsSeq(string(b)) {
				pid, _ := strconv.Atoi(f)
				if p, ok := readProc(pid); ok {
					out = append(out, p)
				}
			}
			return nil
		})
		slices.SortFunc(out, func(a, b proc) int { return a.pid - b.pid })
		return out
	}
	all := procs()
	self := os.Getpid()
	in := map[int]bool{}
	trees.mu.Lock()
	for _, p := range all {
		switch {
		case p.pid == t.pid, p.pgid == t.pid:
			in[p.pid] = true
		case p.pid == self || p.pid == 1 || trees.mains[p.pid]:
		default:
			env, _ := os.ReadFile("/proc/" + strconv.Itoa(p.pid) + "/environ")
			env = append(append([]byte{0}, env...), 0)
			mine := bytes.Contains(env, []byte("\x00"+t.marker+"\x00"))
			// An orphan of the edge that cleared its environment came
			// from some run: the run ending now ends it.
			unmarked := p.ppid == self && !bytes.Contains(env, []byte("\x00"+toolRunEnv+"="))
			in[p.pid] = mine || unmarked
		}
	}
	trees.mu.Unlock()
	for grew := true; grew; { // and everything below them
		grew = false
		for _, p := range all {
			if !in[p.pid] && in[p.ppid] && p.ppid != self {
				in[p.pid], grew = true, true
			}
		}
	}
	var out []proc
	for _, p := range all {
		if in[p.pid] {
			out = append(out, p)
		}
	}
	return out
}

// kill ends every process of the tree, the command included, and waits
// (up to a bound) until they are gone.
func (t *procTree) kill() {
	deadline := time.Now().Add(10 * time.Second)
	if t.via == "cgroup" {
		if err := os.WriteFile(filepath.Join(t.dir, "cgroup.kill"), []byte("1"), 0); err != nil {
			_ = syscall.Kill(-t.pid, syscall.SIGKILL)
		}
		for d := time.Millisecond; populated(t.dir) && time.Now().Before(deadline); d = min(2*d, 50*time.Millisecond) {
			time.Sleep(d)
		}
		return
	}
	_ = syscall.Kill(-t.pid, syscall.SIGKILL)
	_ = syscall.Kill(t.pid, syscall.SIGKILL) // a command that left its own group
	for time.Now().Before(deadline) {
		var fds []int
		for _, p := range t.members() {
			if p.state == 'Z' {
				continue
			}
			// Through a pidfd, checked to be the process listed: a pid
			// reused in between is not killed.
			fd, err := unix.PidfdOpen(p.pid, 0)
			if err != nil {
				continue
			}
			if q, ok := readProc(p.pid); ok && q.start == p.start {
				_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
				fds = append(fds, fd)
			} else {
				unix.Close(fd)
			}
		}
		if len(fds) == 0 {
			break
		}
		for _, fd := range fds {
			pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
			_, _ = unix.Poll(pfd, int(max(time.Until(deadline), 0)/time.Millisecond))
			unix.Close(fd)
		}
		reapOrphans()
	}
	reapOrphans()
}

// reapOrphans waits for the edge's exited children that os/exec does not
// wait for: the tools' orphans, reparented to the edge as subreaper.
func reapOrphans() {
	self := os.Getpid()
	trees.mu.Lock()
	defer trees.mu.Unlock()
	for _, p := range procs() {
		if p.ppid == self && p.state == 'Z' && !trees.mains[p.pid] {
			var ws unix.WaitStatus
			_, _ = unix.Wait4(p.pid, &ws, unix.WNOHANG, nil)
		}
	}
}

// release removes the run's cgroup, once its command has been waited for.
func (t *procTree) release() {
	trees.mu.Lock()
	delete(trees.mains, t.pid)
	trees.mu.Unlock()
	if t.via != "cgroup" {
		reapOrphans()
		return
	}
	t.f.Close()
	_ = rmCgroup(t.dir, time.Now().Add(10*time.Second))
}

// populated reports whether a cgroup or one below it has a process.
func populated(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.events"))
	return err == nil && !bytes.Contains(b, []byte("populated 0"))
}

// rmCgroup removes the cgroup dir and those a tool made below it,
// retrying while the kernel still counts processes just killed, until
// deadline.
func rmCgroup(dir string, deadline time.Time) error {
	ents, _ := os.ReadDir(dir)
	for _, ent := range ents {
		if ent.IsDir() {
			_ = rmCgroup(filepath.Join(dir, ent.Name()), deadline)
		}
	}
	for d := time.Millisecond; ; d = min(2*d, 50*time.Millisecond) {
		err := unix.Rmdir(dir)
		if err != unix.EBUSY || !time.Now().Before(deadline) {
			return err
		}
		time.Sleep(d)
	}
}

// proc is one process, from /proc/PID/stat.
type proc struct {
	pid, ppid, pgid int
	state           byte
	start           uint64 // clock ticks after boot: with pid, names the process
}

func procs() []proc {
	ents, _ := os.ReadDir("/proc")
	var out []proc
	for _, ent := range ents {
		if pid, err := strconv.Atoi(ent.Name()); err == nil {
			if p, ok := readProc(pid); ok {
				out = append(out, p)
			}
		}
	}
	return out
}

func readProc(pid int) (proc, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	i := bytes.LastIndexByte(b, ')')
	if err != nil || i < 0 {
		return proc{}, false
	}
	// After the command's name: state ppid pgrp session tty_nr tpgid
	// flags minflt cminflt majflt cmajflt utime stime cutime cstime
	// priority nice num_threads itrealvalue starttime.
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 || len(f[0]) != 1 {
		return proc{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	pgid, _ := strconv.Atoi(f[2])
	start, _ := strconv.ParseUint(f[19], 10, 64)
	return proc{pid: pid, ppid: ppid, pgid: pgid, state: f[0][0], start: start}, true
}

// commandLine is pid's command line, for a record: at most 200 bytes;
// its name in brackets while it has none (in the middle of an exec).
func commandLine(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	s := strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
	if s == "" {
		comm, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
		s = "[" + strings.TrimSpace(string(comm)) + "]"
	}
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}
