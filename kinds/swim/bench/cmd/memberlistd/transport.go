package main

import (
	"errors"
	"fmt"
	"log"
	"net"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/memberlist"

	"github.com/detsim/detsim/kinds/swim/bench/mlevents"
	"github.com/detsim/detsim/kinds/swim/testbed/tbnet"
)

// transport is memberlist's own NetTransport (UDP and TCP on the bind
// address, real sockets) with the daemon watching: every datagram and
// stream message through it is recorded, and it talks to no address the
// daemon may not use (tbnet.CheckAddr: loopback, or the testbed's subnet
// inside the namespace named by --netns), whatever gossip tells memberlist.
type transport struct {
	d        *daemon
	nt       *memberlist.NetTransport
	addr     netip.AddrPort // as bound
	packetCh chan *memberlist.Packet
	streamCh chan net.Conn
	stopping chan struct{} // closed when Shutdown starts: nothing more is handed to memberlist
	down     chan struct{} // closed when nt is down: the forwarders return
	once     sync.Once
	wg       sync.WaitGroup
}

var _ memberlist.NodeAwareTransport = (*transport)(nil)

func newTransport(d *daemon, bind netip.AddrPort, logger *log.Logger) (*transport, error) {
	nt, err := memberlist.NewNetTransport(&memberlist.NetTransportConfig{
		BindAddrs: []string{bind.Addr().String()}, BindPort: int(bind.Port()), Logger: logger})
	if err != nil {
		if strings.Contains(err.Error(), "address already in use") {
			return nil, fmt.Errorf("binding %s: the port is already in use (UDP or TCP): %v", bind, err)
		}
		return nil, fmt.Errorf("binding %s: %v", bind, err)
	}
	t := &transport{d: d, nt: nt, addr: netip.AddrPortFrom(bind.Addr(), uint16(nt.GetAutoBindPort())),
		packetCh: make(chan *memberlist.Packet), streamCh: make(chan net.Conn),
		stopping: make(chan struct{}), down: make(chan struct{})}
	t.wg.Add(2)
	go t.forwardPackets()
	go t.forwardStreams()
	return t, nil
}

func (t *transport) FinalAdvertiseAddr(ip string, port int) (net.IP, int, error) {
	return t.nt.FinalAdvertiseAddr(ip, port)
}

func (t *transport) WriteTo(b []byte, addr string) (time.Time, error) {
	return t.WriteToAddress(b, memberlist.Address{Addr: addr})
}

// WriteToAddress records the datagram as message_sent (and the probe it
// starts), then sends it from memberlist's UDP socket.
func (t *transport) WriteToAddress(b []byte, a memberlist.Address) (time.Time, error) {
	if err := t.d.allowed(a.Addr); err != nil {
		return time.Time{}, err
	}
	health := 0
	if m := t.d.ml.Load(); m != nil {
		health = m.GetHealthScore() // memberlist's lock, before ours
	}
	msg, peer := mlevents.Decode(b), t.d.peerOf(a)
	t.d.observe(func(at int64, o *mlevents.Observer) { o.PacketSent(at, peer, len(b), msg, health) })
	return t.nt.WriteToAddress(b, a)
}

func (t *transport) PacketCh() <-chan *memberlist.Packet { return t.packetCh }
func (t *transport) StreamCh() <-chan net.Conn           { return t.streamCh }

// forwardPackets records each datagram NetTransport reads as
// message_received, then hands it to memberlist.
func (t *transport) forwardPackets() {
	defer t.wg.Done()
	for {
		select {
		case p := <-t.nt.PacketCh():
			msg, from := mlevents.Decode(p.Buf), t.d.peerOfAddr(p.From)
			t.d.observe(func(at int64, o *mlevents.Observer) {
				o.PacketReceived(at, from, len(p.Buf), msg, o.ReceivedKind(from, msg))
			})
			select {
			case t.packetCh <- p:
				t.d.poke()
			case <-t.stopping:
			}
		case <-t.down:
			return
		}
	}
}

// forwardStreams hands each TCP stream NetTransport accepts to
// memberlist, observed.
func (t *transport) forwardStreams() {
	defer t.wg.Done()
	for {
		select {
		case c := <-t.nt.StreamCh():
			oc := t.d.newConn(c, t.d.peerOfIP(c.RemoteAddr()), false)
			select {
			case t.streamCh <- oc:
			case <-t.stopping:
				c.Close()
			}
		case <-t.down:
			return
		}
	}
}

func (t *transport) DialTimeout(addr string, timeout time.Duration) (net.Conn, error) {
	return t.DialAddressTimeout(memberlist.Address{Addr: addr}, timeout)
}

