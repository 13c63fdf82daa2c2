package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/internal/gobin"
	"github.com/detsim/detsim/internal/realtime"
	"github.com/detsim/detsim/kinds/swim/testbed"
)

// testbedScenario is a small scenario the testbed realises, running for
// seconds real seconds.
func testbedScenario(t *testing.T, seconds int, extra string) string {
	t.Helper()
	text := "name = \"tb\"\nseed = 1\nduration_ns = " + strconv.Itoa(seconds) + "_000_000_000\n" +
		"[default_tick]\nperiod_ns = 100_000_000\n[default_link]\nlatency_ns = 5_000_000\nbandwidth_bps = 1_000_000\nburst_bytes = 1564\n" +
		"[[peers]]\nid = \"a\"\nkind = \"swim\"\ninitial_state = \"member\"\n" +
		"[[peers]]\nid = \"b\"\nkind = \"swim\"\ninitial_state = \"member\"\n" + extra
	path := filepath.Join(t.TempDir(), "tb.toml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// testbedNamespaces is the set of testbed namespaces that exist now.
func testbedNamespaces(t *testing.T) map[string]bool {
	t.Helper()
	entries, err := os.ReadDir("/run/netns")
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "dtb-") {
			out[e.Name()] = true
		}
	}
	return out
}

func newSince(before, now map[string]bool) []string {
	var out []string
	for ns := range now {
		if !before[ns] {
			out = append(out, ns)
		}
	}
	return out
}

// TestTestbed_RefusesBeforeAnyNamespace: a scenario the testbed cannot
// realise is exit 2 naming the field, and nothing is made; so is a
// machine without the tools.
func TestTestbed_RefusesBeforeAnyNamespace(t *testing.T) {
	before := testbedNamespaces(t)
	sc := testbedScenario(t, 5, "[[links]]\nfrom = \"a\"\nto = \"b\"\ncold_dial_penalty_ns = 1\n[[links]]\nfrom = \"b\"\nto = \"a\"\n")
	r := detsim(t, "testbed", sc, "--daemon", "/bin/true")
	if r.code != exitUsage || !strings.Contains(r.stderr, "links[a→b].cold_dial_penalty_ns") {
		t.Errorf("exit %d, stderr %q; want 2 naming links[a→b].cold_dial_penalty_ns", r.code, r.stderr)
	}
	cmd := exec.Command(detsimBinary(t), "testbed", testbedScenario(t, 5, ""), "--daemon", "/bin/true")
	cmd.Env = append(os.Environ(), "PATH=/nonexistent")
	out, err := cmd.CombinedOutput()
	if code := exitCode(err); code != exitUsage || !strings.Contains(string(out), "the nft command (Debian package nftables)") {
		t.Errorf("without ip/tc/nft: exit %d, %q", code, out)
	}
	if left := newSince(before, testbedNamespaces(t)); len(left) > 0 {
		t.Errorf("namespaces made: %v", left)
	}
}

// TestTestbed_SignalsLeaveNothing: Ctrl-C ends a testbed run with exit
// 130, a bundle marked interrupted and nothing of the network left; after
// a SIGKILL, which no code of detsim's survives, the daemons die with it
// and the next run (here --sweep) removes the namespaces.
func TestTestbed_SignalsLeaveNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds network namespaces and runs in real time")
	}
	if err := testbed.Preflight(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	swimd := gobin.Build(t, "../kinds/swim/cmd/swimd")
	sc := testbedScenario(t, 60, "")
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			before := testbedNamespaces(t)
			out := filepath.Join(t.TempDir(), "b")
			cmd := exec.Command(detsimBinary(t), "testbed", sc, "--daemon", swimd, "--out", out)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
			// Wait until both daemons run inside the run's namespaces.
			var made []string
			deadline := time.Now().Add(realtime.Scaled(20 * time.Second))
			for {
				made = newSince(before, testbedNamespaces(t))
				if daemonsIn(made) >= 2 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("no daemons running after %v (namespaces %v)", realtime.Scaled(20*time.Second), made)
				}
				time.Sleep(20 * time.Millisecond)
			}
			cmd.Process.Signal(sig)
			code := exitCode(cmd.Wait())
			if sig == syscall.SIGKILL {
				deadline := time.Now().Add(realtime.Scaled(10 * time.Second))
				for daemonsIn(made) > 0 {
					if time.Now().After(deadline) {
						t.Fatal("the daemons outlived their killed supervisor")
					}
					time.Sleep(20 * time.Millisecond)
				}
				if r := detsim(t, "testbed", "--sweep"); r.code != 0 {
					t.Fatalf("--sweep: exit %d\n%s", r.code, r.stderr)
				}
			} else {
				if code != exitInterrupted {
					t.Errorf("exit %d, want %d", code, exitInterrupted)
				}
				m, err := bundle.ReadManifest(out)
				if err != nil || m.Interrupted == "" || m.Mode != bundle.ModeTestbed {
					t.Errorf("bundle after Ctrl-C: %+v %v", m, err)
				}
			}
			if left := newSince(before, testbedNamespaces(t)); len(left) > 0 {
				t.Errorf("namespaces left: %v", left)
			}
		})
	}
}

// daemonsIn counts the processes inside the named namespaces.
func daemonsIn(names []string) int {
	n := 0
	for _, ns := range names {
		out, err := exec.Command("ip", "netns", "pids", ns).Output()
		if err == nil {
			n += len(strings.Fields(string(out)))
		}
	}
	return n
}
