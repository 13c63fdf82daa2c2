// Package node runs one kinds/swim/swim state machine as a real node: a UDP
// socket, the wall clock, timers on real time and the codec's bytes on the
// wire, authenticated with a cluster key and replay-checked (Seal, Open,
// the replay window) unless the caller asked for none. kinds/swim/cmd/swimd
// runs one; package live runs one per scenario peer. It is outside the
// determinism fence by design: it reads the clock, starts goroutines and
// does socket I/O.
//
// One goroutine owns the swim.Node and makes every call into it, so the
// state machine sees what the simulator gives it: one call at a time, with
// nondecreasing times. Time is nanoseconds since the run's shared start
// instant (Config.Clock), the value written as virtual_time_ns.
package node

import (
	"container/heap"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/kinds/swim/swim"
	"github.com/detsim/detsim/kinds/swim/testbed/tbnet"
)

// Tag is the kind tag of the node's records: the same "swim" as the
// simulator's swim kind.
const Tag = "swim"

// Route carries one datagram from the node to the member to. It returns
// "" when the datagram was handed on, else the reason the send failed
// (passed to swim's SendFailed). codecLen is the length of the codec's
// bytes inside the datagram (without the tag). now is the send's time.
// It is called from the node's goroutine.
type Route func(to string, datagram []byte, codecLen int, now int64, id uint64) string

// Config describes one node.
type Config struct {
	ID string
	// Peers are the declared member ids, sorted, the node's own included
	// (swim.New's peers).
	Peers []string
	Swim  swim.Config
	Start swim.Start
	// Rand is the node's randomness (in live, the simulator's own host
	// substream for the peer, so the draws match a sim run's).
	Rand swim.Rand
	// Resume continues an existing state machine instead of building one
	// (PeerResurrect with preserve_state): Start, Swim and Rand are then
	// unused.
	Resume *swim.Node
	// Conn is the node's bound socket; the node closes it when it stops.
	Conn *net.UDPConn
	// Key is the cluster key (CheckKey), nil for none: every datagram is
	// then taken on its word, which only --insecure asks for.
	Key []byte
	// Wall returns the wall clock in Unix ns: the sequence numbers of the
	// replay window (replay.go). Nil: time.Now.
	Wall func() int64
	// Clock returns nanoseconds since the run's shared start instant. It
	// must be monotone.
	Clock func() int64
	// TickPeriodNs is the tick period; FirstTickNs is when the first tick
	// falls (in Clock's time).
	TickPeriodNs, FirstTickNs int64
	// Out receives every record as one events.ndjson line (trailing
	// newline included), in nondecreasing virtual_time_ns, from the
	// node's goroutine. The line is the callee's.
	Out func(line []byte)
	// Route sends datagrams. Nil sends them straight to Book's address.
	// It is given the sender's message id, which is not on the wire.
	Route Route
	// ReceivedID, when set, names the message id of a datagram as read
	// from the socket (0 when unknown): an in-process run's shaper knows
	// it beside the bytes, as the simulator's engine does, so the node's
	// message_received can carry it. A node of its own (swimd) has none.
	ReceivedID func(datagram []byte) uint64
	// Book maps member ids to their addresses, for the default Route.
	Book map[string]netip.AddrPort
}

// Node is one running node.
type Node struct {
	cfg  Config
	sw   *swim.Node
	conn *net.UDPConn
	env  bundle.Envelope

	// Loop state: touched only by the loop goroutine.
	now      int64
	timers   timerHeap
	failed   []failure
	sendBuf  []byte
	drops    int64
	lineBuf  []byte
	nextTick int64
	seq      sequencer
	replay   *replay

	inbound  chan datagram
	snapReq  chan chan []byte
	stop     chan struct{}
	stopOnce sync.Once
	done     chan struct{} // loop exited
	readDone chan struct{} // reader exited
}

type datagram struct {
	data []byte
	src  netip.AddrPort
}

type failure struct{ to, reason string }

