package testbed

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// needKernel skips a test that builds namespaces where it cannot, and
// fails it instead under CI=true, where .ci/run installs what it needs.
func needKernel(t *testing.T) {
	t.Helper()
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

// TestSweep_RemovesDeadRunsKeepsLiveOnes: namespaces whose run holds no
// lock (it was killed) are removed, with the processes inside them; a run
// that holds its lock keeps its namespaces; nothing else is touched.
func TestSweep_RemovesDeadRunsKeepsLiveOnes(t *testing.T) {
	needKernel(t)
	dead := nsName(newRunID(), "p0")
	live, _, err := claim()
	if err != nil {
		t.Fatal(err)
	}
	liveNS := nsName(live.id, "p0")
	other := "detsimtest-not-ours-" + newRunID()
	for _, ns := range []string{dead, liveNS, other} {
		if err := command("", "ip", "netns", "add", ns); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		removeNamespaces(namespaces(t, liveNS))
		removeNamespaces(namespaces(t, other))
		removeNamespaces(namespaces(t, dead))
		live.release()
	})
	// A process left inside the dead run's namespace, as a daemon whose
	// supervisor was killed would be.
	sleeper := exec.Command("ip", "netns", "exec", dead, "sleep", "600")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- sleeper.Wait() }()
	deadline := time.Now().Add(10 * time.Second)
	for !slices.Contains(namespacePids(dead), sleeper.Process.Pid) { // ip has entered it
		if time.Now().After(deadline) {
			sleeper.Process.Kill()
			t.Fatal("the process never entered the namespace")
		}
		time.Sleep(5 * time.Millisecond)
	}

	swept, err := Sweep()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(swept, dead) || slices.Contains(swept, liveNS) || slices.Contains(swept, other) {
		t.Errorf("swept %v; want %s and neither %s nor %s", swept, dead, liveNS, other)
	}
	if got := namespaces(t, dead); len(got) != 0 {
		t.Errorf("the dead run's namespace is still there: %v", got)
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
	case <-time.After(10 * time.Second):
		sleeper.Process.Kill()
		t.Errorf("the process in the dead run's namespace was not killed")
	}
	if _, err := os.Stat(filepath.Join(LockDir, live.id+".lock")); err != nil {
		t.Errorf("the live run's lock: %v", err)
	}
}
