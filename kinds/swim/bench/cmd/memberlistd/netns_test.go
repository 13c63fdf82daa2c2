package main

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/detsim/detsim/internal/gobin"
	"github.com/detsim/detsim/internal/realtime"
	"github.com/detsim/detsim/kinds/swim/testbed/tbnet"
)

// ip runs ip(8) with args and fails the test on an error.
func ip(t *testing.T, args ...string) {
	t.Helper()
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// Two daemons, each in a network namespace of its own joined by a veth
// pair (MTU 1500) on the testbed's addresses, as the kernel testbed runs
// them: both start with --netns, converge, and stop on SIGTERM. A
// daemon told the other's namespace refuses to start. Everything made
// here is in the two namespaces this test creates, and they are always
// removed.
func TestNetns_TwoDaemonsConverge(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: creates network namespaces")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("needs ip(8) (iproute2)")
	}
	run := make([]byte, 4)
	rand.Read(run)
	ns := []string{
		fmt.Sprintf("%smltest%s-p0", tbnet.Prefix, hex.EncodeToString(run)),
		fmt.Sprintf("%smltest%s-p1", tbnet.Prefix, hex.EncodeToString(run)),
	}
	for _, n := range ns {
		ip(t, "netns", "add", n)
		t.Cleanup(func() {
			if out, err := exec.Command("ip", "netns", "del", n).CombinedOutput(); err != nil {
				t.Errorf("removing namespace %s: %v %s", n, err, out)
			}
		})
	}
	// The pair is made inside the two namespaces: no link of this
	// machine's own namespace is touched, and removing them removes it.
	ip(t, "link", "add", "v0", "netns", ns[0], "mtu", "1500", "type", "veth", "peer", "name", "v1", "netns", ns[1], "mtu", "1500")
	var addrs, book []string
	for i, n := range ns {
		a := tbnet.PeerAddr(i)
		ip(t, "-n", n, "addr", "add", a.String()+"/16", "dev", fmt.Sprintf("v%d", i))
		ip(t, "-n", n, "link", "set", fmt.Sprintf("v%d", i), "up")
		ip(t, "-n", n, "link", "set", "lo", "up")
		addrs = append(addrs, a.String()+":7946")
		book = append(book, fmt.Sprintf("p%d=%s", i, addrs[i]))
	}
	peers := strings.Join(book, ",")

	// Outside the namespace it names, or in another one, a daemon may not
	// use a testbed address.
	code, msg := runQuiet(t, "--id", "p0", "--bind", addrs[0], "--netns", ns[0])
	if code != 2 || !strings.Contains(msg, "does not run inside it") {
		t.Errorf("--netns from outside it: exit %d %q", code, msg)
	}
	dir := t.TempDir()
	cross := exec.Command("ip", "netns", "exec", ns[1], gobin.Build(t, "."), "--id", "p0", "--bind", addrs[0], "--netns", ns[0],
		"--peers", peers, "--events", dir+"/cross.ndjson")
	if out, err := cross.CombinedOutput(); cross.ProcessState.ExitCode() != 2 || !strings.Contains(string(out), "does not run inside it") {
		t.Errorf("--netns naming another namespace: %v %s", err, out)
	}

	gobin.Build(t, ".") // before the start instant is set: the first call builds
	start0 := fmt.Sprint(time.Now().UnixNano())
	var ds []*child
	for i, n := range ns {
		id := fmt.Sprintf("p%d", i)
		args := []string{"--bind", addrs[i], "--peers", peers, "--netns", n, "--start-unix-ns", start0}
		if i > 0 {
			args = append(args, "--seeds", "p0")
		}
		ds = append(ds, start(t, dir, id, []string{"ip", "netns", "exec", n}, args...))
	}
	ids := []string{"p0", "p1"}
	realtime.WaitFor(t, "both daemons record both alive", 30*time.Second, func() bool { return ds[0].sees(ids) && ds[1].sees(ids) })
	for _, d := range ds {
		d.stop(t)
	}
	for _, d := range ds {
		checkFile(t, d, ids, true)
	}
}
