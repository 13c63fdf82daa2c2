package guard

import (
	"context"
	"net"
	"strconv"
	"sync"
)

// Limits on connections. A client is the local user whose socket
// connected (Client); every client has PerClient connections at once,
// and the listener Total, so one user holding its share, idle or
// dripping a byte at a time, leaves every other user theirs.
type Limits struct {
	PerClient, Total int
	// Refused, when set, gets each connection closed for being over a
	// limit, with the client it came from (for the listener's log).
	Refused func(client string)
}

// DefaultPerClient and DefaultTotal are the limits when Limits leaves
// them 0.
const (
	DefaultPerClient = 32
	DefaultTotal     = 1024
)

// NewListener wraps ln so that a connection over its client's share or
// over the total is closed as soon as it is accepted, rather than left
// waiting: a waiting queue is exactly what one client fills to lock the
// others out. The accepted connection's client is ClientOf its context
// once http.Server's ConnContext is ConnContext.
func NewListener(ln net.Listener, lim Limits) net.Listener {
	if lim.PerClient <= 0 {
		lim.PerClient = DefaultPerClient
	}
	if lim.Total <= 0 {
		lim.Total = DefaultTotal
	}
	return &listener{Listener: ln, lim: lim, open: map[string]int{}}
}

type listener struct {
	net.Listener
	lim   Limits
	mu    sync.Mutex
	open  map[string]int
	total int
}

func (l *listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		client := Client(c)
		l.mu.Lock()
		over := l.open[client] >= l.lim.PerClient || l.total >= l.lim.Total
		if !over {
			l.open[client]++
			l.total++
		}
		l.mu.Unlock()
		if over {
			c.Close()
			if l.lim.Refused != nil {
				l.lim.Refused(client)
			}
			continue
		}
		return &conn{Conn: c, l: l, client: client}, nil
	}
}

type conn struct {
	net.Conn
	l      *listener
	client string
	once   sync.Once
}

func (c *conn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.mu.Lock()
		if c.l.open[c.client]--; c.l.open[c.client] <= 0 {
			delete(c.l.open, c.client)
		}
		c.l.total--
		c.l.mu.Unlock()
	})
	return err
}

type clientKey struct{}

// ConnContext is an http.Server ConnContext that makes the client of a
// connection accepted by NewListener's listener known to its requests.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	if gc, ok := c.(*conn); ok {
		return context.WithValue(ctx, clientKey{}, gc.client)
	}
	return context.WithValue(ctx, clientKey{}, Client(c))
}

// ClientOf is the client of the connection a request came on ("" when
// the server was not set up with ConnContext).
func ClientOf(ctx context.Context) string {
	s, _ := ctx.Value(clientKey{}).(string)
	return s
}

// Client names the local user that opened c, "uid:N", from the kernel's
// socket table; "unknown" when the kernel does not say (not Linux, not
// TCP, or the socket already gone), and every such connection shares
// that one name and its one share.
func Client(c net.Conn) string {
	remote, ok1 := c.RemoteAddr().(*net.TCPAddr)
	local, ok2 := c.LocalAddr().(*net.TCPAddr)
	if !ok1 || !ok2 {
		return "unknown"
	}
	uid, ok := socketUID(remote, local)
	if !ok {
		return "unknown"
	}
	return "uid:" + strconv.FormatUint(uint64(uid), 10)
}
