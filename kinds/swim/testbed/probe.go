package testbed

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/netip"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/internal/supervise"
	"github.com/detsim/detsim/kinds/swim/testbed/tbnet"
	"github.com/detsim/detsim/scenarios"
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
	// OneWayP25 and OneWayP75 are its quartiles, the robust spread
	// --derive fits the jitter to.
	OneWayP50, OneWayP99 int64
	OneWayP25, OneWayP75 int64
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
	// OfferedBytes is what the probe managed to send per second over the
	// same window, headers counted: twice the rate asked when its sender
	// kept up, less when the machine could not send faster (its own
	// ceiling, which is then what ThroughputBytes measured).
	OfferedBytes float64
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
	// LineLate is how much later than asked the delay line wrote
	// packets back: its cost in accuracy.
	LineLate            bundle.TestbedLateness
	SetupNs, TeardownNs int64
}

// Probe builds sc's network with no daemons and measures every edge with
// datagrams of its own, one phase after another, all edges at once.
func Probe(ctx context.Context, sc *scenarios.Scenario, cfg ProbeConfig) (*ProbeReport, error) {
	plan, err := NewPlan(sc, ImplSwimd)
	if err != nil {
		return nil, &InputError{Err: err}
	}
	if err := Preflight(); err != nil {
		return nil, &InputError{Err: err}
	}
	if cfg.Duration <= 0 {
		cfg.Duration = 10 * time.Second
	}
	work, err := supervise.Spool(spoolPrefix)
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
	rep.LineLate = line.lateness(plan.Realised())
	teardown := time.Now()
	err = n.Close()
	n = nil
	rep.TeardownNs = int64(time.Since(teardown))
	if err != nil {
		return nil, err
	}
	pr.report(rep, cfg.Duration)
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
	sentBy  []int64  // per edge: blast bytes sent within the window, headers counted
	window  [2]int64 // the blast's counting window
	blastOn bool
}

