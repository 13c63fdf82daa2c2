package bench

import (
	"errors"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hashicorp/memberlist"

	"github.com/detsim/detsim/kinds/swim/bench/mlevents"
)

// wnode is one life of one peer: its memberlist instance and the
// memberlist.NodeAwareTransport it runs on. A restart (PeerResurrect
// without preserve_state) is a new wnode at the same address, as a
// restarted process on the same host.
type wnode struct {
	w        *witness
	idx      int
	name     string
	addr     *net.UDPAddr
	packetCh chan *memberlist.Packet
	streamCh chan net.Conn
	ml       atomic.Pointer[memberlist.Memberlist]
	obs      *mlevents.Observer // this life's records; guarded by w.mu
	conns    []*wconn           // guarded by w.mu
}

var _ memberlist.NodeAwareTransport = (*wnode)(nil)

func (n *wnode) FinalAdvertiseAddr(string, int) (net.IP, int, error) {
	return n.addr.IP, n.addr.Port, nil
}

func (n *wnode) WriteTo(b []byte, addr string) (time.Time, error) {
	return n.WriteToAddress(b, memberlist.Address{Addr: addr})
}

// WriteToAddress hands the datagram to the network model: it is delivered
// at the arrival time detsim's network package gives it, or dropped. Like
// UDP it never reports either.
func (n *wnode) WriteToAddress(b []byte, a memberlist.Address) (time.Time, error) {
	now := time.Now()
	to, ok := n.w.lookup(a)
	if !ok {
		return now, nil
	}
	health := 0
	if m := n.ml.Load(); m != nil {
		health = m.GetHealthScore() // before w.mu: memberlist's locks are never taken under ours
	}
	n.w.sendPacket(n, to, b, mlevents.Decode(b), health)
	return now, nil
}

func (n *wnode) PacketCh() <-chan *memberlist.Packet { return n.packetCh }
func (n *wnode) StreamCh() <-chan net.Conn           { return n.streamCh }

func (n *wnode) DialTimeout(addr string, timeout time.Duration) (net.Conn, error) {
	return n.DialAddressTimeout(memberlist.Address{Addr: addr}, timeout)
}

// DialAddressTimeout opens a stream (memberlist's TCP: push/pull and the
// fallback ping). Streams do not go through the network model: they are
// reliable, take one round trip of the link's base latency to connect,
// and carry each write after the link's base latency plus its
// serialisation at the link's bandwidth (no jitter, loss, send buffer or
// dial penalty, and no queueing behind the link's datagrams). A dial
// across a Partition times out; a dial to a killed or stopped peer is
// refused after the round trip, as a closed port answers with a reset.
func (n *wnode) DialAddressTimeout(a memberlist.Address, timeout time.Duration) (net.Conn, error) {
	w := n.w
	to, ok := w.lookup(a)
	if !ok {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("no route")}
	}
	w.mu.Lock()
	cut := w.cut[[2]int{n.idx, to}]
	w.mu.Unlock()
	rtt := w.oneWay(n.idx, to, 0) + w.oneWay(to, n.idx, 0)
	if cut {
		if timeout <= 0 {
			timeout = 10 * time.Second
		}
		time.Sleep(timeout)
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: os.ErrDeadlineExceeded}
	}
	time.Sleep(rtt)
	w.mu.Lock()
	dest := w.nodes[to]
	if w.closed || dest == nil || !w.running[to] || w.nodes[n.idx] != n || !w.running[n.idx] {
		w.mu.Unlock()
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	}
	local, remote := newConnPair(w, n, dest)
	n.conns = append(pruneConns(n.conns), local)
	dest.conns = append(pruneConns(dest.conns), remote)
	w.mu.Unlock()
	select {
	case dest.streamCh <- remote:
		return local, nil
	default:
		local.Close()
		remote.Close()
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	}
}

// Shutdown: memberlist's listeners stop on its own shutdown; packets for
// a stopped life are dropped by the witness.
func (n *wnode) Shutdown() error { return nil }

// wconn is one end of a stream.
type wconn struct {
	w            *witness
	local        *wnode
	remote       *wnode
	dialer       bool
	peer         *wconn
	in           *wpipe
	closed       chan struct{}
	closeOnce    sync.Once
	dmu          sync.Mutex
	deadline     time.Time
	laddr, raddr net.Addr
}

// wpipe is the bytes travelling towards one end, each chunk with its
// arrival time, in order.
type wpipe struct {
	mu     sync.Mutex
	q      []wchunk
	lastAt time.Time // the latest arrival queued: later writes never overtake it
	eof    bool
	eofAt  time.Time
	notify chan struct{}
}

type wchunk struct {
	data []byte
	at   time.Time
}

