package testbed

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/detsim/detsim/internal/scratch"
	"github.com/detsim/detsim/scenarios"
	"github.com/detsim/detsim/testbed/tbnet"
)

// ProbeConfig says how long `detsim testbed --probe` measures.
type ProbeConfig struct {
	// Duration is how long each phase sends (default 10 s): delays and
	// small-datagram loss, large-datagram loss, then throughput.
	Duration time.Duration
}

// The probe's datagrams.
const (
	probePort      = 7947
	smallBytes     = 100   // well under any MTU
	largeBytes     = 16000 // eleven fragments at MTU 1500, as a gossip-flap ping
	blastBytes     = 1200  // one fragment
	smallPerSecond = 200
	// wireSmallShare of a serialising wire's rate is what its small
	// datagrams take, and as much again the reverse edge's echoes: the
	// wire is a tenth busy, where half the rate each way kept it full
	// and every datagram queued. A datagram still waits behind an echo
	// when the reverse edge's delay lines the two up, at most one wire
	// time (16 ms for 128 bytes at 8 000 B/s); on gossip_flap_wire's
	// edges their offsets (49–126 ms against 4–16 ms of wire) keep them
	// apart. So that each edge's delay and loss rest on as many samples
	// as elsewhere, the small phase of a network with a wire lasts
	// wireSmallStretch times as long.
	wireSmallShare   = 0.05
	wireSmallStretch = 10         // 0.5 / wireSmallShare
	probeHeader      = 24         // magic+phase+edge, seq, sent ns
	probeMagic       = 0x64747062 // "dtpb"
)

// Probe phases.
const (
	phaseSmall = iota + 1
	phaseLarge
	phaseBlast
)

// EdgeReport is one directed edge as the probe measured it, beside what
// the scenario asked.
type EdgeReport struct {
	From, To string
	Asked    Edge

	// One-way delay of small datagrams, ns: both namespaces read one
	// machine's clock, so send and receive times compare directly.
	OneWayP50, OneWayP99 int64
	// OneWayMean and OneWayStddev are the same delays' mean and sample
	// standard deviation, ns.
	OneWayMean, OneWayStddev float64
	// SmallSent/SmallGot and LargeSent/LargeGot count datagrams of
	// smallBytes and largeBytes; LargeFragments is how many IP fragments
	// one large datagram is on this edge.
	SmallSent, SmallGot int
	LargeSent, LargeGot int
	LargeFragments      int
	// ThroughputBytes is what arrived per second while the sender offered
	// twice the edge's rate, counting IP and UDP headers (as HTB does):
	// the rate less what the edge's loss took, rate × (1 − p), as the
	// loss is applied after the shaping; 0 for an unshaped edge, which
	// the probe does not saturate.
	ThroughputBytes float64
}

// PairRTT is the round trip of small datagrams between two peers.
type PairRTT struct {
	A, B     string
	P50, P99 int64
	AskedNs  int64 // both edges' latency
}

// ProbeReport is what `detsim testbed --probe` measured.
type ProbeReport struct {
	Scenario string
	Kernel   string
	Duration time.Duration
	// SmallDuration is the small datagrams' phase: Duration, or
	// wireSmallStretch times it on a network with a serialising wire.
	SmallDuration time.Duration
	Edges         []EdgeReport
	RTTs          []PairRTT
	// LineLateP50 and LineLateP99 are how much later than asked the
	// delay line wrote packets back: its cost in accuracy.
	LineLateP50, LineLateP99 int64
	LinePackets              int
	SetupNs, TeardownNs      int64
}

