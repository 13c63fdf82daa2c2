package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/detsim/detsim/hosts/swim"
	"github.com/detsim/detsim/live/node"
)

var swimdBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "swimd-test-")
	if err != nil {
		panic(err)
	}
	swimdBin = filepath.Join(dir, "swimd")
	if out, err := exec.Command("go", "build", "-o", swimdBin, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building swimd: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// freePorts returns n loopback ports that were free a moment ago.
func freePorts(t *testing.T, n int) []string {
	var conns []*net.UDPConn
	var addrs []string
	for range n {
		c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		addrs = append(addrs, c.LocalAddr().String())
	}
	for _, c := range conns {
		c.Close()
	}
	return addrs
}

type daemon struct {
	id     string
	cmd    *exec.Cmd
	events string
	stderr bytes.Buffer
}

// cluster starts three daemons a (member), b and c (joining through a's
// address); keys[i] is daemon i's key file, "" for none.
func cluster(t *testing.T, keys [3]string, extra ...string) []*daemon {
	t.Helper()
	dir := t.TempDir()
	addrs := freePorts(t, 3)
	ids := []string{"a", "b", "c"}
	var book []string
	for i, id := range ids {
		book = append(book, id+"="+addrs[i])
	}
	start := fmt.Sprint(time.Now().UnixNano())
	var ds []*daemon
	for i, id := range ids {
		d := &daemon{id: id, events: filepath.Join(dir, id+".ndjson")}
		args := []string{"--id", id, "--bind", addrs[i], "--peers", strings.Join(book, ","),
			"--start-unix-ns", start, "--events", d.events, "--duration", "20s"}
		if i > 0 {
			args = append(args, "--seeds", addrs[0])
		}
		if keys[i] != "" {
			args = append(args, "--cluster-key-file", keys[i])
		}
		args = append(args, extra...)
		d.cmd = exec.Command(swimdBin, args...)
		d.cmd.Stderr = &d.stderr
		if err := d.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		ds = append(ds, d)
	}
	t.Cleanup(func() {
		for _, d := range ds {
			if d.cmd.ProcessState == nil {
				d.cmd.Process.Kill()
				d.cmd.Wait()
			}
		}
	})
	return ds
}

type record struct {
	T     int64  `json:"virtual_time_ns"`
	Host  string `json:"host_id"`
	Kind  string `json:"kind_tag"`
	Event struct {
		Type     string `json:"type"`
		Observer string `json:"observer"`
		Subject  string `json:"subject"`
		To       string `json:"to"`
		Reason   string `json:"reason"`
		Count    int64  `json:"count"`
	} `json:"event"`
}

// readRecords parses a daemon's ndjson as far as it is complete.
func readRecords(t *testing.T, path string) []record {
	data, _ := os.ReadFile(path)
	var out []record
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			continue // a line cut by a flush in progress
		}
		out = append(out, r)
	}
	return out
}

// converged reports whether every daemon holds every member alive.
func converged(t *testing.T, ds []*daemon) bool {
	for _, d := range ds {
		view := map[string]string{}
		for _, r := range readRecords(t, d.events) {
			if r.Event.Type == "state_transition" {
				view[r.Event.Subject] = r.Event.To
			}
		}
		for _, s := range []string{"a", "b", "c"} {
			if view[s] != "alive" {
				return false
			}
		}
	}
	return true
}

func stopAll(t *testing.T, ds []*daemon) {
	for _, d := range ds {
		d.cmd.Process.Signal(syscall.SIGTERM)
	}
	for _, d := range ds {
		err := d.cmd.Wait()
		if err != nil {
			t.Errorf("%s: SIGTERM must exit 0: %v\n%s", d.id, err, d.stderr.String())
		}
	}
}