// DialAddressTimeout dials as NetTransport does, but from the bind
// address's IP: NetTransport leaves the source to the kernel, which on
// loopback picks 127.0.0.1 for every daemon, and the daemon at the other
// end names the dialler by its IP when every member has its own.
func (t *transport) DialAddressTimeout(a memberlist.Address, timeout time.Duration) (net.Conn, error) {
	select {
	case <-t.stopping:
		return nil, errors.New("memberlistd is stopping")
	default:
	}
	if err := t.d.allowed(a.Addr); err != nil {
		return nil, err
	}
	dialer := net.Dialer{Timeout: timeout, LocalAddr: &net.TCPAddr{IP: t.addr.Addr().AsSlice()}}
	c, err := dialer.Dial("tcp", a.Addr)
	if err != nil {
		return nil, err
	}
	return t.d.newConn(c, t.d.peerOf(a), true), nil
}

// Shutdown stops NetTransport; memberlist calls it first in its own
// Shutdown, while its listeners still read, so nothing blocks: from here
// on what NetTransport reads is dropped.
func (t *transport) Shutdown() error {
	var err error
	t.once.Do(func() {
		close(t.stopping)
		err = t.nt.Shutdown()
		close(t.down)
		t.wg.Wait()
	})
	return err
}

// allowed reports whether the daemon may talk to addr (IP:port).
func (d *daemon) allowed(addr string) error {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return fmt.Errorf("memberlistd: address %q: %v", addr, err)
	}
	return tbnet.CheckAddr("memberlistd: address", ap.Addr().Unmap(), d.netns)
}

// peerOf names the member at a: memberlist's own name for it, else the
// --peers entry with its address, else the address itself.
func (d *daemon) peerOf(a memberlist.Address) string {
	if a.Name != "" {
		return a.Name
	}
	if ap, err := netip.ParseAddrPort(a.Addr); err == nil {
		if id, ok := d.byAddr[netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())]; ok {
			return id
		}
	}
	return a.Addr
}

// peerOfAddr names a datagram's sender: memberlist sends from its bound
// port, so its address is its --peers entry.
func (d *daemon) peerOfAddr(a net.Addr) string {
	return d.peerOf(memberlist.Address{Addr: a.String()})
}

// peerOfIP names the member that dialled a stream by its IP alone (its
// port is ephemeral): "" when the IP is not one member's only.
func (d *daemon) peerOfIP(a net.Addr) string {
	ap, err := netip.ParseAddrPort(a.String())
	if err != nil {
		return ""
	}
	return d.byIP[ap.Addr().Unmap()]
}

// maxStreamBuffer bounds the bytes of one stream held while they do not
// yet frame as a message: memberlist's own bound on a push/pull.
const maxStreamBuffer = 20 << 20

// conn is one of memberlist's TCP streams, observed: a message written
// is recorded as it goes out (memberlist writes each in one Write); the
// bytes read are framed as memberlist's readStream reads them, and each
// whole message is recorded as it comes in.
type conn struct {
	net.Conn
	d      *daemon
	dialer bool

	mu   sync.Mutex
	peer string // "" while unknown
	in   []byte // read, not yet a whole message
}

func (d *daemon) newConn(c net.Conn, peer string, dialer bool) *conn {
	return &conn{Conn: c, d: d, dialer: dialer, peer: peer}
}

// name is the member at the other end: known from the dial or the
// dialler's IP, else from a TCP ping's sender name, else the address.
// Call with mu held.
func (c *conn) name(m mlevents.Msg) string {
	if c.peer == "" && m.Source != "" {
		c.peer = m.Source
	}
	if c.peer == "" {
		return c.RemoteAddr().String()
	}
	return c.peer
}

func (c *conn) Write(b []byte) (int, error) {
	msg := mlevents.Decode(b)
	kind := mlevents.StreamKind(msg, c.dialer)
	c.mu.Lock()
	peer := c.name(mlevents.Msg{})
	c.mu.Unlock()
	c.d.observe(func(t int64, o *mlevents.Observer) { o.StreamSent(t, peer, kind, len(b)) })
	return c.Conn.Write(b)
}

func (c *conn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 {
		c.received(b[:n])
	}
	return n, err
}

func (c *conn) received(b []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.in = append(c.in, b...)
	for len(c.in) > 0 {
		n, ok := mlevents.StreamMessageLen(c.in)
		if !ok && len(c.in) <= maxStreamBuffer {
			return
		}
		kind := "tcp_other" // bytes that never frame: recorded as they are, and let go
		if !ok {
			n = len(c.in)
		}
		msg := mlevents.Decode(c.in[:n])
		if ok {
			kind = mlevents.StreamKind(msg, !c.dialer)
		}
		peer := c.name(msg)
		c.d.observe(func(t int64, o *mlevents.Observer) { o.StreamReceived(t, peer, kind, n) })
		c.in = c.in[n:]
		c.d.poke()
	}
	c.in = nil
}

// Close records what was read but never made a whole message.
func (c *conn) Close() error {
	c.mu.Lock()
	rest, peer := len(c.in), c.name(mlevents.Msg{})
	c.in = nil
	c.mu.Unlock()
	if rest > 0 {
		c.d.observe(func(t int64, o *mlevents.Observer) { o.StreamReceived(t, peer, "tcp_other", rest) })
	}
	return c.Conn.Close()
}