// Probe builds sc's network with no daemons and measures every edge with
// datagrams of its own, one phase after another, all edges at once.
func Probe(ctx context.Context, sc *scenarios.Scenario, cfg ProbeConfig) (*ProbeReport, error) {
	plan, err := NewPlan(sc, ImplSwimd)
	if err != nil {
		return nil, &InputError{err}
	}
	if err := Preflight(); err != nil {
		return nil, &InputError{err}
	}
	if cfg.Duration <= 0 {
		cfg.Duration = 10 * time.Second
	}
	_ = scratch.Sweep(os.TempDir(), spoolPrefix, nil)
	work, err := scratch.Dir(os.TempDir(), spoolPrefix)
	if err != nil {
		return nil, err
	}
	defer work.Remove()
	setup := time.Now()
	n, err := Build(plan)
	if err != nil {
		return nil, err
	}
	rep := &ProbeReport{Scenario: sc.Path, Kernel: kernelRelease(), Duration: cfg.Duration, SetupNs: int64(time.Since(setup))}
	defer func() {
		if n != nil {
			n.Close()
		}
	}()
	epoch := time.Now()
	clock := func() int64 { return int64(time.Since(epoch)) }
	logPath := filepath.Join(work.Path, "delays.tsv")
	line, err := startDelayLine(n.TUN, plan, clock, logPath)
	if err != nil {
		return nil, err
	}
	pr, err := newProber(plan, n, clock)
	if err != nil {
		line.stop()
		return nil, err
	}
	rep.SmallDuration = plan.smallPhase(cfg.Duration)
	for _, phase := range []int{phaseSmall, phaseLarge, phaseBlast} {
		if ctx.Err() != nil {
			break
		}
		d := cfg.Duration
		if phase == phaseSmall {
			d = rep.SmallDuration
		}
		pr.run(ctx, phase, d)
	}
	pr.close()
	if _, _, _, err := line.stop(); err != nil {
		return nil, err
	}
	teardown := time.Now()
	err = n.Close()
	n = nil
	rep.TeardownNs = int64(time.Since(teardown))
	if err != nil {
		return nil, err
	}
	pr.report(rep, cfg.Duration)
	if rep.LineLateP50, rep.LineLateP99, rep.LinePackets, err = lineLateness(logPath); err != nil {
		return nil, err
	}
	return rep, nil
}

// prober holds one UDP socket per peer, made inside its namespace.
type prober struct {
	plan  *Plan
	clock func() int64
	conns []*net.UDPConn
	wg    sync.WaitGroup

	mu      sync.Mutex
	delays  [][]int64 // per edge: one-way delays of small datagrams
	rtts    map[[2]int][]int64
	got     [4][]int // per phase, per edge: datagrams received
	sent    [4][]int // per phase, per edge
	gotBy   []int64  // per edge: blast bytes received within the window, headers counted
	window  [2]int64 // the blast's counting window
	blastOn bool
}

func newProber(p *Plan, n *Net, clock func() int64) (*prober, error) {
	pr := &prober{plan: p, clock: clock, rtts: map[[2]int][]int64{}, delays: make([][]int64, len(p.Edges)), gotBy: make([]int64, len(p.Edges))}
	for ph := range pr.got {
		pr.got[ph], pr.sent[ph] = make([]int, len(p.Edges)), make([]int, len(p.Edges))
	}
	for i := range p.IDs {
		var conn *net.UDPConn
		err := inNamespace(n.Peers[i], func() error {
			var err error
			conn, err = net.ListenUDP("udp4", net.UDPAddrFromAddrPort(netip.AddrPortFrom(tbnet.PeerAddr(i), probePort)))
			return err
		})
		if err != nil {
			pr.close()
			return nil, fmt.Errorf("testbed: probe socket of %s: %w", p.IDs[i], err)
		}
		conn.SetReadBuffer(8 << 20)
		pr.conns = append(pr.conns, conn)
	}
	for i := range pr.conns {
		pr.wg.Add(1)
		go pr.receive(i)
	}
	return pr, nil
}

func (pr *prober) close() {
	for _, c := range pr.conns {
		c.Close()
	}
	pr.wg.Wait()
}

