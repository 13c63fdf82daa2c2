package testbed

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/detsim/detsim/internal/realtime"
)

// needKernel skips a test that builds namespaces where it cannot, and
// fails it instead under CI=true, where .ci/run installs what it needs.
// Under -short (.ci/quick) it skips: these tests run in real time, and a
// quick check leaves the machine's namespaces alone.
func needKernel(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: builds network namespaces and runs in real time")
	}
	if err := Preflight(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%v (CI runs as root with iproute2 and nftables installed by .ci/run)", err)
		}
		t.Skipf("%v", err)
	}
}

// namespaces lists the names under /run/netns starting with prefix.
func namespaces(t *testing.T, prefix string) []string {
	t.Helper()
	entries, err := os.ReadDir(netnsDir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), prefix) {
			out = append(out, e.Name())
		}
	}
	return out
}

// foreignNamespace makes namespace name as someone other than detsim
// would (plain `ip netns add`), and removes it when the test ends.
func foreignNamespace(t *testing.T, name string) {
	t.Helper()
	if err := command("", "ip", "netns", "add", name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { removeNamespaces(namespaces(t, name)) })
}

// sleepIn starts a process inside namespace ns, waits until it is in
// there, and returns a channel that receives its exit. The process is
// killed when the test ends.
func sleepIn(t *testing.T, ns string) <-chan error {
	t.Helper()
	sleeper := exec.Command("ip", "netns", "exec", ns, "sleep", "600")
	var stderr strings.Builder
	sleeper.Stderr = &stderr
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	done := make(chan struct{})
	go func() { err := sleeper.Wait(); close(done); exited <- err }()
	t.Cleanup(func() { sleeper.Process.Kill() })
	realtime.WaitFor(t, "the process to enter namespace "+ns, 10*time.Second, func() bool {
		select {
		case <-done:
			t.Fatalf("ip netns exec %s sleep: exited: %s", ns, stderr.String())
		default:
		}
		return slices.Contains(namespacePids(ns), sleeper.Process.Pid) // ip has exec'd into it
	})
	return exited
}

// killedRun claims a run and makes the namespaces of roles as Build
// does (recorded, then each made and marked), then lets go of its lock
// without removing anything, as a run killed with SIGKILL does.
func killedRun(t *testing.T, roles ...string) *runLock {
	t.Helper()
	l, _, err := claim(roles)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, ns := range l.rec.Namespaces {
			removeNamespaces(namespaces(t, ns))
		}
		os.Remove(l.f.Name())
	})
	for _, ns := range l.rec.Namespaces {
		if _, err := l.create(ns); err != nil {
			l.f.Close()
			t.Fatal(err)
		}
	}
	l.f.Close() // the kernel drops the flock of a killed process
	return l
}

func leftNames(left []Left) []string {
	var out []string
	for _, l := range left {
		out = append(out, l.Name)
	}
	return out
}

// TestSweep_RemovesKilledRunsKeepsLiveOnes: a killed run's namespaces
// (its record names them, they carry its marker, its lock is free) are
// removed, with the processes inside them, and so is its record; a run
// that holds its lock keeps its namespaces; nothing else is touched.
func TestSweep_RemovesKilledRunsKeepsLiveOnes(t *testing.T) {
	needKernel(t)
	live, _, err := claim([]string{"p0"})
	if err != nil {
		t.Fatal(err)
	}
	liveNS := live.rec.Namespaces[0]
	t.Cleanup(func() {
		removeNamespaces(namespaces(t, liveNS))
		live.release(false)
	})
	if _, err := live.create(liveNS); err != nil {
		t.Fatal(err)
	}
	dead := killedRun(t, "r", "p0") // after the live run's claim, whose sweep would take it
	deadNS := dead.rec.Namespaces
	other := "detsimtest-not-ours-" + newRunID()
	foreignNamespace(t, other)
	// A process left inside the dead run's namespace, as a daemon whose
	// supervisor was killed would be.
	exited := sleepIn(t, deadNS[1])

	swept, err := Sweep()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(swept.Removed, deadNS) {
		t.Errorf("removed %v; want %v", swept.Removed, deadNS)
	}
	if slices.Contains(leftNames(swept.Left), liveNS) {
		t.Errorf("the live run's namespace reported as not ours: %v", swept.Left)
	}
	for _, ns := range deadNS {
		if got := namespaces(t, ns); len(got) != 0 {
			t.Errorf("the dead run's namespace is still there: %v", got)
		}
	}
	if got := namespaces(t, liveNS); len(got) != 1 {
		t.Errorf("the live run's namespace is gone")
	}
	if got := namespaces(t, other); len(got) != 1 {
		t.Errorf("a namespace not named as a testbed run's was touched")
	}
	select {
	case err := <-exited:
		if err == nil {
			t.Errorf("the process in the dead run's namespace exited by itself")
		}
	case <-time.After(realtime.Scaled(10 * time.Second)):
		t.Errorf("the process in the dead run's namespace was not killed")
	}
	if _, err := os.Stat(dead.f.Name()); !os.IsNotExist(err) {
		t.Errorf("the dead run's record: %v, want it removed", err)
	}
	if _, err := os.Stat(filepath.Join(LockDir, live.id+".lock")); err != nil {
		t.Errorf("the live run's lock: %v", err)
	}
}