// New builds a node on cfg; Run starts it.
func New(cfg Config) (*Node, error) {
	if err := CheckKey(cfg.Key); err != nil {
		return nil, err
	}
	if cfg.Conn == nil || cfg.Clock == nil || cfg.Out == nil || cfg.TickPeriodNs <= 0 {
		return nil, errors.New("node: Conn, Clock, Out and a positive TickPeriodNs are required")
	}
	if cfg.Wall == nil {
		cfg.Wall = func() int64 { return time.Now().UnixNano() }
	}
	n := &Node{
		cfg:      cfg,
		conn:     cfg.Conn,
		env:      bundle.NewEnvelope(cfg.ID, Tag),
		nextTick: cfg.FirstTickNs,
		inbound:  make(chan datagram, 256),
		snapReq:  make(chan chan []byte),
		stop:     make(chan struct{}),
		done:     make(chan struct{}),
		readDone: make(chan struct{}),
	}
	if cfg.Resume != nil {
		n.sw = cfg.Resume
	} else {
		n.sw = swim.New(cfg.ID, cfg.Swim, cfg.Start, cfg.Peers, cfg.Rand)
	}
	// A sender the replay window remembers is a member the state machine
	// may hold: the same bound.
	n.replay = newReplay(max(n.sw.MaxMembers(), 1))
	n.sw.SetOutput(n)
	return n, nil
}

// Start launches the node's loop and socket reader.
func (n *Node) Start() {
	go n.read()
	go n.loop()
}

// State returns the state machine, for a later Resume. Call it only after
// Stop.
func (n *Node) State() *swim.Node { return n.sw }

// Stop ends the node: the loop finishes the call it is in, the socket is
// closed and Stop returns once both goroutines have exited. Calling it
// again does nothing.
func (n *Node) Stop() {
	n.stopOnce.Do(func() { close(n.stop) })
	<-n.done
	_ = n.conn.Close()
	<-n.readDone
}

// Snapshot returns the node's tier-2 snapshot, taken between two calls of
// its loop, or nil once the node has stopped.
func (n *Node) Snapshot() []byte {
	reply := make(chan []byte, 1)
	select {
	case n.snapReq <- reply:
		return <-reply
	case <-n.done:
		return nil
	}
}

// read moves datagrams from the socket to the loop until the socket is
// closed.
func (n *Node) read() {
	defer close(n.readDone)
	buf := make([]byte, 1<<16)
	for {
		sz, src, err := n.conn.ReadFromUDPAddrPort(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			select {
			case <-n.stop:
				return
			default:
				continue // a transient error (ICMP unreachable on some systems)
			}
		}
		d := datagram{data: append([]byte(nil), buf[:sz]...), src: src}
		select {
		case n.inbound <- d:
		case <-n.stop:
			return
		}
	}
}

// maxTimersPerWake bounds the timers one wake-up fires before the loop
// looks at its other inputs again.
const maxTimersPerWake = 1024

func (n *Node) loop() {
	defer close(n.done)
	if n.cfg.Key == nil {
		// Every record file of a node without a key says so first: what
		// it holds may have been forged by any local process.
		// At the loop's start, but never before the run's zero (a start
		// given in the future) nor past the first tick's instant.
		n.now = max(0, min(n.cfg.Clock(), n.nextTick))
		n.Event(&Unauthenticated{})
	}
	tick := time.NewTimer(0)
	tick.Stop()
	n.armTick(tick)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer tick.Stop()
	defer timer.Stop()
	for {
		n.armTimer(timer)
		select {
		case <-n.stop:
			return
		case <-tick.C:
			// The node is handed the instant the tick was scheduled
			// for, as a ticker-driven runtime paces its work (memberlist
			// runs its probe loop on a ticker): the wake-up comes a
			// fraction of a millisecond later, and handing that instead
			// made a probe due exactly on a tick miss it whenever the
			// wake was less late than the one the due time was set from
			// (docs/calibration.md, mechanism 1). The node's time never
			// goes back: a receive handled after the scheduled instant
			// keeps its own.
			//
			// A tick a whole period late or more means the process did not
			// run (SIGSTOP, a VM paused): a ticker drops the ticks it
			// missed and its runtime reads the clock, so the node is
			// handed the clock's time, once. Handing the missed instants
			// one by one replayed the stall at once: a probe started
			// "at" the first of them timed out and failed on the replayed
			// ticks that followed, with no real wait for its ack, and the
			// resumed daemon suspected a member the simulator's PeerPause
			// (whose skipped ticks are gone) never does
			// (docs/calibration.md, "False alarms").
			if late := n.cfg.Clock() - n.nextTick; late >= n.cfg.TickPeriodNs {
				n.begin()
				n.nextTick += late / n.cfg.TickPeriodNs * n.cfg.TickPeriodNs
			}
			n.now = max(n.now, n.nextTick)
			n.sw.Tick(n.now)
			n.settle()
			n.nextTick = max(n.nextTick+n.cfg.TickPeriodNs, n.now)
			n.armTick(tick)
		case <-timer.C:
			n.begin()
			for i := 0; i < maxTimersPerWake && len(n.timers) > 0 && n.timers[0].at <= n.now; i++ {
				t := heap.Pop(&n.timers).(pendingTimer)
				n.sw.TimerFired(t.token, n.now)
				n.settle()
			}
		case d := <-n.inbound:
			n.begin()
			n.Receive(d.data, d.src.String())
		case reply := <-n.snapReq:
			reply <- n.sw.Snapshot()
		}
	}
}

