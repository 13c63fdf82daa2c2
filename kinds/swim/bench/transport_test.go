package bench

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/memberlist"
)

// memNetwork connects memTransports in memory with zero latency. Packet
// sends never block, like UDP: each node's inbound queue is a buffered
// channel, and a packet that finds it full is dropped and counted.
// (memberlist's own MockNetwork hands packets over unbuffered channels, so
// two nodes writing to each other at once deadlock; inside a synctest
// bubble that happens after about 18 virtual seconds.) Streams are
// net.Pipe pairs, reliable like TCP. Everything it counts is safe to read
// once the nodes are shut down.
type memNetwork struct {
	queue int // inbound packet queue per node

	mu     sync.RWMutex
	byAddr map[string]*memTransport
	byName map[string]*memTransport

	packets     atomic.Int64 // datagrams written
	bytes       atomic.Int64 // their payload bytes
	dropped     atomic.Int64 // datagrams lost to a full queue or an unknown address
	streams     atomic.Int64 // stream connections dialled
	streamBytes atomic.Int64 // bytes written on streams, both directions
}

func newMemNetwork(queue int) *memNetwork {
	return &memNetwork{queue: queue, byAddr: map[string]*memTransport{}, byName: map[string]*memTransport{}}
}

// nodeAddr gives node i a private IPv4 address (RFC 6890, so memberlist
// does not warn about a public address without encryption), 10.0.0.1
// upwards, on memberlist's default port.
func nodeAddr(i int) (net.IP, int) {
	return net.IPv4(10, byte((i+1)>>16), byte((i+1)>>8), byte(i+1)), 7946
}

// transport makes the transport of node i, named name.
func (n *memNetwork) transport(i int, name string) *memTransport {
	ip, port := nodeAddr(i)
	t := &memTransport{
		net:      n,
		name:     name,
		ip:       ip,
		port:     port,
		addr:     &net.UDPAddr{IP: ip, Port: port},
		packetCh: make(chan *memberlist.Packet, n.queue),
		streamCh: make(chan net.Conn, 64),
	}
	n.mu.Lock()
	n.byAddr[t.addr.String()] = t
	n.byName[name] = t
	n.mu.Unlock()
	return t
}

func (n *memNetwork) lookup(a memberlist.Address) (*memTransport, error) {
	n.mu.RLock()
	defer n.mu.RUnlock()
	if a.Name != "" {
		if t, ok := n.byName[a.Name]; ok {
			return t, nil
		}
	}
	if t, ok := n.byAddr[a.Addr]; ok {
		return t, nil
	}
	return nil, fmt.Errorf("memnet: no route to %s", a.String())
}

// memTransport is one node's memberlist.NodeAwareTransport.
type memTransport struct {
	net      *memNetwork
	name     string
	ip       net.IP
	port     int
	addr     *net.UDPAddr
	packetCh chan *memberlist.Packet
	streamCh chan net.Conn
}

var _ memberlist.NodeAwareTransport = (*memTransport)(nil)

func (t *memTransport) FinalAdvertiseAddr(string, int) (net.IP, int, error) {
	return t.ip, t.port, nil
}

func (t *memTransport) WriteTo(b []byte, addr string) (time.Time, error) {
	return t.WriteToAddress(b, memberlist.Address{Addr: addr})
}

// WriteToAddress delivers a copy of b at once, as the kernel copies a UDP
// datagram, or drops it when the receiver's queue is full.
func (t *memTransport) WriteToAddress(b []byte, a memberlist.Address) (time.Time, error) {
	now := time.Now()
	t.net.packets.Add(1)
	t.net.bytes.Add(int64(len(b)))
	dest, err := t.net.lookup(a)
	if err != nil {
		t.net.dropped.Add(1)
		return now, nil // UDP does not report an unreachable peer either
	}
	p := &memberlist.Packet{Buf: append([]byte(nil), b...), From: t.addr, Timestamp: now}
	select {
	case dest.packetCh <- p:
	default:
		t.net.dropped.Add(1)
	}
	return now, nil
}

func (t *memTransport) PacketCh() <-chan *memberlist.Packet { return t.packetCh }

func (t *memTransport) DialTimeout(addr string, timeout time.Duration) (net.Conn, error) {
	return t.DialAddressTimeout(memberlist.Address{Addr: addr}, timeout)
}

var errBacklog = errors.New("memnet: the peer's stream backlog is full")

// DialAddressTimeout connects to the peer through an in-memory pipe; it
// fails at once, never blocks, if the peer is not accepting.
func (t *memTransport) DialAddressTimeout(a memberlist.Address, _ time.Duration) (net.Conn, error) {
	dest, err := t.net.lookup(a)
	if err != nil {
		return nil, err
	}
	local, remote := net.Pipe()
	t.net.streams.Add(1)
	select {
	case dest.streamCh <- countingConn{remote, &t.net.streamBytes}:
		return countingConn{local, &t.net.streamBytes}, nil
	default:
		local.Close()
		remote.Close()
		return nil, errBacklog
	}
}

func (t *memTransport) StreamCh() <-chan net.Conn { return t.streamCh }

// Shutdown has nothing to tear down: memberlist's listeners stop on its
// own shutdown channel, and packets still sent here fill the queue and
// are dropped.
func (t *memTransport) Shutdown() error { return nil }

// countingConn counts the bytes written on a stream.
type countingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c countingConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	c.n.Add(int64(n))
	return n, err
}
