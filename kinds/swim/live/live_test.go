package live

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/bundle/verdict"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/internal/gobin"
	"github.com/detsim/detsim/internal/realtime"
	"github.com/detsim/detsim/kinds/swim/live/node"
	"github.com/detsim/detsim/kinds/swim/swim"
	"github.com/detsim/detsim/scenarios"
)

// load loads a live test scenario stretched to the machine: on a machine
// realtime.Scale times slower than an idle one, every _ns value (ticks,
// probe timeouts, latencies, mutation and snapshot times, windows, the
// duration) is that many times longer, so the protocol keeps the margins
// it has on an idle machine. The same run in slower time: a verdict that
// holds there holds here, and one that fails says something.
func load(t *testing.T, name string) *scenarios.Scenario {
	t.Helper()
	path := filepath.Join("testdata", name)
	if k := realtime.Scale(); k > 1 {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		stretched := nsValue.ReplaceAllStringFunc(string(src), func(m string) string {
			sub := nsValue.FindStringSubmatch(m)
			v, _ := strconv.ParseInt(strings.ReplaceAll(sub[2], "_", ""), 10, 64)
			return sub[1] + strconv.FormatInt(v*int64(k), 10)
		})
		path = filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, []byte(stretched), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("machine load scale %d: %s stretched %d×", k, name, k)
	}
	sc, err := scenarios.Load(path, builtin.Registry())
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

var nsValue = regexp.MustCompile(`(\b[a-z_]+_ns\s*=\s*)([0-9_]+)`)

type rec struct {
	T     int64  `json:"virtual_time_ns"`
	Host  string `json:"host_id"`
	Tag   string `json:"kind_tag"`
	Event struct {
		Type     string `json:"type"`
		Observer string `json:"observer"`
		Subject  string `json:"subject"`
		To       string `json:"to"`
		Kind     string `json:"kind"`
		Reason   string `json:"reason"`
		ID       string `json:"id"`
	} `json:"event"`
}

func records(t *testing.T, dir string) []rec {
	f, err := os.Open(filepath.Join(dir, bundle.EventsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []rec
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r rec
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("line %d: %v", len(out)+1, err)
		}
		out = append(out, r)
	}
	return out
}

// realTime skips a test that runs a scenario for its whole real
// duration (seconds to tens of seconds) under -short (.ci/quick).
func realTime(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: runs a scenario live, in real time")
	}
}

func verifyIntact(t *testing.T, dir string) {
	t.Helper()
	problems, err := bundle.Verify(dir)
	if err != nil || len(problems) > 0 {
		t.Fatalf("Verify: %v %v", problems, err)
	}
	recs := records(t, dir)
	for i := 1; i < len(recs); i++ {
		if recs[i].T < recs[i-1].T {
			t.Fatalf("events.ndjson#L%d goes back in time", i+1)
		}
	}
}