func (n *Node) begin() { n.now = max(n.now, n.cfg.Clock()) }

func (n *Node) armTick(t *time.Timer) {
	t.Reset(time.Duration(max(n.nextTick-n.cfg.Clock(), 0)))
}

func (n *Node) armTimer(t *time.Timer) {
	t.Stop()
	select { // drain a fire the Stop raced with
	case <-t.C:
	default:
	}
	if len(n.timers) > 0 {
		t.Reset(time.Duration(max(n.timers[0].at-n.cfg.Clock(), 0)))
	}
}

// Receive is the receive path: it authenticates and decodes one datagram
// and hands the message to the state machine, or drops it with a
// packet_dropped record. It never panics on any input. It is called
// from the loop; tests and fuzzing call it directly on a node that was
// never started.
func (n *Node) Receive(b []byte, source string) {
	n.begin()
	msg, seq, reason := Open(n.cfg.Key, n.cfg.ID, b)
	if reason != "" {
		n.dropped(source, len(b), reason, "")
		return
	}
	m, err := swim.Decode(msg)
	if err != nil {
		n.dropped(source, len(b), ReasonDecodeError, err.Error())
		return
	}
	// The sender the state machine is told of is the one the tag
	// authenticates: m.From is inside it, and Open has checked that the
	// tag names this node as the destination. Each of its sequence
	// numbers is taken once.
	if n.cfg.Key != nil {
		if reason := n.replay.check(m.From, seq, n.cfg.Wall()); reason != "" {
			n.dropped(source, len(b), reason, "")
			return
		}
	}
	var id uint64
	if n.cfg.ReceivedID != nil {
		id = n.cfg.ReceivedID(b)
	}
	n.sw.ReceiveID(m.From, id, m, n.now)
	n.settle()
}

// Drops returns how many datagrams the node refused.
func (n *Node) Drops() int64 { return n.drops }

// dropRecordEvery thins packet_dropped records past the first
// dropRecordsFull: a flood of hostile datagrams must not become a flood
// of records. Count in every record carries the true total.
const (
	dropRecordsFull = 1000
	dropRecordEvery = 1000
)

func (n *Node) dropped(source string, size int, reason, msg string) {
	n.drops++
	if n.drops > dropRecordsFull && n.drops%dropRecordEvery != 0 {
		return
	}
	n.Event(&PacketDropped{Source: source, Bytes: size, Reason: reason, Err: msg, Count: n.drops})
}

// settle reports the send failures the last call produced, each as its own
// SendFailed call after it (never nested inside it), as the engine queues
// them.
func (n *Node) settle() {
	for len(n.failed) > 0 {
		f := n.failed[0]
		n.failed = n.failed[1:]
		n.sw.SendFailed(f.to, f.reason, n.now)
	}
	n.failed = n.failed[:0]
}

// Send implements swim.Output: encode, seal, route. The message id is not
// sent: a datagram carries only the wire bytes. A Route may carry it
// beside them (an in-process run's shaper does, Config.ReceivedID);
// otherwise the receiver's message_received has no id (docs/events.md;
// known_gaps.md).
func (n *Node) Send(to string, msg *swim.Message, id uint64) {
	b, err := swim.Append(n.sendBuf[:0], msg)
	if err != nil {
		n.failed = append(n.failed, failure{to, "encode: " + err.Error()})
		return
	}
	codecLen := len(b)
	if n.cfg.Key != nil {
		b = Seal(n.cfg.Key, to, b, n.seq.next(n.cfg.Wall()))
	}
	n.sendBuf = b[:0]
	if len(b) > swim.MaxDatagramBytes {
		n.failed = append(n.failed, failure{to, "too_large"})
		return
	}
	var reason string
	if n.cfg.Route != nil {
		reason = n.cfg.Route(to, b, codecLen, n.now, id)
	} else {
		reason = n.direct(to, b)
	}
	if reason != "" {
		n.failed = append(n.failed, failure{to, reason})
	}
}

