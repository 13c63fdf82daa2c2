package guard

import (
	"context"
	"errors"
	"net"
	"strconv"
	"sync"
	"time"
)

// Limits on connections. A client is the local user whose socket
// connected (Client); every client has PerClient connections at once,
// and the listener Total, so one user holding its share, idle or
// dripping a byte at a time, leaves every other user theirs.
type Limits struct {
	PerClient, Total int
	// Wait is how long a client's connection over its share waits for
	// one of that client's own to close before it is closed: a client
	// that closes a connection and opens the next at once is not
	// refused for the moment the server takes to see the close.
	Wait time.Duration
	// Refused, when set, gets each connection closed for being over a
	// limit, with the client it came from (for the listener's log).
	Refused func(client string)
}

// Defaults of Limits' zero fields.
const (
	DefaultPerClient = 32
	DefaultTotal     = 1024
	DefaultWait      = 5 * time.Second
)

// NewListener wraps ln so that each client's connections over its
// share wait, at most PerClient of them and for at most Wait, for one of
// that client's own to close, and the rest are closed as they are
// accepted. Nothing waits in a queue that another client's connections
// can fill: that queue is what one client filled to lock out the rest.
// The accepted connection's client is ClientOf its requests' context
// once http.Server's ConnContext is ConnContext.
func NewListener(ln net.Listener, lim Limits) net.Listener {
	if lim.PerClient <= 0 {
		lim.PerClient = DefaultPerClient
	}
	if lim.Total <= 0 {
		lim.Total = DefaultTotal
	}
	if lim.Wait <= 0 {
		lim.Wait = DefaultWait
	}
	l := &listener{inner: ln, lim: lim, ready: make(chan net.Conn), errs: make(chan error), done: make(chan struct{}),
		open: map[string]int{}, waiting: map[string][]*waiter{}}
	go l.acceptAll()
	return l
}

type listener struct {
	inner net.Listener
	lim   Limits
	ready chan net.Conn
	errs  chan error
	done  chan struct{}
	once  sync.Once

	mu      sync.Mutex
	open    map[string]int       // client → connections handed to the server
	waiting map[string][]*waiter // client → connections waiting for one of its own to close
	total   int
}

// waiter is a connection over its client's share, waiting.
type waiter struct {
	c      net.Conn
	client string
	timer  *time.Timer
}

// acceptAll accepts for as long as the listener is open, so the
// kernel's backlog never fills behind one client's connections.
func (l *listener) acceptAll() {
	for {
		c, err := l.inner.Accept()
		if err != nil {
			select {
			case l.errs <- err:
			case <-l.done:
				return
			}
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue // http.Server backs off on a temporary error and calls Accept again; on any other it closes the listener
		}
		l.admit(c)
	}
}

// admit hands c to the server, makes it wait, or closes it.
func (l *listener) admit(c net.Conn) {
	client := Client(c)
	l.mu.Lock()
	switch {
	case l.total >= l.lim.Total:
		l.mu.Unlock()
		l.refuse(c, client)
	case l.open[client] < l.lim.PerClient:
		l.open[client]++
		l.total++
		l.mu.Unlock()
		l.deliver(&conn{Conn: c, l: l, client: client})
	case len(l.waiting[client]) < l.lim.PerClient:
		w := &waiter{c: c, client: client}
		w.timer = time.AfterFunc(l.lim.Wait, func() { l.expire(w) })
		l.waiting[client] = append(l.waiting[client], w)
		l.mu.Unlock()
	default:
		l.mu.Unlock()
		l.refuse(c, client)
	}
}

func (l *listener) refuse(c net.Conn, client string) {
	c.Close()
	if l.lim.Refused != nil {
		l.lim.Refused(client)
	}
}

// deliver gives c to Accept, or closes it once the listener is closed.
func (l *listener) deliver(c net.Conn) {
	select {
	case l.ready <- c:
	case <-l.done:
		c.Close()
	}
}

// expire closes w if it is still waiting.
func (l *listener) expire(w *waiter) {
	l.mu.Lock()
	q := l.waiting[w.client]
	for i, x := range q {
		if x == w {
			l.waiting[w.client] = append(q[:i:i], q[i+1:]...)
			if len(l.waiting[w.client]) == 0 {
				delete(l.waiting, w.client)
			}
			l.mu.Unlock()
			l.refuse(w.c, w.client)
			return
		}
	}
	l.mu.Unlock()
}

// release gives a closed connection's slot to the next of its client's
// waiting ones.
func (l *listener) release(client string) {
	l.mu.Lock()
	l.open[client]--
	l.total--
	var next *waiter
	if q := l.waiting[client]; len(q) > 0 {
		next = q[0]
		if l.waiting[client] = q[1:]; len(q) == 1 {
			delete(l.waiting, client)
		}
		next.timer.Stop()
		l.open[client]++
		l.total++
	}
	if l.open[client] <= 0 {
		delete(l.open, client)
	}
	l.mu.Unlock()
	if next != nil {
		go l.deliver(&conn{Conn: next.c, l: l, client: client})
	}
}

func (l *listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.ready:
		return c, nil
	case err := <-l.errs:
		return nil, err
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *listener) Addr() net.Addr { return l.inner.Addr() }

// Close stops accepting and closes every waiting connection.
func (l *listener) Close() error {
	err := l.inner.Close()
	l.once.Do(func() {
		close(l.done)
		l.mu.Lock()
		for _, q := range l.waiting {
			for _, w := range q {
				w.timer.Stop()
				w.c.Close()
			}
		}
		l.waiting = map[string][]*waiter{}
		l.mu.Unlock()
	})
	return err
}

type conn struct {
	net.Conn
	l      *listener
	client string
	once   sync.Once
}

func (c *conn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.release(c.client) })
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