// A 3-peer smoke scenario run live: a bundle Verify finds intact, marked
// live with its machine, whose assertions evaluate (and pass: a clean
// mesh on loopback).
func TestRun_SmokeBundleVerifies(t *testing.T) {
	realTime(t)
	sc := load(t, "three.toml")
	out := filepath.Join(t.TempDir(), "b")
	var reports []Progress
	res, err := Run(context.Background(), sc, builtin.Registry(), Config{Out: out, Version: "test",
		Progress: func(p Progress) { reports = append(reports, p) }, ProgressEvery: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	verifyIntact(t, out)
	m := res.Manifest
	if m.Mode != bundle.ModeLive || m.Clock != "wall" || m.Machine == nil || m.Interrupted != "" || m.DurationNs != sc.DurationNs {
		t.Errorf("manifest: %+v", m)
	}
	if len(reports) < 3 || reports[len(reports)-1].Records == 0 {
		t.Errorf("progress reports: %+v", reports)
	}
	vs, err := verdict.EvaluateBundle(out, sc.Assertions, m.DurationNs)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 1 || vs[0].Outcome != verdict.Pass {
		t.Errorf("verdicts: %+v", vs)
	}
	// c joined through a: everyone ends holding everyone alive.
	view := map[[2]string]string{}
	for _, r := range records(t, out) {
		if r.Event.Type == "state_transition" {
			view[[2]string{r.Event.Observer, r.Event.Subject}] = r.Event.To
		}
	}
	for _, o := range []string{"a", "b", "c"} {
		for _, s := range []string{"a", "b", "c"} {
			if view[[2]string{o, s}] != "alive" {
				t.Errorf("%s holds %s %q at the end", o, s, view[[2]string{o, s}])
			}
		}
	}
	if !hasSnapshot(t, out, "snapshots/c/1.json") {
		t.Errorf("no snapshot of c at the end instant")
	}
	// In process, the shaper carries each message's id beside its bytes,
	// so every receive names a send, as in the simulator.
	sent := map[string]bool{}
	received := 0
	for _, r := range records(t, out) {
		switch r.Event.Type {
		case "message_sent":
			sent[r.Event.ID] = true
		case "message_received":
			received++
			if r.Event.ID == "" || !sent[r.Event.ID] {
				t.Errorf("message_received at %d on %s has id %q, which no earlier message_sent has", r.T, r.Host, r.Event.ID)
			}
		}
	}
	if received == 0 {
		t.Error("no message_received at all")
	}
}

// The partition is observed: the mutation record, then b or c suspecting
// a (and a suspecting them) by probe failure, the kill cutting c, and the
// bundle still verifies (snapshots planned around the kill).
func TestRun_PartitionObserved(t *testing.T) {
	realTime(t)
	sc := load(t, "partition.toml")
	out := filepath.Join(t.TempDir(), "b")
	res, err := Run(context.Background(), sc, builtin.Registry(), Config{Out: out})
	if err != nil {
		t.Fatal(err)
	}
	verifyIntact(t, out)
	var partAt int64 = -1
	suspects := map[string]bool{}
	var kills, delivDrops, sendDrops int
	for _, r := range records(t, out) {
		switch {
		case r.Event.Type == "mutation" && r.Event.Kind == "Partition":
			partAt = r.T
		case r.Event.Type == "mutation" && r.Event.Kind == "PeerKill":
			kills++
		case r.Event.Type == "drop_on_send" && r.Event.Reason == "partitioned":
			sendDrops++
		case r.Event.Type == "drop_on_delivery":
			delivDrops++
		case r.Event.Type == "state_transition" && r.Event.To == "suspect" && r.Event.Reason == "probe_failed":
			if partAt < 0 || r.T < partAt {
				t.Errorf("suspicion before the partition: %+v", r)
			}
			suspects[r.Event.Observer+">"+r.Event.Subject] = true
		}
	}
	if partAt < 0 || kills != 1 || sendDrops == 0 {
		t.Errorf("partition at %d, kills %d, partitioned sends %d", partAt, kills, sendDrops)
	}
	if !suspects["b>a"] && !suspects["c>a"] || !suspects["a>b"] && !suspects["a>c"] {
		t.Errorf("suspicions across the cut: %v", suspects)
	}
	if len(res.Verdicts) != 1 || res.Verdicts[0].Outcome != verdict.Fail {
		t.Errorf("all_alive_throughout across a partition must fail: %+v", res.Verdicts)
	}
	if hasSnapshot(t, out, "snapshots/c/0.json") {
		t.Error("c was killed at 1.8 s: no snapshot of it at 2 s")
	}
	if !hasSnapshot(t, out, "snapshots/c/1.json") {
		t.Errorf("c was resurrected at 2.2 s: no snapshot of it at 2.5 s")
	}
}

// Cancelling mid-run ends it with a complete bundle marked interrupted,
// which Verify finds intact.
func TestRun_CancelGivesInterruptedVerifiableBundle(t *testing.T) {
	realTime(t)
	sc := load(t, "three.toml")
	out := filepath.Join(t.TempDir(), "b")
	// load stretched the scenario by realtime.Scale: cancel in its time.
	ctx, cancel := context.WithTimeout(context.Background(), realtime.Scaled(1200*time.Millisecond))
	defer cancel()
	start := time.Now()
	res, err := Run(ctx, sc, builtin.Registry(), Config{Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if time.Since(start) > realtime.Scaled(2500*time.Millisecond) {
		t.Errorf("cancellation took %v", time.Since(start))
	}
	verifyIntact(t, out)
	m := res.Manifest
	if !strings.Contains(m.Interrupted, "cancelled") || m.DurationNs >= sc.DurationNs || m.DurationNs < int64(realtime.Scaled(500*time.Millisecond)) {
		t.Errorf("interrupted %q at %d", m.Interrupted, m.DurationNs)
	}
	if hasSnapshot(t, out, "snapshots/a/0.json") {
		t.Error("snapshot request at 1.5 s written by a run cancelled at 1.2 s")
	}
}

// A duration cap below the scenario's stops the run there, marked
// interrupted; the bundle verifies.
func TestRun_DurationCap(t *testing.T) {
	sc := load(t, "three.toml")
	out := filepath.Join(t.TempDir(), "b")
	res, err := Run(context.Background(), sc, builtin.Registry(), Config{Out: out, MaxDuration: 700 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	verifyIntact(t, out)
	if res.EndNs != 700_000_000 || !strings.Contains(res.Interrupted, "duration cap") {
		t.Errorf("end %d, interrupted %q", res.EndNs, res.Interrupted)
	}
}

// The same smoke scenario with every peer a swimd child process: the
// bundle verifies, and the cluster converges through the proxies.
func TestRun_SwimdProcesses(t *testing.T) {
	realTime(t)
	bin := swimdBinary(t)
	sc := load(t, "three.toml")
	out := filepath.Join(t.TempDir(), "b")
	res, err := Run(context.Background(), sc, builtin.Registry(), Config{Out: out, Swimd: bin,
		ClusterKey: []byte("0123456789abcdef")})
	if err != nil {
		t.Fatal(err)
	}
	verifyIntact(t, out)
	if len(res.Verdicts) != 1 || res.Verdicts[0].Outcome != verdict.Pass {
		t.Errorf("verdicts: %+v", res.Verdicts)
	}
	hosts := map[string]int{}
	for _, r := range records(t, out) {
		if r.Tag == "swim" {
			hosts[r.Host]++
		}
		if r.Event.Type == "packet_dropped" {
			t.Errorf("a datagram was dropped between processes sharing a key: %+v", r)
		}
	}
	if len(hosts) != 3 {
		t.Errorf("swim records by host: %v", hosts)
	}
}

func TestRun_SwimdRefusesPreservedResurrect(t *testing.T) {
	sc := load(t, "partition.toml")
	sc.Mutations[2].PreserveState = true
	_, err := Run(context.Background(), sc, builtin.Registry(), Config{Out: filepath.Join(t.TempDir(), "b"), Swimd: "/nonexistent"})
	if err == nil || !strings.Contains(err.Error(), "preserve_state") {
		t.Errorf("err %v", err)
	}
}

// swimdBinary builds kinds/swim/cmd/swimd once for the package's tests.
func swimdBinary(t *testing.T) string { return gobin.Build(t, "../cmd/swimd") }

func TestMain(m *testing.M) { gobin.Main(m) }

// A live run given no key makes one (issue 21): a local process that
// forges datagrams — unkeyed, or sealed with a key of its own — naming
// another peer as their sender and declaring a member dead is counted as
// a drop and changes nobody's view. Before, a run without --key trusted
// the sender named inside the datagram, and one forged update killed a
// member.
func TestRun_DefaultKeyRefusesForgedDatagrams(t *testing.T) {
	realTime(t)
	forged, _ := swim.Encode(&swim.Message{Kind: swim.Ping, From: "c", Target: "a", Seq: 9,
		Updates: []swim.Update{{Member: "b", State: swim.Dead, Incarnation: 1 << 40, From: "c"}}})
	ownKey := []byte("a key the run never gave anybody")
	var sent int
	afterStart = func(peer string, port netip.AddrPort) {
		if peer != "a" || sent > 0 {
			return
		}
		conn, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(port))
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		for _, d := range [][]byte{forged, node.Seal(ownKey, "a", append([]byte(nil), forged...), uint64(time.Now().UnixNano()))} {
			if _, err := conn.Write(d); err == nil {
				sent++
			}
		}
	}
	defer func() { afterStart = nil }()
	out := filepath.Join(t.TempDir(), "b")
	if _, err := Run(context.Background(), load(t, "three.toml"), builtin.Registry(), Config{Out: out}); err != nil {
		t.Fatal(err)
	}
	if sent != 2 {
		t.Fatalf("sent %d forged datagrams to a, want 2; the test proves nothing", sent)
	}
	verifyIntact(t, out)
	drops := 0
	for _, r := range records(t, out) {
		switch r.Event.Type {
		case "packet_dropped":
			if r.Host == "a" && (r.Event.Reason == node.ReasonNoTag || r.Event.Reason == node.ReasonBadTag) {
				drops++
			}
		case "state_transition":
			if r.Event.Subject == "b" && r.Event.To == "dead" {
				t.Errorf("%s took the forged news: %+v", r.Host, r)
			}
		}
	}
	if drops == 0 {
		t.Error("a recorded no drop of the forged datagrams")
	}
}

// Another process takes a killed peer's port before its resurrection:
// that life ends at once with a peer_start_failed record saying so, and
// the run stops there with a complete bundle that verifies, marked
// interrupted with the reason — in process and with swimd children.
// Before, the run was lost: exit 3, no bundle.
func TestRun_PortTakenWhileDownEndsThatLife(t *testing.T) {
	realTime(t)
	for _, procs := range []bool{false, true} {
		t.Run(fmt.Sprintf("procs=%v", procs), func(t *testing.T) {
			var thief *net.UDPConn
			afterKill = func(peer string, port netip.AddrPort) {
				if peer == "c" {
					thief, _ = net.ListenUDP("udp", net.UDPAddrFromAddrPort(port))
				}
			}
			defer func() {
				afterKill = nil
				if thief != nil {
					thief.Close()
				}
			}()
			cfg := Config{Out: filepath.Join(t.TempDir(), "b")}
			if procs {
				cfg.Swimd = swimdBinary(t)
			}
			sc := load(t, "partition.toml")
			res, err := Run(context.Background(), sc, builtin.Registry(), cfg)
			if err != nil {
				t.Fatalf("the run was lost: %v", err)
			}
			if !strings.Contains(res.Interrupted, "peer c could not begin its next life (port_in_use)") {
				t.Errorf("interrupted %q", res.Interrupted)
			}
			if thief == nil {
				t.Fatal("the test could not take c's port; it proves nothing")
			}
			verifyIntact(t, cfg.Out)
			var failedAt int64 = -1
			for _, r := range records(t, cfg.Out) {
				switch {
				case r.Event.Type == "peer_start_failed":
					if r.Host != "c" || r.Event.Reason != "port_in_use" || r.T < sc.Mutations[2].At {
						t.Errorf("peer_start_failed: %+v", r)
					}
					failedAt = r.T
				case failedAt >= 0 && r.Tag == "swim" && r.Host == "c":
					t.Errorf("c wrote a record after its life could not begin: %+v", r)
				}
			}
			if failedAt < 0 {
				t.Fatal("no peer_start_failed record")
			}
			if hasSnapshot(t, cfg.Out, "snapshots/c/1.json") {
				t.Error("a snapshot of c, which never came back")
			}
		})
	}
}

// hasSnapshot says whether the bundle at out holds the snapshot named
// path (snapshots/<host>/<seq>.json).
func hasSnapshot(t *testing.T, out, path string) bool {
	t.Helper()
	m, err := bundle.ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	if err := bundle.EachSnapshot(out, m, func(s bundle.SnapshotRecord) error {
		found = found || s.Path == path
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return found
}
