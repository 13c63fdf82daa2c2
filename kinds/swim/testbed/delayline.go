package testbed

import (
	"bufio"
	"container/heap"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"net/netip"
	"os"
	"sync"
	"time"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/kinds/swim/testbed/tbnet"
)

// The delay line holds every packet the router forwards between two
// peers for a delay of its edge's latency plus a normal draw of its
// jitter (clamped at zero), then hands it back to the kernel. It is the
// testbed's netem, which this kernel lacks, written apart from package
// network on purpose: its draws come from the operating system's
// randomness (crypto/rand), not from the scenario's seed, and its rules
// are netem's, not the model's:
//
//   - the delay is per packet, so the fragments of one datagram each
//     draw their own, and a datagram arrives with its latest fragment;
//   - packets on one edge may overtake one another when their draws say
//     so (netem's jitter reorders too); there is no separate reorder;
//   - a LatencySpike scales the delay (latency and jitter together) of
//     packets entering while it lasts; a RelayBuffer holds them at least
//     its floor since entering;
//   - at most MaxHeldBytes wait at once; a packet beyond it is dropped
//     and counted, as a router with a full buffer drops;
//   - an edge whose burst_bytes is 0 (a serialising wire, which HTB, a
//     token bucket, cannot be) is serialised here instead: each packet
//     waits for the one ahead of it on the edge's wire, then holds the
//     wire for its bytes / rate, and only then starts its delay, as a
//     slow access line clocks a packet out before it travels. A packet
//     that would find more than the edge's queue bytes waiting is
//     dropped and counted, as the FIFO behind HTB drops. The rule is
//     the line's, per packet (so a datagram is on time when its last
//     fragment is), written apart from the model's step 4.
//
// Every packet is logged: when it entered, its edge, its size, the
// standard-normal draw, the hold asked for (its delay, plus on a
// serialised edge its wait for and time on the wire), and when it was
// written back (testbed/delays.tsv in the bundle); how late it was
// written back is also counted, for the manifest's summary of the
// line's own error.
type delayLine struct {
	tun   *os.File
	clock func() int64
	plan  *Plan

	mu       sync.Mutex
	edges    []lineEdge // by plan edge index
	held     packetHeap
	bytes    int64
	wake     chan struct{}
	dropped  int64 // packets refused for MaxHeldBytes
	wireFull int64 // packets refused for a serialised edge's full queue
	foreign  int64 // packets not between two peers, passed at once
	// unreachable counts the ICMP destination-unreachable packets
	// between two peers: a datagram that met no bound socket.
	unreachable int64
	closed      bool

	// late is how late each packet was written back against its due
	// instant: the writer's alone until stop, then read.
	late lateHist

	log     *bufio.Writer
	logFile *os.File
	done    sync.WaitGroup
	err     error // the first read or write error
}

// MaxHeldBytes bounds what the delay line holds at once.
const MaxHeldBytes = 256 << 20

// MaxHoldNs bounds one packet's hold, whatever the draws and a spike.
const MaxHoldNs = 60_000_000_000

// lineEdge is one edge's delay parameters and active mutations.
type lineEdge struct {
	latencyNs, jitterNs int64
	spikeX100           int64 // 100: none
	spikeUntil          int64
	floorNs             int64
	floorUntil          int64
	// A serialised edge (burst_bytes 0): its rate in bytes/s (0: HTB
	// shapes it, or nothing does), its queue's bytes, and when its wire
	// is free again.
	wireRate, wireQueue, wireFreeNs int64
}

// packet is one held packet.
type packet struct {
	data    []byte
	edge    int
	inNs    int64
	outNs   int64 // when it is due out
	z       float64
	delayNs int64
	seq     uint64
}

type packetHeap []*packet

// heap.Interface by (due time, arrival order), alike in shape to the live
// node's timer heap: each orders its own items.
func (h packetHeap) Len() int { return len(h) }
func (h packetHeap) Less(i, j int) bool {
	if h[i].outNs != h[j].outNs {
		return h[i].outNs < h[j].outNs
	}
	return h[i].seq < h[j].seq
}
func (h packetHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *packetHeap) Push(x any)   { *h = append(*h, x.(*packet)) }
func (h *packetHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return x
}