// TestSweep_LeavesNamespacesItDidNotMake (issue 28): a namespace someone
// else named like a testbed run's, with a process inside, is never
// removed by its name: neither by a sweep nor by a run's start (which
// sweeps first), nor by that run's end; both report it.
func TestSweep_LeavesNamespacesItDidNotMake(t *testing.T) {
	needKernel(t)
	// One named as no run would be, one exactly as a run's peer is.
	foreign := []string{"dtb-foo-" + newRunID(), nsName(newRunID(), "p0")}
	var exited []<-chan error
	for _, ns := range foreign {
		foreignNamespace(t, ns)
		exited = append(exited, sleepIn(t, ns))
	}
	stillThere := func(when string) {
		t.Helper()
		for i, ns := range foreign {
			if got := namespaces(t, ns); len(got) != 1 {
				t.Errorf("%s: namespace %s, not detsim's, was removed", when, ns)
			}
			select {
			case err := <-exited[i]:
				t.Errorf("%s: the process in %s, not detsim's, ended: %v", when, ns, err)
			default:
			}
		}
	}

	swept, err := Sweep()
	if err != nil {
		t.Fatal(err)
	}
	stillThere("after a sweep")
	for _, ns := range foreign {
		if slices.Contains(swept.Removed, ns) || !slices.Contains(leftNames(swept.Left), ns) {
			t.Errorf("sweep: removed %v, left %v; want %s left and reported", swept.Removed, swept.Left, ns)
		}
	}

	plan, err := NewPlan(loadText(t, twoPeers), ImplSwimd)
	if err != nil {
		t.Fatal(err)
	}
	n, err := Build(plan)
	if err != nil {
		t.Fatal(err)
	}
	closeErr := n.Close()
	if closeErr != nil {
		t.Error(closeErr)
	}
	stillThere("after a run's start and end")
	for _, ns := range foreign {
		if slices.Contains(n.Swept.Removed, ns) || !slices.Contains(leftNames(n.Swept.Left), ns) {
			t.Errorf("a run's start: removed %v, left %v; want %s left and reported", n.Swept.Removed, n.Swept.Left, ns)
		}
	}
	for _, ns := range append([]string{n.Router}, n.Peers...) {
		if got := namespaces(t, ns); len(got) != 0 {
			t.Errorf("the run's own namespace %s is left after Close", ns)
		}
	}
}

// TestSweep_LeavesARecordedNamespaceWithoutTheRunsMarker: a dead run's
// record names two namespaces that are not the run's: one carries a
// marker with another token, one none (as when the run was killed after
// writing its record, before making the name someone else then took).
// The sweep removes neither, kills nothing, reports both, and drops the
// dead run's record.
func TestSweep_LeavesARecordedNamespaceWithoutTheRunsMarker(t *testing.T) {
	needKernel(t)
	l, _, err := claim([]string{"p0", "p1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(l.f.Name()) })
	forged, bare := l.rec.Namespaces[0], l.rec.Namespaces[1]
	foreignNamespace(t, forged)
	foreignNamespace(t, bare)
	other := l.rec
	other.Token = strings.Repeat("0", len(other.Token))
	if err := command("", "ip", "-n", forged, "link", "set", "lo", "alias", other.marker()); err != nil {
		t.Fatal(err)
	}
	exited := sleepIn(t, forged)
	l.f.Close() // the run is dead

	swept, err := Sweep()
	if err != nil {
		t.Fatal(err)
	}
	if len(swept.Removed) != 0 {
		t.Errorf("removed %v", swept.Removed)
	}
	for _, ns := range []string{forged, bare} {
		if got := namespaces(t, ns); len(got) != 1 {
			t.Errorf("namespace %s, without the run's marker, was removed", ns)
		}
		if !slices.Contains(leftNames(swept.Left), ns) {
			t.Errorf("left %v: %s not reported", swept.Left, ns)
		}
	}
	select {
	case err := <-exited:
		t.Errorf("the process in %s ended: %v", forged, err)
	default:
	}
	if _, err := os.Stat(l.f.Name()); !os.IsNotExist(err) {
		t.Errorf("the dead run's record: %v, want it removed", err)
	}
}

// twoPeers is the smallest scenario a testbed run builds a network for.
var twoPeers = twoSwimPeers("two", "1_000_000_000", "latency_ns = 1_000_000\nbandwidth_bps = 1_000_000\nburst_bytes = 1564")
