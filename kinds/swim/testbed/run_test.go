package testbed

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/internal/gobin"
	"github.com/detsim/detsim/kinds/swim/testbed/tbnet"
	"github.com/detsim/detsim/scenarios"
	"golang.org/x/sys/unix"
)

// swimd builds kinds/swim/cmd/swimd once for the package's tests.
func swimd(t *testing.T) string { return gobin.Build(t, "../cmd/swimd") }

func TestMain(m *testing.M) { gobin.Main(m) }

func loadFile(t *testing.T, name string) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.Load(filepath.Join("testdata", name), builtin.Registry())
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// runNamespaces lists the testbed namespaces that exist now.
func runNamespaces(t *testing.T) map[string]bool {
	out := map[string]bool{}
	for _, ns := range namespaces(t, "dtb-") {
		out[ns] = true
	}
	return out
}

// assertNoNewNamespaces fails if a testbed namespace exists that did not
// before and belongs to no run still alive. go test runs packages side by
// side, and another package's test (cli, daemoncli, swimd) may be in the
// middle of a run of its own: its lock in LockDir is held, so its names
// are its. The namespaces are listed before and after reading the locks:
// a run removes its namespaces before it releases its lock, so a name in
// both listings whose run holds no lock was left by a run that ended.
func assertNoNewNamespaces(t *testing.T, before map[string]bool) {
	t.Helper()
	first := runNamespaces(t)
	live := liveRunPrefixes(t)
	for ns := range runNamespaces(t) {
		if before[ns] || !first[ns] {
			continue
		}
		if slices.ContainsFunc(live, func(p string) bool { return strings.HasPrefix(ns, p) }) {
			continue
		}
		t.Errorf("namespace %s is left after the run", ns)
	}
}

// liveRunPrefixes names the namespace prefix (dtb-<run>-) of every run
// whose lock file is held now, as the sweep of a later run tells them.
func liveRunPrefixes(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(LockDir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var live []string
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".lock")
		if !ok {
			continue
		}
		f, err := os.Open(filepath.Join(LockDir, e.Name()))
		if err != nil {
			continue // released and removed meanwhile
		}
		if unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB) != nil {
			live = append(live, tbnet.Prefix+id+"-")
		}
		f.Close()
	}
	return live
}