// receive reads peer i's socket: it counts what arrives and echoes a
// small datagram's first arrival back, so its sender sees the round trip.
func (pr *prober) receive(i int) {
	defer pr.wg.Done()
	buf := make([]byte, 65536)
	for {
		n, from, err := pr.conns[i].ReadFromUDPAddrPort(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		now := pr.clock()
		if n < probeHeader || binary.BigEndian.Uint32(buf[0:4]) != probeMagic {
			continue
		}
		phase := int(buf[4])
		echo := buf[5] == 1
		k := int(binary.BigEndian.Uint16(buf[6:8]))
		sentAt := int64(binary.BigEndian.Uint64(buf[16:24]))
		if k >= len(pr.plan.Edges) || phase < phaseSmall || phase > phaseBlast {
			continue
		}
		pr.mu.Lock()
		switch {
		case echo: // a round trip's end: k is the edge it went out on
			e := pr.plan.Edges[k]
			key := [2]int{e.From, e.To}
			pr.rtts[key] = append(pr.rtts[key], now-sentAt)
		case phase == phaseBlast:
			if pr.blastOn && now >= pr.window[0] && now < pr.window[1] {
				pr.gotBy[k] += int64(n + 28)
			}
			pr.got[phase][k]++
		default:
			pr.got[phase][k]++
			if phase == phaseSmall {
				pr.delays[k] = append(pr.delays[k], now-sentAt)
			}
		}
		pr.mu.Unlock()
		if phase == phaseSmall && !echo {
			buf[5] = 1
			pr.conns[i].WriteToUDPAddrPort(buf[:n], from)
		}
	}
}

// run sends one phase on every edge at once for d, then waits for
// stragglers (the longest delay asked, plus a second).
func (pr *prober) run(ctx context.Context, phase int, d time.Duration) {
	var wg sync.WaitGroup
	var slowest int64
	start := pr.clock()
	if phase == phaseBlast {
		pr.mu.Lock()
		// Count from a quarter in, when queues have filled, to the end.
		pr.window = [2]int64{start + int64(d)/4, start + int64(d)}
		pr.blastOn = true
		pr.mu.Unlock()
	}
	for k, e := range pr.plan.Edges {
		slowest = max(slowest, e.LatencyNs+4*e.JitterStddevNs)
		size, every := probeSizing(phase, e)
		if every <= 0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			pr.send(ctx, phase, k, size, every, d)
		}()
	}
	wg.Wait()
	wait := time.NewTimer(time.Duration(slowest) + time.Second)
	defer wait.Stop()
	select {
	case <-wait.C:
	case <-ctx.Done():
	}
	if phase == phaseBlast {
		pr.mu.Lock()
		pr.blastOn = false
		pr.mu.Unlock()
	}
}

// probeSizing is a phase's datagram size and sending interval on e:
// small and large datagrams at most half the edge's rate, so queueing
// adds no loss; the blast at twice its rate, to measure the rate. On a
// serialising wire the small datagrams take at most wireSmallShare of
// it: each directed edge also carries the echoes of the reverse edge's
// small datagrams, so at half the rate each the wire ran full, and with
// no bucket to absorb the jitter of their arrivals they queued behind
// one another — the probe measured its own queue (a 80 ms wire at 8 000
// B/s read 116 ms, 2026-12-02 06:24), not the edge's delay.
func probeSizing(phase int, e Edge) (int, time.Duration) {
	rate := float64(e.RateBytes)
	interval := func(size int, share float64) time.Duration {
		if rate == 0 {
			return 0
		}
		return time.Duration(float64(size+28*fragments(size, e.MTUBytes)) / (rate * share) * float64(time.Second))
	}
	switch phase {
	case phaseSmall:
		share := 0.5
		if e.Serialised() {
			share = wireSmallShare
		}
		return smallBytes, max(time.Second/smallPerSecond, interval(smallBytes, share))
	case phaseLarge:
		return largeBytes, max(time.Second/10, interval(largeBytes, 0.5))
	case phaseBlast:
		if e.RateBytes == 0 {
			return blastBytes, 0
		}
		return blastBytes, interval(blastBytes, 2)
	}
	return 0, 0
}