func newProber(p *Plan, n *Net, clock func() int64) (*prober, error) {
	pr := &prober{plan: p, clock: clock, rtts: map[[2]int][]int64{}, delays: make([][]int64, len(p.Edges)), gotBy: make([]int64, len(p.Edges)), sentBy: make([]int64, len(p.Edges))}
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
		now := pr.clock()
		binary.BigEndian.PutUint64(buf[8:16], seq)
		binary.BigEndian.PutUint64(buf[16:24], uint64(now))
		if _, err := pr.conns[e.From].WriteToUDPAddrPort(buf, to); err == nil {
			pr.mu.Lock()
			pr.sent[phase][k]++
			if phase == phaseBlast && now >= pr.window[0] && now < pr.window[1] {
				pr.sentBy[k] += int64(size + 28*fragments(size, e.MTUBytes))
			}
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
		r.summariseDelays(pr.delays[k])
		if e.RateBytes > 0 {
			window := float64(d) * 3 / 4 / float64(time.Second)
			r.ThroughputBytes = float64(pr.gotBy[k]) / window
			r.OfferedBytes = float64(pr.sentBy[k]) / window
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

// summariseDelays fills the one-way delay figures from the small
// datagrams' delays, ns.
func (r *EdgeReport) summariseDelays(delays []int64) {
	q := quantilesOf(delays, 0.25, 0.5, 0.75, 0.99)
	r.OneWayP25, r.OneWayP50, r.OneWayP75, r.OneWayP99 = q[0], q[1], q[2], q[3]
	r.OneWayMean, r.OneWayStddev = meanStddev(delays)
}

// quantiles returns the 50th and 99th percentiles (nearest rank).
func quantiles(xs []int64) (int64, int64) {
	q := quantilesOf(xs, 0.5, 0.99)
	return q[0], q[1]
}

// quantilesOf returns xs's nearest-rank qs, each -1 when xs is empty.
func quantilesOf(xs []int64, qs ...float64) []int64 {
	out := make([]int64, len(qs))
	s := slices.Clone(xs)
	slices.Sort(s)
	for i, q := range qs {
		out[i] = -1
		if len(s) > 0 {
			out[i] = s[max(0, min(len(s)-1, int(math.Ceil(q*float64(len(s))))-1))]
		}
	}
	return out
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
	l := r.LineLate
	fmt.Fprintf(w, "\ndelay line: %d packets; written back later than asked by p50 %s ms, p99 %s ms, max %s ms\n", l.Packets, strconv.FormatFloat(float64(l.P50Ns)/1e6, 'f', 3, 64), strconv.FormatFloat(float64(l.P99Ns)/1e6, 'f', 3, 64), strconv.FormatFloat(float64(l.MaxNs)/1e6, 'f', 3, 64))
	if mark := LatenessMark(l); mark != "" {
		fmt.Fprintf(w, "marked: %s: what the probe measured has the testbed's own error in it\n", mark)
	}
}

// Derived is the link policy of one edge as the probe measured it, in
// the scenario's units: what a calibration scenario gives the network
// model, so that the model is fed what the kernel did rather than what
// the testbed was asked (issue 19, item 5). The model's delay is
// latency + N(0, jitter²); the fit is made to the body of what was
// measured, and a tail the Gaussian cannot carry, or a throughput that
// was the probe's own ceiling, is said, never written as the link's
// (docs/testbed.md, "Measured, not assumed").
type Derived struct {
	From, To string
	// LatencyNs is the median one-way delay of small datagrams (-1, with
	// JitterStddevNs, when none arrived, and then Tail says so): the
	// Gaussian's centre, which a heavy upper tail (the delay line late
	// on a loaded machine) does not pull as it pulls the mean. Nothing
	// is taken off for serialisation: HTB is a token bucket, which lets
	// a packet that finds tokens through at once, and the probe's small
	// datagrams (sent at under half the rate) always do; so does the
	// model's bucket, which the configuration's burst_bytes asks for. On
	// a serialising wire (burst_bytes 0, paced by the delay line) each
	// small datagram's bytes / rate is taken off, since the model's wire
	// charges it again.
	LatencyNs int64
	// JitterStddevNs is the delays' interquartile range over 1.349 (a
	// normal's IQR in standard deviations): the spread of the body,
	// which a few very late packets do not inflate as they inflate the
	// sample standard deviation.
	JitterStddevNs int64
	// Tail, when set, says the measured p99 lies further above the
	// median than the fitted Gaussian's p99 (median + 2.326 jitter) by
	// more than heavyTailSlack, and what jitter a Gaussian matching p50
	// and p99 would need instead: the model cannot carry that tail, and
	// it is not written.
	Tail string
	// LossPPM is the small datagrams' loss: one fragment each, so the
	// per-packet loss.
	LossPPM int64
	// BandwidthBps is the throughput over (1 − the measured loss), bytes
	// per second, headers counted; 0 when the edge was not saturated or
	// the throughput was the probe's own sending ceiling (Ceiling says
	// which), and then the scenario extended keeps its own.
	BandwidthBps int64
	// Ceiling, when set, says why the throughput was not the link's: the
	// probe could not offer clearly more than got through.
	Ceiling string
	// SmallSent counts the datagrams behind LatencyNs, JitterStddevNs
	// and LossPPM.
	SmallSent int
}

// gaussP99 is a standard normal's 99th percentile, and normalIQR its
// interquartile range.
const (
	gaussP99  = 2.3263
	normalIQR = 1.349
)

// heavyTailSlack is how far the measured p99 may lie beyond the fitted
// Gaussian's before the tail is called heavier than it: a quarter of
// the predicted distance from the median, or half a millisecond,
// whichever is more (two sampling errors of a p99 from a few thousand
// datagrams, and the delay line's own lateness on an idle machine).
func heavyTailSlack(predicted float64) float64 { return max(0.25*predicted, 0.5e6) }

// saturatedShare: the edge, not the probe, limited the throughput only
// when the probe offered at least this many times what arrived, after
// the measured loss; asked to offer twice the rate, a probe that kept up
// offers about 2×.
const saturatedShare = 1.25

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
		switch {
		case e.ThroughputBytes <= 0:
		case e.OfferedBytes*(1-loss) < saturatedShare*e.ThroughputBytes:
			d.Ceiling = fmt.Sprintf("bandwidth not derived: the probe offered %.0f B/s and %.0f B/s arrived, so the throughput is the probe's own sending ceiling, not the link's", e.OfferedBytes, e.ThroughputBytes)
		default:
			d.BandwidthBps = int64(math.Round(e.ThroughputBytes / (1 - loss)))
		}
		if e.OneWayP50 < 0 {
			d.LatencyNs, d.JitterStddevNs = -1, -1
			d.Tail = "no small datagram arrived: latency and jitter not derived"
			out = append(out, d)
			continue
		}
		centre := float64(e.OneWayP50)
		if e.Asked.Serialised() {
			// The delay line's wire held each small datagram its bytes /
			// rate before its delay, as the model's wire will again.
			centre -= float64(smallBytes+28*fragments(smallBytes, e.Asked.MTUBytes)) / float64(e.Asked.RateBytes) * 1e9
		}
		sigma := float64(e.OneWayP75-e.OneWayP25) / normalIQR
		d.LatencyNs = int64(math.Round(centre/1e5)) * 1e5 // 0.1 ms
		d.JitterStddevNs = int64(math.Round(sigma/1e5)) * 1e5
		predicted := gaussP99 * sigma
		if above := float64(e.OneWayP99 - e.OneWayP50); above > predicted+heavyTailSlack(predicted) {
			d.Tail = fmt.Sprintf("the tail is heavier than a Gaussian fits: p99 %.1f ms above the median, where jitter %.1f ms puts it %.1f ms above; a Gaussian matching p50 and p99 would need jitter %.1f ms, which would widen the body",
				above/1e6, sigma/1e6, predicted/1e6, above/gaussP99/1e6)
		}
		out = append(out, d)
	}
	return out
}

// WriteLinks writes the derived policies as [[links]] tables a scenario
// can hold (a calibration scenario extending the testbed's configuration
// overrides each edge's link fields with them), each with the counts
// behind it and what was not derived, and why. Fields the probe does not
// measure (mtu_bytes, the queue) are left to the scenario extended.
func (r *ProbeReport) WriteLinks(w io.Writer) {
	fmt.Fprintf(w, "# Measured by detsim testbed --probe %s (%v per phase%s, kernel %s).\n", r.Scenario, r.Duration, r.smallNote(), r.Kernel)
	fmt.Fprintln(w, "# latency_ns is the median one-way delay, jitter_stddev_ns its interquartile range / 1.349.")
	fmt.Fprintln(w, "# No cold dial and no reorder draw: the kernel's UDP has neither.")
	if mark := LatenessMark(r.LineLate); mark != "" {
		fmt.Fprintf(w, "# Marked: %s.\n", mark)
	}
	for _, d := range r.Derive() {
		fmt.Fprintf(w, "\n[[links]] # %d small datagrams\n", d.SmallSent)
		for _, note := range []string{d.Tail, d.Ceiling} {
			if note != "" {
				fmt.Fprintf(w, "# %s.\n", note)
			}
		}
		fmt.Fprintf(w, "from = %q\nto = %q\n", d.From, d.To)
		if d.LatencyNs >= 0 {
			fmt.Fprintf(w, "latency_ns = %d\njitter_stddev_ns = %d\n", d.LatencyNs, d.JitterStddevNs)
		}
		fmt.Fprintf(w, "loss_prob_ppm = %d\n", d.LossPPM)
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
