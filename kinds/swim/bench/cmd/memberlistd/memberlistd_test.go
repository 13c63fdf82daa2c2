package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/internal/gobin"
	"github.com/detsim/detsim/internal/realtime"
	"github.com/detsim/detsim/internal/spool"
)

func TestMain(m *testing.M) { gobin.Main(m) }

// runQuiet runs the daemon's run in this process, for invocations that
// fail before anything starts.
func runQuiet(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var stderr bytes.Buffer
	code := run(args, io.Discard, &stderr, nil)
	return code, stderr.String()
}

func kindConfig(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "k.toml")
	if err := os.WriteFile(p, []byte(body), 0o666); err != nil {
		t.Fatal(err)
	}
	return p
}

// Bad flags and kind_config keys memberlist has no equivalent for are
// exit 2 naming what is wrong; a port in use is exit 1 saying so.
func TestBadInvocations(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	ok := []string{"--id", "a", "--bind", "127.0.0.1:0"}
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--id", "a", "--bind", "0.0.0.0:7001"}, 2, "not a loopback address"},
		{[]string{"--id", "a", "--bind", "10.213.1.2:7001"}, 2, "not a loopback address"},
		{append(ok, "--peers", "b=192.168.1.1:7002"), 2, "not a loopback address"},
		{[]string{"--id", "a", "--bind", "10.213.1.2:7001", "--netns", "dtb-nosuchrun-p0"}, 2, "--netns dtb-nosuchrun-p0"},
		{[]string{"--id", "a", "--bind", "10.213.1.2:7001", "--netns", "myns"}, 2, "not a testbed namespace"},
		{append(ok, "--seeds", "127.0.0.1:9"), 2, "no --peers entry"},
		{append(ok, "--duration", "2h"), 2, "at most 1h"},
		{append(ok, "--tick", "1s"), 2, "flag provided but not defined: -tick"},
		{append(ok, "--cluster-key-file", kindConfig(t, "00112233445566778899aabbccddeeff")), 2, "--cluster-key-file: memberlistd has no cluster key"},
		{append(ok, "--kind-config", kindConfig(t, "gossip = \"legacy\"\n")), 2, "kind_config.gossip: \"legacy\" has no memberlist equivalent"},
		{append(ok, "--kind-config", kindConfig(t, "lifeguard_nack = false\n")), 2, "kind_config.lifeguard_nack"},
		{append(ok, "--kind-config", kindConfig(t, "initial_incarnation = 0\n")), 2, "kind_config.initial_incarnation"},
		{append(ok, "--kind-config", kindConfig(t, "dissemination = \"swim\"\n")), 2, "kind_config.dissemination"},
		{append(ok, "--kind-config", kindConfig(t, "probe_timeout_ns = 5_000_000_000\n")), 2, "kind_config.probe_timeout_ns: must be less than probe_interval_ns"},
		{append(ok, "--kind-config", kindConfig(t, "bogus = 1\n")), 2, "kind_config.bogus: unknown key"},
		{[]string{"--id", "a", "--bind", busy.Addr().String()}, 1, "already in use"},
	} {
		code, msg := runQuiet(t, c.args...)
		if code != c.code || !strings.Contains(msg, c.msg) {
			t.Errorf("%v: exit %d %q, want %d containing %q", c.args, code, msg, c.code, c.msg)
		}
	}
}

// child is one memberlistd process.
type child struct {
	id     string
	cmd    *exec.Cmd
	events string
	snaps  string
	addr   string

	mu     sync.Mutex
	stderr bytes.Buffer
	exited chan struct{}
}

// start starts the daemon (prefix is the command before it, e.g. ip
// netns exec) and waits for its ready line.
func start(t *testing.T, dir, id string, prefix []string, args ...string) *child {
	t.Helper()
	d := &child{id: id, events: filepath.Join(dir, id+".ndjson"), snaps: filepath.Join(dir, "snap-"+id), exited: make(chan struct{})}
	argv := append(append(prefix, gobin.Build(t, "."), "--id", id, "--events", d.events, "--snapshot-dir", d.snaps, "--duration", "2m"), args...)
	d.cmd = exec.Command(argv[0], argv[1:]...)
	pipe, err := d.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // a test that fails early leaves nothing running
		d.cmd.Process.Kill()
		<-d.exited
	})
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			line := sc.Text()
			if _, addr, ok := strings.Cut(line, " ready on "); ok {
				ready <- addr
			}
			d.mu.Lock()
			d.stderr.WriteString(line + "\n")
			d.mu.Unlock()
		}
		d.cmd.Wait()
		close(d.exited)
	}()
	select {
	case d.addr = <-ready:
	case <-d.exited:
		t.Fatalf("%s exited at start: %s", id, d.log())
	case <-time.After(10 * time.Second):
		t.Fatalf("%s not ready within 10 s: %s", id, d.log())
	}
	return d
}