// delayLogHeader is the first line of the delay log.
const delayLogHeader = "in_ns\tfrom\tto\tbytes\tz\tdelay_ns\tout_ns\n"

// startDelayLine begins reading the plan's TUN device, logging to
// logPath (which must not exist).
func startDelayLine(tun *os.File, p *Plan, clock func() int64, logPath string) (*delayLine, error) {
	f, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	d := &delayLine{tun: tun, clock: clock, plan: p, wake: make(chan struct{}, 1), logFile: f, log: bufio.NewWriterSize(f, 64<<10)}
	d.log.WriteString(delayLogHeader)
	for _, e := range p.Edges {
		le := lineEdge{latencyNs: e.LatencyNs, jitterNs: e.JitterStddevNs, spikeX100: 100}
		if e.Serialised() {
			le.wireRate, le.wireQueue = e.RateBytes, e.QueueBytes
		}
		d.edges = append(d.edges, le)
	}
	d.done.Add(2)
	go d.reader()
	go d.writer()
	return d, nil
}

// normal is one standard-normal draw from the operating system's
// randomness (Box–Muller over two 53-bit uniforms).
func normal() float64 {
	var b [16]byte
	rand.Read(b[:])
	u1 := (float64(binary.LittleEndian.Uint64(b[:8])>>11) + 0.5) / (1 << 53)
	u2 := float64(binary.LittleEndian.Uint64(b[8:])>>11) / (1 << 53)
	return math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2)
}

// edgeOf maps a packet to its plan edge by its IPv4 source and
// destination, or -1.
func (d *delayLine) edgeOf(pkt []byte) int {
	if len(pkt) < 20 || pkt[0]>>4 != 4 {
		return -1
	}
	src := tbnet.PeerIndex(netip.AddrFrom4([4]byte(pkt[12:16])))
	dst := tbnet.PeerIndex(netip.AddrFrom4([4]byte(pkt[16:20])))
	if src < 0 || dst < 0 {
		return -1
	}
	return d.plan.EdgeOf(src, dst)
}

// isUnreachable reports whether pkt, an IPv4 packet, is an ICMP
// destination unreachable: how a peer's kernel answers a datagram for a
// port no socket is bound to (a daemon not yet up, or killed).
func isUnreachable(pkt []byte) bool {
	ihl := int(pkt[0]&0x0f) * 4
	return len(pkt) > ihl && ihl >= 20 && pkt[9] == 1 && pkt[ihl] == 3
}

// unreachables is how many ICMP destination-unreachable packets have
// passed between peers so far.
func (d *delayLine) unreachables() int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.unreachable
}

func (d *delayLine) reader() {
	defer d.done.Done()
	buf := make([]byte, 65536)
	var seq uint64
	for {
		n, err := d.tun.Read(buf)
		if err != nil {
			if !errors.Is(err, os.ErrClosed) {
				d.fail(fmt.Errorf("delay line: reading: %w", err))
			}
			return
		}
		now := d.clock()
		pkt := append([]byte(nil), buf[:n]...)
		k := d.edgeOf(pkt)
		d.mu.Lock()
		if k < 0 {
			d.foreign++
			d.mu.Unlock()
			d.tun.Write(pkt) // not ours to delay (no such packet is expected)
			continue
		}
		if isUnreachable(pkt) {
			d.unreachable++
		}
		if d.bytes+int64(n) > MaxHeldBytes {
			d.dropped++
			d.mu.Unlock()
			continue
		}
		e := &d.edges[k]
		z := normal()
		delay := max(e.latencyNs+int64(math.Round(z*float64(e.jitterNs))), 0)
		if now < e.spikeUntil {
			delay = delay * e.spikeX100 / 100
		}
		onWire, ok := e.serialise(now, int64(n))
		if !ok {
			d.wireFull++
			d.mu.Unlock()
			continue
		}
		delay += onWire
		if now < e.floorUntil {
			delay = max(delay, e.floorNs)
		}
		delay = min(delay, MaxHoldNs)
		seq++
		heap.Push(&d.held, &packet{data: pkt, edge: k, inNs: now, outNs: now + delay, z: z, delayNs: delay, seq: seq})
		d.bytes += int64(n)
		d.mu.Unlock()
		select {
		case d.wake <- struct{}{}:
		default:
		}
	}
}