// fragments is how many IPv4 fragments a UDP datagram of size bytes is at
// mtu, as Linux's ip_append_data cuts it: the 8-byte UDP header and the
// payload in pieces of (mtu − 20) rounded down to 8 bytes (fragment
// offsets count 8-byte units), but a last piece may fill all mtu − 20.
// Written from the kernel's rule for the probe's report, apart from the
// network model's own count.
func fragments(size int, mtu int64) int {
	left, room := int64(size+8), mtu-20
	k := 1
	for left > room {
		left -= room / 8 * 8
		k++
	}
	return k
}

func (pr *prober) send(ctx context.Context, phase, k, size int, every, d time.Duration) {
	e := pr.plan.Edges[k]
	to := netip.AddrPortFrom(tbnet.PeerAddr(e.To), probePort)
	buf := make([]byte, size)
	binary.BigEndian.PutUint32(buf[0:4], probeMagic)
	buf[4] = byte(phase)
	binary.BigEndian.PutUint16(buf[6:8], uint16(k))
	tick := time.NewTicker(every)
	defer tick.Stop()
	stop := time.NewTimer(d)
	defer stop.Stop()
	for seq := uint64(0); ; seq++ {
		binary.BigEndian.PutUint64(buf[8:16], seq)
		binary.BigEndian.PutUint64(buf[16:24], uint64(pr.clock()))
		if _, err := pr.conns[e.From].WriteToUDPAddrPort(buf, to); err == nil {
			pr.mu.Lock()
			pr.sent[phase][k]++
			pr.mu.Unlock()
		}
		select {
		case <-tick.C:
		case <-stop.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// report fills rep from what the prober counted.
func (pr *prober) report(rep *ProbeReport, d time.Duration) {
	p := pr.plan
	for k, e := range p.Edges {
		r := EdgeReport{From: p.IDs[e.From], To: p.IDs[e.To], Asked: e,
			SmallSent: pr.sent[phaseSmall][k], SmallGot: pr.got[phaseSmall][k],
			LargeSent: pr.sent[phaseLarge][k], LargeGot: pr.got[phaseLarge][k],
			LargeFragments: fragments(largeBytes, e.MTUBytes)}
		r.OneWayP50, r.OneWayP99 = quantiles(pr.delays[k])
		r.OneWayMean, r.OneWayStddev = meanStddev(pr.delays[k])
		if e.RateBytes > 0 {
			r.ThroughputBytes = float64(pr.gotBy[k]) / (float64(d) * 3 / 4 / float64(time.Second))
		}
		rep.Edges = append(rep.Edges, r)
		if e.From < e.To {
			if back := p.EdgeOf(e.To, e.From); back >= 0 {
				a, b := pr.rtts[[2]int{e.From, e.To}], pr.rtts[[2]int{e.To, e.From}]
				p50, p99 := quantiles(append(slices.Clone(a), b...))
				rep.RTTs = append(rep.RTTs, PairRTT{A: p.IDs[e.From], B: p.IDs[e.To], P50: p50, P99: p99, AskedNs: e.LatencyNs + p.Edges[back].LatencyNs})
			}
		}
	}
}

// quantiles returns the 50th and 99th percentiles (nearest rank).
func quantiles(xs []int64) (int64, int64) {
	if len(xs) == 0 {
		return -1, -1
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	at := func(q float64) int64 { return s[min(len(s)-1, int(math.Ceil(q*float64(len(s))))-1)] }
	return at(0.5), at(0.99)
}

// meanStddev is the mean and sample standard deviation of xs.
func meanStddev(xs []int64) (float64, float64) {
	if len(xs) < 2 {
		return math.NaN(), math.NaN()
	}
	var sum float64
	for _, x := range xs {
		sum += float64(x)
	}
	mean := sum / float64(len(xs))
	var sq float64
	for _, x := range xs {
		d := float64(x) - mean
		sq += d * d
	}
	return mean, math.Sqrt(sq / float64(len(xs)-1))
}

// lineLateness reads the delay log and returns how late, past the delay
// asked, the line wrote packets back (p50, p99) and how many it held.
func lineLateness(path string) (int64, int64, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, 0, err
	}
	defer f.Close()
	var late []int64
	sc := bufio.NewScanner(f)
	sc.Scan() // the header
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		if len(fields) != 7 {
			return 0, 0, 0, fmt.Errorf("%s: a line of %d fields", path, len(fields))
		}
		in, _ := strconv.ParseInt(fields[0], 10, 64)
		delay, _ := strconv.ParseInt(fields[5], 10, 64)
		out, _ := strconv.ParseInt(fields[6], 10, 64)
		late = append(late, out-in-delay)
	}
	if err := sc.Err(); err != nil {
		return 0, 0, 0, err
	}
	p50, p99 := quantiles(late)
	return p50, p99, len(late), nil
}

// Print writes the report as the table docs/testbed.md holds.
func (r *ProbeReport) Print(w io.Writer) {
	ms := func(ns int64) string {
		if ns < 0 {
			return "-"
		}
		return strconv.FormatFloat(float64(ns)/1e6, 'f', 1, 64)
	}
	pct := func(got, sent int) string {
		if sent == 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f%% of %d", 100*float64(sent-got)/float64(sent), sent)
	}
	fmt.Fprintf(w, "probe     %s on kernel %s, %v per phase%s\n", r.Scenario, r.Kernel, r.Duration, r.smallNote())
	fmt.Fprintf(w, "network   built in %v, removed in %v\n", time.Duration(r.SetupNs).Round(time.Millisecond), time.Duration(r.TeardownNs).Round(time.Millisecond))
	fmt.Fprintln(w, "| edge | one-way asked (ms) | one-way mean ± sd (ms) | one-way p50 / p99 (ms) | loss asked | loss of 100 B | loss of 16 000 B (fragments; asked 1−(1−p)^k) | rate asked | throughput (of rate × (1−p)) |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|")
	for _, e := range r.Edges {
		p := float64(e.Asked.LossPPM) / 1e6
		expectLarge := 1 - math.Pow(1-p, float64(e.LargeFragments))
		rate, thr := "unshaped", "-"
		if e.Asked.RateBytes > 0 {
			rate = fmt.Sprintf("%d B/s", e.Asked.RateBytes)
			thr = fmt.Sprintf("%.0f B/s (%.1f%%)", e.ThroughputBytes, 100*e.ThroughputBytes/(float64(e.Asked.RateBytes)*(1-p)))
		}
		fmt.Fprintf(w, "| %s→%s | %s ± %s | %.1f ± %.1f | %s / %s | %.1f%% | %s | %s (%d; %.1f%%) | %s | %s |\n",
			e.From, e.To, ms(e.Asked.LatencyNs), ms(e.Asked.JitterStddevNs), e.OneWayMean/1e6, e.OneWayStddev/1e6, ms(e.OneWayP50), ms(e.OneWayP99),
			100*p, pct(e.SmallGot, e.SmallSent), pct(e.LargeGot, e.LargeSent), e.LargeFragments, 100*expectLarge, rate, thr)
	}
	if len(r.RTTs) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "| pair | RTT asked (ms) | RTT p50 / p99 (ms) |")
		fmt.Fprintln(w, "|---|---|---|")
		for _, p := range r.RTTs {
			fmt.Fprintf(w, "| %s↔%s | %s | %s / %s |\n", p.A, p.B, ms(p.AskedNs), ms(p.P50), ms(p.P99))
		}
	}
	fmt.Fprintf(w, "\ndelay line: %d packets; written back later than asked by p50 %s ms, p99 %s ms\n", r.LinePackets, strconv.FormatFloat(float64(r.LineLateP50)/1e6, 'f', 3, 64), strconv.FormatFloat(float64(r.LineLateP99)/1e6, 'f', 3, 64))
}