func (d *child) log() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.stderr.String()
}

// stop SIGTERMs the daemon and waits for its exit, which must be 0.
func (d *child) stop(t *testing.T) {
	t.Helper()
	d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.exited:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s still running 10 s after SIGTERM", d.id)
	}
	if code := d.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("%s: SIGTERM must exit 0, got %d:\n%s", d.id, code, d.log())
	}
}

// transition is what the tests read of a record: a state_transition's
// subject and new state.
type transition struct {
	Event struct {
		Type    string `json:"type"`
		Subject string `json:"subject"`
		To      string `json:"to"`
	} `json:"event"`
}

// readRecords parses the file's complete lines.
func readRecords(path string) []transition {
	data, _ := os.ReadFile(path)
	var out []transition
	for line := range bytes.Lines(data) {
		var r transition
		if line[len(line)-1] != '\n' || json.Unmarshal(line, &r) != nil {
			break // a line still being written
		}
		out = append(out, r)
	}
	return out
}

// sees reports whether d's records hold every one of ids alive.
func (d *child) sees(ids []string) bool {
	view := map[string]string{}
	for _, r := range readRecords(d.events) {
		if r.Event.Type == "state_transition" {
			view[r.Event.Subject] = r.Event.To
		}
	}
	for _, id := range ids {
		if view[id] != "alive" {
			return false
		}
	}
	return true
}

// reached reports whether d's records ever hold subject in state.
func (d *child) reached(subject, state string) bool {
	for _, r := range readRecords(d.events) {
		if r.Event.Type == "state_transition" && r.Event.Subject == subject && r.Event.To == state {
			return true
		}
	}
	return false
}

// freeAddrs returns n addresses, on IPs 127.0.0.1, .2, ... when this
// machine routes all of 127/8 to loopback (so each daemon can be told
// from the IP it dials from), else all on 127.0.0.1, whose port was free
// for TCP and UDP both a moment ago.
func freeAddrs(t *testing.T, n int) (addrs []string, ownIPs bool) {
	t.Helper()
	ownIPs = true
	for i := range n {
		ip := fmt.Sprintf("127.0.0.%d", i+1)
		l, err := net.Listen("tcp", ip+":0")
		if err != nil && i > 0 {
			ownIPs, ip = false, "127.0.0.1"
			l, err = net.Listen("tcp", ip+":0")
		}
		if err != nil {
			t.Fatal(err)
		}
		u, err := net.ListenPacket("udp", l.Addr().String())
		l.Close()
		if err != nil {
			t.Fatal(err)
		}
		u.Close()
		addrs = append(addrs, l.Addr().String())
	}
	return addrs, ownIPs
}

// checkFile checks a daemon's records: every line an event line of its
// own host in nondecreasing time that the bundle reader parses, every
// peer a member id when each member has its own IP. It returns the last
// record's time.
func checkFile(t *testing.T, d *child, ids []string, named bool) int64 {
	t.Helper()
	data, err := os.ReadFile(d.events)
	if err != nil {
		t.Fatal(err)
	}
	last, lines := int64(0), 0
	for line := range bytes.Lines(data) {
		lines++
		if !bytes.HasPrefix(line, []byte(`{"virtual_time_ns":`)) {
			t.Fatalf("%s line %d does not start with virtual_time_ns: %s", d.id, lines, line)
		}
		rec, err := bundle.ParseEventLine(bytes.TrimSuffix(line, []byte("\n")))
		if err != nil {
			t.Fatalf("%s line %d: %v", d.id, lines, err)
		}
		if rec.VirtualTimeNs < last {
			t.Errorf("%s line %d: virtual_time_ns %d after %d", d.id, lines, rec.VirtualTimeNs, last)
		}
		last = rec.VirtualTimeNs
		if rec.HostID != d.id || rec.KindTag != "swim" {
			t.Errorf("%s line %d: host %q kind_tag %q", d.id, lines, rec.HostID, rec.KindTag)
		}
		var ev struct{ Peer string }
		json.Unmarshal(rec.Event, &ev)
		if named && ev.Peer != "" && !slices.Contains(ids, ev.Peer) {
			t.Errorf("%s line %d: peer %q is not a member id", d.id, lines, ev.Peer)
		}
	}
	if lines == 0 {
		t.Fatalf("%s wrote no records", d.id)
	}
	return last
}