func newConnPair(w *witness, from, to *wnode) (*wconn, *wconn) {
	a := &wconn{w: w, local: from, remote: to, dialer: true, in: newPipe(), closed: make(chan struct{}),
		laddr: &net.TCPAddr{IP: from.addr.IP, Port: 40000 + int(w.streams.Add(1))}, raddr: &net.TCPAddr{IP: to.addr.IP, Port: to.addr.Port}}
	b := &wconn{w: w, local: to, remote: from, in: newPipe(), closed: make(chan struct{}), laddr: a.raddr, raddr: a.laddr}
	a.peer, b.peer = b, a
	return a, b
}

func newPipe() *wpipe { return &wpipe{notify: make(chan struct{}, 1)} }

func (p *wpipe) poke() {
	select {
	case p.notify <- struct{}{}:
	default:
	}
}

func pruneConns(cs []*wconn) []*wconn {
	out := cs[:0]
	for _, c := range cs {
		select {
		case <-c.closed:
		default:
			out = append(out, c)
		}
	}
	return out
}

func (c *wconn) Read(b []byte) (int, error) {
	p := c.in
	for {
		now := time.Now()
		wait := time.Duration(-1)
		p.mu.Lock()
		switch {
		case len(p.q) > 0 && !p.q[0].at.After(now):
			n := copy(b, p.q[0].data)
			p.q[0].data = p.q[0].data[n:]
			if len(p.q[0].data) == 0 {
				p.q = p.q[1:]
			}
			p.mu.Unlock()
			return n, nil
		case len(p.q) > 0:
			wait = p.q[0].at.Sub(now)
		case p.eof && !p.eofAt.After(now):
			p.mu.Unlock()
			return 0, io.EOF
		case p.eof:
			wait = p.eofAt.Sub(now)
		}
		p.mu.Unlock()
		c.dmu.Lock()
		dl := c.deadline
		c.dmu.Unlock()
		if !dl.IsZero() && !now.Before(dl) {
			return 0, os.ErrDeadlineExceeded
		}
		var waitC, dlC <-chan time.Time
		var timers []*time.Timer
		if wait >= 0 {
			t := time.NewTimer(wait)
			timers, waitC = append(timers, t), t.C
		}
		if !dl.IsZero() {
			t := time.NewTimer(dl.Sub(now))
			timers, dlC = append(timers, t), t.C
		}
		var err error
		select {
		case <-p.notify:
		case <-waitC:
		case <-dlC:
			err = os.ErrDeadlineExceeded
		case <-c.closed:
			err = net.ErrClosed
		}
		for _, t := range timers {
			t.Stop()
		}
		if err != nil {
			return 0, err
		}
	}
}

// Write queues b for the other end, arriving after the link's delay, and
// records it as a message (see witness.streamSent).
func (c *wconn) Write(b []byte) (int, error) {
	select {
	case <-c.closed:
		return 0, net.ErrClosed
	default:
	}
	delay, ok := c.w.streamSent(c, b)
	if !ok {
		return len(b), nil // the run is over, or this end's node is gone: the bytes go nowhere
	}
	p := c.peer.in
	p.mu.Lock()
	at := time.Now().Add(delay)
	if at.Before(p.lastAt) {
		at = p.lastAt
	}
	p.lastAt = at
	p.q = append(p.q, wchunk{data: append([]byte(nil), b...), at: at})
	p.mu.Unlock()
	p.poke()
	return len(b), nil
}

// Close ends this end; the other reads EOF once everything written before
// it has arrived.
func (c *wconn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		p := c.peer.in
		p.mu.Lock()
		if !p.eof {
			at := time.Now().Add(c.w.oneWay(c.local.idx, c.remote.idx, 0))
			if at.Before(p.lastAt) {
				at = p.lastAt
			}
			p.eof, p.eofAt = true, at
		}
		p.mu.Unlock()
		p.poke()
	})
	return nil
}

// abort ends both ends at once: the node at one of them was killed.
func (c *wconn) abort() {
	for _, e := range []*wconn{c, c.peer} {
		e.closeOnce.Do(func() { close(e.closed) })
		p := e.in
		p.mu.Lock()
		p.eof, p.eofAt, p.q = true, time.Now(), nil
		p.mu.Unlock()
		p.poke()
	}
}

func (c *wconn) LocalAddr() net.Addr  { return c.laddr }
func (c *wconn) RemoteAddr() net.Addr { return c.raddr }
func (c *wconn) SetDeadline(t time.Time) error {
	c.dmu.Lock()
	c.deadline = t
	c.dmu.Unlock()
	c.in.poke()
	return nil
}
func (c *wconn) SetReadDeadline(t time.Time) error { return c.SetDeadline(t) }
func (c *wconn) SetWriteDeadline(time.Time) error  { return nil }

// nodeAddress is where peer i's memberlist listens: the bench's private
// address scheme (nodeAddr).
func nodeAddress(i int) *net.UDPAddr {
	ip, port := nodeAddr(i)
	return &net.UDPAddr{IP: ip, Port: port}
}

func joinAddress(name string, i int) string {
	a := nodeAddress(i)
	return name + "/" + net.JoinHostPort(a.IP.String(), strconv.Itoa(a.Port))
}