// Derived is the link policy of one edge as the probe measured it, in
// the scenario's units: what a calibration scenario gives the network
// model, so that the model is fed what the kernel did rather than what
// the testbed was asked (issue 19, item 5).
type Derived struct {
	From, To string
	// LatencyNs is the mean one-way delay of small datagrams. Nothing is
	// taken off for serialisation: HTB is a token bucket, which lets a
	// packet that finds tokens through at once, and the probe's small
	// datagrams (sent at under half the rate) always do; so does the
	// model's bucket, which the configuration's burst_bytes asks for. On
	// a serialising wire (burst_bytes 0, paced by the delay line) each
	// small datagram's bytes / rate is taken off, since the model's wire
	// charges it again.
	LatencyNs int64
	// JitterStddevNs is the delays' sample standard deviation.
	JitterStddevNs int64
	// LossPPM is the small datagrams' loss: one fragment each, so the
	// per-packet loss.
	LossPPM int64
	// BandwidthBps is the throughput over (1 − the measured loss), bytes
	// per second, headers counted; 0 when the edge was not saturated.
	BandwidthBps int64
	// SmallSent counts the datagrams behind LatencyNs, JitterStddevNs
	// and LossPPM.
	SmallSent int
}

// Derive turns the report into measured link policies, one per edge.
func (r *ProbeReport) Derive() []Derived {
	var out []Derived
	for _, e := range r.Edges {
		d := Derived{From: e.From, To: e.To, SmallSent: e.SmallSent}
		loss := 0.0
		if e.SmallSent > 0 {
			loss = float64(e.SmallSent-e.SmallGot) / float64(e.SmallSent)
		}
		d.LossPPM = int64(math.Round(loss * 1e6))
		if e.ThroughputBytes > 0 {
			d.BandwidthBps = int64(math.Round(e.ThroughputBytes / (1 - loss)))
		}
		mean := e.OneWayMean
		if e.Asked.Serialised() {
			// The delay line's wire held each small datagram its bytes /
			// rate before its delay, as the model's wire will again.
			mean -= float64(smallBytes+28*fragments(smallBytes, e.Asked.MTUBytes)) / float64(e.Asked.RateBytes) * 1e9
		}
		d.LatencyNs = int64(math.Round(mean/1e5)) * 1e5 // 0.1 ms
		d.JitterStddevNs = int64(math.Round(e.OneWayStddev/1e5)) * 1e5
		out = append(out, d)
	}
	return out
}