// mergeAndVerify merges the daemons' files as the testbed does
// (internal/spool) into a live bundle of a scenario declaring them, and
// checks that detsim verify accepts it and its reader reads every line.
func mergeAndVerify(t *testing.T, ds []*child, end int64) {
	t.Helper()
	var toml strings.Builder
	fmt.Fprintf(&toml, "name = \"memberlistd\"\nseed = 0\nduration_ns = %d\n", end)
	var paths []string
	for _, d := range ds {
		fmt.Fprintf(&toml, "\n[[peers]]\nid = %q\nkind = \"swim\"\ninitial_state = \"member\"\n", d.id)
		paths = append(paths, d.events)
	}
	out := filepath.Join(t.TempDir(), "bundle")
	w, err := bundle.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	sum, late, err := spool.Merge(paths, end, w)
	if err != nil || late != 0 {
		t.Fatalf("merge: %v (%d late)", err, late)
	}
	m := bundle.Manifest{
		SimulatorVersion: "memberlistd test",
		ScenarioSHA256:   fmt.Sprintf("%x", sha256.Sum256([]byte(toml.String()))),
		DurationNs:       end,
		HostArch:         runtime.GOARCH,
		Digest:           bundle.RunDigest(sum, nil),
		Mode:             bundle.ModeLive,
		Substitutions:    []string{"the hosts are memberlistd processes (hashicorp/memberlist v0.7.0) on loopback sockets"},
	}
	if err := w.Finish(m, []byte(toml.String()), []byte("[]\n")); err != nil {
		t.Fatal(err)
	}
	problems, err := bundle.Verify(out)
	if err != nil || len(problems) > 0 {
		t.Fatalf("verify: %v %v", problems, err)
	}
	n := 0
	if err := bundle.ReadEvents(out, func(int, bundle.EventRecord) error { n++; return nil }); err != nil || n == 0 {
		t.Fatalf("reading the bundle: %d records, %v", n, err)
	}
}

// Three daemons on loopback form a cluster: a starts as a member, b and
// c join through a (by id and by address); every one records the other
// two alive, a snapshot on SIGUSR1 holds all three, SIGTERM exits 0
// without a Leave, and the three files merge into a bundle detsim verify
// accepts.
func TestThreeDaemonsConverge(t *testing.T) {
	addrs, ownIPs := freeAddrs(t, 3)
	ids := []string{"a", "b", "c"}
	book := fmt.Sprintf("a=%s,b=%s,c=%s", addrs[0], addrs[1], addrs[2])
	dir := t.TempDir()
	gobin.Build(t, ".") // before the start instant is set: the first call builds
	common := []string{"--peers", book, "--start-unix-ns", fmt.Sprint(time.Now().UnixNano())}
	ds := []*child{
		start(t, dir, "a", nil, append([]string{"--bind", addrs[0]}, common...)...),
		start(t, dir, "b", nil, append([]string{"--bind", addrs[1], "--seeds", "a"}, common...)...),
		start(t, dir, "c", nil, append([]string{"--bind", addrs[2], "--seeds", addrs[0]}, common...)...),
	}
	realtime.WaitFor(t, "every daemon records all three alive", 30*time.Second, func() bool {
		return ds[0].sees(ids) && ds[1].sees(ids) && ds[2].sees(ids)
	})
	ds[0].cmd.Process.Signal(syscall.SIGUSR1)
	snap := filepath.Join(ds[0].snaps, "0.json")
	realtime.WaitFor(t, "a's snapshot", 10*time.Second, func() bool { _, err := os.Stat(snap); return err == nil })
	var s struct {
		Node    string
		Members []struct{ ID, State string }
	}
	if data, err := os.ReadFile(snap); err != nil || json.Unmarshal(data, &s) != nil {
		t.Fatalf("snapshot: %v %s", err, data)
	}
	if s.Node != "a" || len(s.Members) != 3 {
		t.Errorf("snapshot of %q holds %+v, want a, b and c", s.Node, s.Members)
	}
	// SIGTERM stops the process without a Leave, as a PeerKill: the
	// others find c out by probing, so c turns suspect before dead (a
	// Leave would have it dead at once).
	ds[2].stop(t)
	realtime.WaitFor(t, "a or b suspects c", 20*time.Second, func() bool { return ds[0].reached("c", "suspect") || ds[1].reached("c", "suspect") })
	for _, d := range ds[:2] {
		d.stop(t)
	}
	var end int64
	for _, d := range ds {
		end = max(end, checkFile(t, d, ids, ownIPs))
	}
	mergeAndVerify(t, ds, end)
}