// direct writes b to to's address in the book.
func (n *Node) direct(to string, b []byte) string {
	addr, ok := n.cfg.Book[to]
	if !ok {
		return "no_address"
	}
	if _, err := n.conn.WriteToUDPAddrPort(b, addr); err != nil {
		return "write_error"
	}
	return ""
}

// Timer implements swim.Output.
func (n *Node) Timer(at int64, token uint64) {
	heap.Push(&n.timers, pendingTimer{at: at, token: token, seq: uint64(len(n.timers))})
}

// Event implements swim.Output: one events.ndjson line at the call's time.
func (n *Node) Event(e swim.Event) {
	n.lineBuf = bundle.AppendEventLineWith(n.lineBuf[:0], n.now, n.env, e)
	n.cfg.Out(append([]byte(nil), n.lineBuf...))
}

// WriteTo sends raw bytes from the node's socket (the shaper delivers a
// held datagram through its sender's socket, so the receiver sees the
// sender's address). It is safe to call from any goroutine.
func (n *Node) WriteTo(b []byte, addr netip.AddrPort) error {
	_, err := n.conn.WriteToUDPAddrPort(b, addr)
	return err
}

// Addr is the node's bound address.
func (n *Node) Addr() netip.AddrPort { return n.conn.LocalAddr().(*net.UDPAddr).AddrPort() }

type pendingTimer struct {
	at    int64
	token uint64
	seq   uint64
}

// timerHeap orders pending timers by (at, arming order).
type timerHeap []pendingTimer

// heap.Interface by (time, arming order), alike in shape to the testbed's
// delay line's: each orders its own items.
func (h timerHeap) Len() int { return len(h) }
func (h timerHeap) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}
func (h timerHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *timerHeap) Push(x any)   { *h = append(*h, x.(pendingTimer)) }
func (h *timerHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// CheckLoopback reports whether addr is an IP:port on a loopback address.
func CheckLoopback(addr string) error {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return fmt.Errorf("bind address %q: want IP:port (e.g. 127.0.0.1:7001): %v", addr, err)
	}
	if !ap.Addr().IsLoopback() {
		return fmt.Errorf("bind address %s is not a loopback address: live nodes bind only to 127.0.0.0/8 or ::1", addr)
	}
	return nil
}

// ListenLoopback binds a UDP socket on addr, which must be a loopback
// address ("127.0.0.1:0" for any free port): live nodes never listen
// beyond the machine. A port in use is an error naming it.
func ListenLoopback(addr string) (*net.UDPConn, error) { return Listen(addr, "") }

// Listen binds a UDP socket on addr: a loopback address, or, with netns
// set, an address of the kernel testbed's subnet inside the testbed
// namespace netns, which this process must be running in (kinds/swim/testbed/tbnet).
// No other address is ever bound.
func Listen(addr, netns string) (*net.UDPConn, error) {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return nil, fmt.Errorf("bind address %q: want IP:port (e.g. 127.0.0.1:7001): %v", addr, err)
	}
	if netns == "" {
		if err := CheckLoopback(addr); err != nil {
			return nil, err
		}
	} else {
		if err := tbnet.InNamespace(netns); err != nil {
			return nil, err
		}
		if err := tbnet.CheckAddr("bind address", ap.Addr(), netns); err != nil {
			return nil, err
		}
	}
	conn, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(ap))
	if err != nil {
		if errors.Is(err, syscallEADDRINUSE) {
			return nil, fmt.Errorf("bind address %s: port %d is %w", addr, ap.Port(), ErrPortInUse)
		}
		return nil, fmt.Errorf("bind address %s: %w", addr, err)
	}
	return conn, nil
}

// ErrPortInUse is wrapped by Listen's error when another socket holds
// the port.
var ErrPortInUse = errors.New("already in use")

// AddrOf is conn's local address.
func AddrOf(conn *net.UDPConn) netip.AddrPort { return conn.LocalAddr().(*net.UDPAddr).AddrPort() }