// WriteLinks writes the derived policies as [[links]] tables a scenario
// can hold (a calibration scenario extending the testbed's configuration
// overrides each edge's link fields with them), each with the counts
// behind it. Fields the probe does not measure (mtu_bytes, the queue) are
// left to the scenario extended.
func (r *ProbeReport) WriteLinks(w io.Writer) {
	fmt.Fprintf(w, "# Measured by detsim testbed --probe %s (%v per phase%s, kernel %s).\n", r.Scenario, r.Duration, r.smallNote(), r.Kernel)
	fmt.Fprintln(w, "# No cold dial and no reorder draw: the kernel's UDP has neither.")
	for _, d := range r.Derive() {
		fmt.Fprintf(w, "\n[[links]] # %d small datagrams\nfrom = %q\nto = %q\nlatency_ns = %d\njitter_stddev_ns = %d\nloss_prob_ppm = %d\n", d.SmallSent, d.From, d.To, d.LatencyNs, d.JitterStddevNs, d.LossPPM)
		if d.BandwidthBps > 0 {
			fmt.Fprintf(w, "bandwidth_bps = %d\n", d.BandwidthBps)
		}
		fmt.Fprintln(w, "reorder_prob_ppm = 0\ncold_dial_penalty_ns = 0")
	}
}

// smallNote says how long the small datagrams' phase was when a
// serialising wire stretched it.
func (r *ProbeReport) smallNote() string {
	if r.SmallDuration == r.Duration {
		return ""
	}
	return fmt.Sprintf(" (the small datagrams' %v: the network has a serialising wire)", r.SmallDuration)
}

// smallPhase is how long the probe sends its small datagrams when each
// other phase lasts d: wireSmallStretch times d on a network with a
// serialising wire, whose small datagrams take a tenth of the share they
// take elsewhere (probeSizing).
func (p *Plan) smallPhase(d time.Duration) time.Duration {
	if slices.ContainsFunc(p.Edges, Edge.Serialised) {
		return d * wireSmallStretch
	}
	return d
}