// TestRun_SwimdOnTheKernel: three swimd processes in namespaces, every
// mutation kind the testbed applies; the bundle verifies, is marked
// testbed with its realised edges, holds the daemons' records, the
// mutations and the snapshots, the delay log of every packet, and
// nothing the run made is left.
func TestRun_SwimdOnTheKernel(t *testing.T) {
	needKernel(t)
	bin := swimd(t)
	before := runNamespaces(t)
	sc := loadFile(t, "three.toml")
	out := filepath.Join(t.TempDir(), "b")
	res, err := Run(context.Background(), sc, Config{Out: out, Impl: ImplSwimd, Daemon: bin, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	assertNoNewNamespaces(t, before)
	if res.Interrupted != "" {
		t.Fatalf("interrupted: %s", res.Interrupted)
	}
	if problems, err := bundle.Verify(out); err != nil || len(problems) > 0 {
		t.Fatalf("verify: %v %v", problems, err)
	}
	m := res.Manifest
	if m.Mode != bundle.ModeTestbed || m.Testbed == nil || m.Testbed.Impl != ImplSwimd || len(m.Testbed.Edges) != 6 || m.Testbed.Kernel == "" {
		t.Fatalf("manifest: mode %q testbed %+v", m.Mode, m.Testbed)
	}
	if e := m.Testbed.Edges[0]; e.MTUBytes != 1500 || e.RateBitsPerSecond != 512_000 || e.LossPPM != 10_000 {
		t.Errorf("edge a→b realised as %+v", e)
	}
	// The run states its own error: the delay line's lateness over every
	// packet it delayed (so as many as the log holds), against the 40 ms
	// links; the machine's load sampled through the run; a mark exactly
	// when the rule gives one.
	if l := m.Testbed.Lateness; l == nil || l.Packets < 50 || l.SmallestLatencyNs != 40_000_000 || l.P50Ns > l.P99Ns || l.P99Ns > l.MaxNs {
		t.Errorf("lateness %+v", l)
	} else if m.Testbed.Marked != LatenessMark(*l) {
		t.Errorf("marked %q for lateness %+v", m.Testbed.Marked, *l)
	}
	if ld := m.Testbed.Load; ld == nil || ld.CPUs < 1 || ld.Samples < 2 || ld.Load1Min > ld.Load1Median || ld.Load1Median > ld.Load1Max {
		t.Errorf("load %+v", ld)
	}
	counts := map[string]int{}
	mutations := 0
	f, err := os.Open(filepath.Join(out, bundle.EventsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		line := s.Text()
		for _, typ := range []string{"message_sent", "message_received", "probe_acked", "mutation"} {
			if strings.Contains(line, `"type":"`+typ+`"`) {
				counts[typ]++
			}
		}
		if strings.Contains(line, `"type":"mutation"`) {
			mutations++
		}
	}
	for typ, n := range counts {
		if n == 0 {
			t.Errorf("no %s records", typ)
		}
	}
	if mutations != len(sc.Mutations) {
		t.Errorf("%d mutation records, want %d", mutations, len(sc.Mutations))
	}
	var snaps []string
	if err := bundle.EachSnapshot(out, res.Manifest, func(s bundle.SnapshotRecord) error {
		snaps = append(snaps, s.Path)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b", "c"} {
		if !slices.Contains(snaps, "snapshots/"+id+"/0.json") {
			t.Errorf("no snapshot of %s at request 0: %v", id, snaps)
		}
	}
	delays, err := os.ReadFile(filepath.Join(out, bundle.TestbedDir, "delays.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(string(delays), "\n"); lines < 50 || !strings.HasPrefix(string(delays), delayLogHeader) {
		t.Errorf("the delay log holds %d lines", lines)
	} else if l := m.Testbed.Lateness; l != nil && l.Packets != int64(lines-1) {
		t.Errorf("lateness over %d packets, the log holds %d", l.Packets, lines-1)
	}
	if len(res.Verdicts) != 1 {
		t.Errorf("verdicts %+v", res.Verdicts)
	}
}

// TestRun_CancelledIsInterruptedAndClean: a run cancelled part way (the
// CLI's Ctrl-C) still writes a bundle that verifies, marked interrupted,
// and removes everything it made.
func TestRun_CancelledIsInterruptedAndClean(t *testing.T) {
	needKernel(t)
	bin := swimd(t)
	before := runNamespaces(t)
	sc := loadFile(t, "three.toml")
	// Part way: past the start margin the run waits out first.
	ctx, cancel := context.WithTimeout(context.Background(), DefaultStartMargin(sc)+1500*time.Millisecond)
	defer cancel()
	out := filepath.Join(t.TempDir(), "b")
	res, err := Run(ctx, sc, Config{Out: out, Impl: ImplSwimd, Daemon: bin})
	if err != nil {
		t.Fatal(err)
	}
	assertNoNewNamespaces(t, before)
	if !strings.Contains(res.Interrupted, "cancelled") {
		t.Errorf("interrupted %q", res.Interrupted)
	}
	if problems, err := bundle.Verify(out); err != nil || len(problems) > 0 {
		t.Errorf("verify: %v %v", problems, err)
	}
}

// TestRun_CrashedDaemonEndsTheRun: a daemon that exits by itself ends
// the run with a bundle marked interrupted naming the peer, never a hang.
func TestRun_CrashedDaemonEndsTheRun(t *testing.T) {
	needKernel(t)
	before := runNamespaces(t)
	// A daemon that says it is ready, then dies.
	fake := filepath.Join(t.TempDir(), "fake-daemon")
	script := "#!/bin/sh\necho \"fake: $2 ready on somewhere\" >&2\nsleep 1\necho 'fake: out of memory' >&2\nexit 3\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "b")
	start := time.Now()
	res, err := Run(context.Background(), loadFile(t, "three.toml"), Config{Out: out, Impl: ImplSwimd, Daemon: fake})
	if err != nil {
		t.Fatal(err)
	}
	assertNoNewNamespaces(t, before)
	if !strings.Contains(res.Interrupted, "exited by itself") || !strings.Contains(res.Interrupted, "out of memory") {
		t.Errorf("interrupted %q, want the daemon's exit and its last words", res.Interrupted)
	}
	if took := time.Since(start); took > 7*time.Second {
		t.Errorf("the run went on %v after its daemons died", took)
	}
	if problems, err := bundle.Verify(out); err != nil || len(problems) > 0 {
		t.Errorf("verify: %v %v", problems, err)
	}
}

// TestRun_StartBarrier: daemons that each take half a second to come up
// (a wrapper that sleeps, then runs swimd) all bind before the run's
// clock starts and send nothing before it: no peer's datagram meets an
// unbound socket (no ICMP unreachable crosses the delay line, the
// testbed's start-up as calibration found it, docs/calibration.md,
// "False alarms"), no record precedes t = 0, and the manifest says how
// long the daemons took against the margin.
func TestRun_StartBarrier(t *testing.T) {
	needKernel(t)
	bin := swimd(t)
	before := runNamespaces(t)
	slow := filepath.Join(t.TempDir(), "slow-swimd")
	script := "#!/bin/sh\nsleep 0.5\nexec " + bin + " \"$@\"\n"
	if err := os.WriteFile(slow, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	sc := loadFile(t, "quiet.toml")
	out := filepath.Join(t.TempDir(), "b")
	// A margin the slow starts cannot outgrow on a loaded machine: the
	// test is of the order, not of the default margin.
	const margin = 8 * time.Second
	res, err := Run(context.Background(), sc, Config{Out: out, Impl: ImplSwimd, Daemon: slow, Version: "test", StartMargin: margin})
	if err != nil {
		t.Fatal(err)
	}
	assertNoNewNamespaces(t, before)
	if res.Interrupted != "" {
		t.Fatalf("interrupted: %s", res.Interrupted)
	}
	if res.Unreachable != 0 {
		t.Errorf("%d ICMP unreachable packets between peers: a daemon sent before another had bound its socket", res.Unreachable)
	}
	st := res.Manifest.Testbed.Start
	if st == nil || st.MarginNs != int64(margin) || st.ReadyNs < int64(3*500*time.Millisecond) || st.ReadyNs >= st.MarginNs {
		t.Errorf("start %+v: want the three slow starts, within the margin", st)
	}
	events, err := os.ReadFile(filepath.Join(out, bundle.EventsFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(events), `"type":"probe_acked"`) {
		t.Errorf("no probe was acked")
	}
	if strings.Contains(string(events), `"virtual_time_ns":-`) {
		t.Errorf("a record before t = 0")
	}
}

// TestProbe_LossIsPerFragment: the probe measures what the kernel does:
// at 10 % loss per packet, a 16 000-byte datagram (eleven fragments) is
// lost far more often than a 100-byte one; delays are at least the
// latency asked; a shaped edge carries about its rate.
func TestProbe_LossIsPerFragment(t *testing.T) {
	needKernel(t)
	before := runNamespaces(t)
	sc := loadText(t, twoSwimPeers("probe", "10_000_000_000", "latency_ns = 20_000_000\nloss_prob_ppm = 100_000\nbandwidth_bps = 200_000\nburst_bytes = 1564"))
	rep, err := Probe(context.Background(), sc, ProbeConfig{Duration: 4 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	assertNoNewNamespaces(t, before)
	var buf strings.Builder
	rep.Print(&buf)
	t.Log("\n" + buf.String())
	for _, e := range rep.Edges {
		small := float64(e.SmallSent-e.SmallGot) / float64(e.SmallSent)
		large := float64(e.LargeSent-e.LargeGot) / float64(e.LargeSent)
		// Expected 10 % and 1 − 0.9¹¹ = 69 %, from 200 and 40 samples.
		if e.SmallSent < 100 || e.LargeSent < 20 || small > 0.25 || large < 0.4 {
			t.Errorf("%s→%s: lost %.0f%% of %d small and %.0f%% of %d large datagrams", e.From, e.To, 100*small, e.SmallSent, 100*large, e.LargeSent)
		}
		if e.OneWayP50 < e.Asked.LatencyNs || e.OneWayP50 > e.Asked.LatencyNs+100_000_000 {
			t.Errorf("%s→%s: one-way p50 %d ns for %d asked", e.From, e.To, e.OneWayP50, e.Asked.LatencyNs)
		}
		if r := e.ThroughputBytes / (0.9 * float64(e.Asked.RateBytes)); r < 0.5 || r > 1.1 {
			t.Errorf("%s→%s: %.0f B/s through a %d B/s edge", e.From, e.To, e.ThroughputBytes, e.Asked.RateBytes)
		}
	}
}