// Three daemons on 127.0.0.1 form a cluster: b and c join through a's
// address, and every one of them ends up holding all three alive.
func TestThreeDaemonsConverge(t *testing.T) {
	ds := cluster(t, [3]string{})
	deadline := time.Now().Add(10 * time.Second)
	for !converged(t, ds) {
		if time.Now().After(deadline) {
			stopAll(t, ds)
			t.Fatal("no convergence within 10 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	stopAll(t, ds)
	for _, d := range ds {
		recs := readRecords(t, d.events)
		last := int64(-1)
		for _, r := range recs {
			if r.T < last {
				t.Errorf("%s: virtual_time_ns goes back: %d after %d", d.id, r.T, last)
			}
			last = r.T
			if r.Host != d.id || r.Kind != "swim" {
				t.Errorf("%s: record envelope %q %q", d.id, r.Host, r.Kind)
			}
		}
	}
}

func writeKey(t *testing.T, hexKey string) string {
	p := filepath.Join(t.TempDir(), "key.hex")
	if err := os.WriteFile(p, []byte(hexKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// With a wrong cluster key, c's packets are dropped by a and b (counted as
// packet_dropped bad_tag) and c never joins: the cluster never holds it
// alive. a and b, sharing a key, still converge between themselves.
func TestWrongClusterKeyNeverConverges(t *testing.T) {
	good := writeKey(t, "00112233445566778899aabbccddeeff")
	bad := writeKey(t, "ffeeddccbbaa99887766554433221100")
	ds := cluster(t, [3]string{good, good, bad})
	time.Sleep(3 * time.Second)
	if converged(t, ds) {
		t.Fatal("a daemon with the wrong key joined the cluster")
	}
	stopAll(t, ds)
	drops := 0
	for _, r := range readRecords(t, ds[0].events) {
		if r.Event.Type == "packet_dropped" && r.Event.Reason == "bad_tag" {
			drops++
		}
	}
	if drops == 0 {
		t.Error("a recorded no bad_tag drop of c's join requests")
	}
}

// Hostile datagrams at a running daemon are dropped and counted; it keeps
// running and exits 0 on SIGTERM.
func TestHostileDatagramsCounted(t *testing.T) {
	key := writeKey(t, "00112233445566778899aabbccddeeff")
	ds := cluster(t, [3]string{key, key, key})
	time.Sleep(300 * time.Millisecond) // let a bind
	var addr string
	for _, a := range ds[0].cmd.Args {
		if strings.HasPrefix(a, "127.0.0.1:") {
			addr = a
			break
		}
	}
	conn, err := net.Dial("udp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ping, _ := swim.Encode(&swim.Message{Kind: swim.Ping, From: "b", Target: "a", Seq: 9})
	hostile := [][]byte{{0}, []byte("garbage garbage garbage"), ping,
		node.Seal([]byte("0000000000000000wrong"), append([]byte(nil), ping...)),
		node.Seal(mustHex(t, "00112233445566778899aabbccddeeff"), []byte{2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f})}
	for _, h := range hostile {
		if _, err := conn.Write(h); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(500 * time.Millisecond)
	stopAll(t, ds)
	var max int64
	for _, r := range readRecords(t, ds[0].events) {
		if r.Event.Type == "packet_dropped" {
			max = r.Event.Count
		}
	}
	if max < int64(len(hostile)) {
		t.Errorf("packet_dropped count %d, want at least %d", max, len(hostile))
	}
}

func mustHex(t *testing.T, s string) []byte {
	var b []byte
	_, err := fmt.Sscanf(s, "%x", &b)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func runQuiet(args ...string) (int, string) {
	f, _ := os.CreateTemp("", "swimd-stderr")
	defer os.Remove(f.Name())
	code := run(args, os.Stdout, f, nil)
	f.Close()
	data, _ := os.ReadFile(f.Name())
	return code, string(data)
}

func TestBadInvocations(t *testing.T) {
	busy, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--id", "a", "--bind", "0.0.0.0:7001"}, 2, "not a loopback address"},
		{[]string{"--id", "a", "--bind", "10.1.2.3:7001"}, 2, "not a loopback address"},
		{[]string{"--id", "a", "--bind", busy.LocalAddr().String()}, 1, "already in use"},
		{[]string{"--id", "a", "--bind", "127.0.0.1:0", "--peers", "b=192.168.1.1:7002"}, 2, "not a loopback address"},
		{[]string{"--id", "a", "--bind", "127.0.0.1:0", "--seeds", "127.0.0.1:9"}, 2, "no --peers entry"},
		{[]string{"--id", "a", "--bind", "127.0.0.1:0", "--duration", "2h"}, 2, "at most 1h"},
		{[]string{"--id", "", "--bind", "127.0.0.1:0"}, 2, "--id"},
		// A testbed address only inside the testbed namespace named, which
		// this test process is not in.
		{[]string{"--id", "a", "--bind", "10.213.1.2:7001"}, 2, "not a loopback address"},
		{[]string{"--id", "a", "--bind", "10.213.1.2:7001", "--netns", "dtb-nosuchrun-p0"}, 2, "--netns dtb-nosuchrun-p0"},
		{[]string{"--id", "a", "--bind", "10.213.1.2:7001", "--netns", "myns"}, 2, "not a testbed namespace"},
	} {
		code, msg := runQuiet(tc.args...)
		if code != tc.code || !strings.Contains(msg, tc.msg) {
			t.Errorf("%v: exit %d %q, want %d containing %q", tc.args, code, msg, tc.code, tc.msg)
		}
	}
}

// The kind_config file is read by the scenario's own parser: its
// messages are the loader's.
func TestKindConfigSharedParser(t *testing.T) {
	p := filepath.Join(t.TempDir(), "k.toml")
	os.WriteFile(p, []byte("probe_timeout_ns = 5_000_000_000\n"), 0o666)
	code, msg := runQuiet("--id", "a", "--bind", "127.0.0.1:0", "--kind-config", p)
	if code != 2 || !strings.Contains(msg, "kind_config.probe_timeout_ns: must be less than probe_interval_ns") {
		t.Errorf("exit %d %q", code, msg)
	}
}