// serialise puts a packet of n bytes entering at now on a serialised
// edge's wire and returns how long it waits for and holds the wire (0 on
// an edge that is not serialised), or false when more than the edge's
// queue bytes would be waiting with it, and it is dropped.
func (e *lineEdge) serialise(now, n int64) (int64, bool) {
	if e.wireRate <= 0 {
		return 0, true
	}
	start := max(now, e.wireFreeNs)
	if waiting := (start - now) * e.wireRate / 1_000_000_000; waiting+n > e.wireQueue {
		return 0, false
	}
	e.wireFreeNs = start + n*1_000_000_000/e.wireRate
	return e.wireFreeNs - now, true
}

func (d *delayLine) writer() {
	defer d.done.Done()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		d.mu.Lock()
		if d.closed {
			d.mu.Unlock()
			return
		}
		var due []*packet
		now := d.clock()
		for d.held.Len() > 0 && d.held[0].outNs <= now {
			p := heap.Pop(&d.held).(*packet)
			d.bytes -= int64(len(p.data))
			due = append(due, p)
		}
		wait := time.Hour
		if d.held.Len() > 0 {
			wait = time.Duration(d.held[0].outNs - now)
		}
		d.mu.Unlock()
		for _, p := range due {
			if _, err := d.tun.Write(p.data); err != nil {
				if errors.Is(err, os.ErrClosed) {
					return
				}
				// The kernel refused one packet (no route, a full queue):
				// it is lost, as on a wire.
			}
			e := d.plan.Edges[p.edge]
			out := d.clock()
			d.late.add(out - p.outNs)
			fmt.Fprintf(d.log, "%d\t%d\t%d\t%d\t%.6f\t%d\t%d\n", p.inNs, e.From, e.To, len(p.data), p.z, p.delayNs, out)
		}
		if len(due) > 0 {
			continue
		}
		timer.Reset(wait)
		select {
		case <-timer.C:
		case <-d.wake:
			if !timer.Stop() {
				select {
				case <-timer.C:
				default:
				}
			}
		}
	}
}

func (d *delayLine) fail(err error) {
	d.mu.Lock()
	if d.err == nil {
		d.err = err
	}
	d.mu.Unlock()
}

// spike scales the delay of packets entering edge k until untilNs.
func (d *delayLine) spike(k int, factorX100, untilNs int64) {
	d.mu.Lock()
	d.edges[k].spikeX100, d.edges[k].spikeUntil = factorX100, untilNs
	d.mu.Unlock()
}

// floor holds packets entering edge k at least floorNs until untilNs.
func (d *delayLine) floor(k int, floorNs, untilNs int64) {
	d.mu.Lock()
	d.edges[k].floorNs, d.edges[k].floorUntil = floorNs, untilNs
	d.mu.Unlock()
}

// lateness summarises how late the line wrote packets back, against
// the smallest latency among edges. Call after stop.
func (d *delayLine) lateness(edges []bundle.TestbedEdge) bundle.TestbedLateness {
	return d.late.summary(edges)
}

// stop ends the delay line: the TUN device closes (what it held is
// lost, as the run is over) and the log is flushed. It returns the
// first error the line met and its counts: packets dropped for
// MaxHeldBytes, for a serialised edge's full queue, and passed as not
// between two peers.
func (d *delayLine) stop() (dropped, wireFull, foreign int64, err error) {
	d.mu.Lock()
	d.closed = true
	d.mu.Unlock()
	select {
	case d.wake <- struct{}{}:
	default:
	}
	d.tun.Close()
	d.done.Wait()
	werr := d.log.Flush()
	if cerr := d.logFile.Close(); werr == nil {
		werr = cerr
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.err == nil && werr != nil {
		d.err = fmt.Errorf("delay line: writing its log: %w", werr)
	}
	return d.dropped, d.wireFull, d.foreign, d.err
}
