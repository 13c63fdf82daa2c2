// Package providerserve is the provider's real HTTP edge (issue 15 item 7): it
// serves a provider script over real HTTP and SSE, on real time, faults
// included, as the Anthropic Messages API would — so a real client
// (github.com/anthropics/anthropic-sdk-go, curl) meets the same 429s,
// 529s, mid-stream overloaded errors, truncated streams and stalls the
// simulated agent meets. The script's semantics are the simulator's:
// entries are picked by provider.Script.Respond and rendered by
// provider.Script.Render (status, headers, body pieces each after its
// delay); this package only puts those pieces on a socket, sleeping each
// delay scaled by Options.TimeScale.
//
// It listens on loopback only, bounds request heads and bodies, and
// answers a malformed request with a 4xx JSON error rather than failing.
//
// Usage text for the command that wires it:
//
//	detsim provider-serve SCRIPT [--addr 127.0.0.1:PORT] [--time-scale F]
//
//	Serves SCRIPT's responses over HTTP on a loopback address (default
//	127.0.0.1:8787), one entry per POST /v1/messages, on real time.
//	SCRIPT is a provider script file (the kind_config of a provider:
//	[[script]] entries, docs/agents.md), or a scenario — a file or an
//	embedded name such as agent/rate_limit — whose first provider peer's
//	script is served. A request may name its step with the header
//	x-detsim-step; the script exhausted, it answers 500. --time-scale
//	multiplies every scripted delay (0.01: a hundred times faster).
//	At most --max-conns connections (default 32) are served at once;
//	with no request in flight for --idle-stop (default 10m) it stops
//	by itself.
//	Point a client at it:
//	  ANTHROPIC_BASE_URL=http://127.0.0.1:8787 ANTHROPIC_API_KEY=x your-client
//	Stops on SIGINT/SIGTERM (ctx), or idle.
package providerserve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/flagargs"
	"github.com/detsim/detsim/internal/guard"
	"github.com/detsim/detsim/internal/safefile"
	"github.com/detsim/detsim/kinds/agent/provider"
	"github.com/detsim/detsim/scenarios"
)

// DefaultAddr is the address provider-serve listens on by default.
const DefaultAddr = "127.0.0.1:8787"

// Limits on a request.
const (
	DefaultMaxRequestBytes = 4 << 20  // a request body; larger is 413
	MaxHeaderBytes         = 64 << 10 // the request line and headers
	readHeaderTimeout      = 10 * time.Second
	maxScriptFileBytes     = 4 << 20
	// DefaultMaxConns bounds the connections one client (a local user)
	// has open at once; one more is closed as it is accepted
	// (internal/guard).
	DefaultMaxConns = guard.DefaultPerClient
	// DefaultIdleStop is how long the server waits with no request in
	// flight before it stops by itself.
	DefaultIdleStop = 10 * time.Minute
	keepAliveIdle   = 30 * time.Second
	// A request body must keep coming: no byte for DefaultBodyIdle, or
	// not all of it within DefaultBodyRead, ends the request (408) and
	// closes the connection. Without them one client sending headers and
	// one byte of a ten-byte body held a connection slot for ever and
	// kept --idle-stop from ever firing; MaxConns of them locked every
	// client out.
	DefaultBodyIdle = 10 * time.Second
	DefaultBodyRead = 60 * time.Second
)

// StepHeader names the request header that says which workflow step a
// request is for, so step-keyed entries can be picked over HTTP.
const StepHeader = "x-detsim-step"

// Options tune a server. The zero value serves on real time.
type Options struct {
	// TimeScale multiplies every scripted delay (first byte, per chunk,
	// stall): 1 (or 0, the default) is the script's own timing, 0.01 is
	// a hundred times faster. The retry-after header is the script's, in
	// seconds, unscaled: it is what a client reads.
	TimeScale float64
	// MaxRequestBytes bounds a request body (default
	// DefaultMaxRequestBytes).
	MaxRequestBytes int64
	// MaxConns bounds the connections one client, a local user, has open
	// at once (default DefaultMaxConns): one more is closed as it is
	// accepted, so no client can hold the others out (internal/guard).
	MaxConns int
	// Key is what every request must present, as x-api-key or
	// Authorization: Bearer (the SDKs' apiKey); a request without it is
	// 401 and takes no entry of the script. Serve refuses an empty Key.
	Key string
	// IdleStop, when positive, stops the server once no request has been
	// in flight for that long: a forgotten server does not run forever.
	IdleStop time.Duration
	// Logf, when set, gets one line per request and per error.
	Logf func(format string, args ...any)
	// BodyIdle and BodyRead bound the reading of a request body: the
	// longest wait for its next byte and for the whole of it (defaults
	// DefaultBodyIdle, DefaultBodyRead).
	BodyIdle, BodyRead time.Duration
}

// Serve serves script on ln until ctx is done, or until no request has
// been in flight for opts.IdleStop, then closes ln and every connection
// (a hanging response included) and returns nil. It refuses a listener
// whose address is not a loopback TCP address, before accepting
// anything. Any other error is the listener's.
func Serve(ctx context.Context, ln net.Listener, script provider.Script, opts Options) error {
	if err := CheckLoopback(ln.Addr()); err != nil {
		ln.Close()
		return err
	}
	if opts.Key == "" {
		ln.Close()
		return errors.New("provider-serve: no key: every listener is authenticated (docs/security.md)")
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	lim := guard.NewListener(ln, guard.Limits{PerClient: opts.MaxConns, Refused: func(client string) {
		if opts.Logf != nil {
			opts.Logf("provider-serve: refused a connection of %s: it has %d open", client, max(opts.MaxConns, 1))
		}
	}})
	act := NewActivity()
	srv := &http.Server{
		Handler:           act.Wrap(NewHandler(script, opts)),
		MaxHeaderBytes:    MaxHeaderBytes,
		ReadHeaderTimeout: readHeaderTimeout,
		// A kept-alive connection holds one of its client's MaxConns:
		// close it once it has been idle this long.
		IdleTimeout: keepAliveIdle,
		BaseContext: func(net.Listener) context.Context { return ctx },
		ConnContext: guard.ConnContext,
		ErrorLog:    nil,
	}
	done := make(chan struct{})
	go func() {
		var idle <-chan time.Time
		if opts.IdleStop > 0 {
			t := time.NewTicker(max(min(opts.IdleStop/4, time.Second), time.Millisecond)) // NewTicker panics on 0
			defer t.Stop()
			idle = t.C
		}
		for {
			select {
			case <-ctx.Done():
				srv.Close()
				return
			case <-done:
				return
			case <-idle:
				if act.IdleFor() >= opts.IdleStop {
					if opts.Logf != nil {
						opts.Logf("provider-serve: no request for %v: stopping", opts.IdleStop)
					}
					stop()
				}
			}
		}
	}()
	err := srv.Serve(lim)
	close(done)
	if ctx.Err() != nil && errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Activity tracks requests in flight and when the last one ended, for
// the idle stop (here and in package edge).
type Activity struct {
	mu       sync.Mutex
	inFlight int
	since    time.Time // when inFlight last became 0
}

// NewActivity starts idle now.
func NewActivity() *Activity { return &Activity{since: time.Now()} }

// Wrap counts h's requests in flight.
func (a *Activity) Wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.inFlight++
		a.mu.Unlock()
		defer func() {
			a.mu.Lock()
			if a.inFlight--; a.inFlight == 0 {
				a.since = time.Now()
			}
			a.mu.Unlock()
		}()
		h.ServeHTTP(w, r)
	})
}

// IdleFor is how long no request has been in flight (0 while one is).
func (a *Activity) IdleFor() time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.inFlight > 0 {
		return 0
	}
	return time.Since(a.since)
}

// CheckLoopback refuses any address but a loopback TCP one: the edge
// serves a test script with no authentication and must not be reachable
// from another machine.
func CheckLoopback(a net.Addr) error {
	t, ok := a.(*net.TCPAddr)
	if !ok {
		return fmt.Errorf("provider-serve: refusing to serve on %s %q: only a loopback TCP address (127.0.0.1, ::1)", a.Network(), a.String())
	}
	if !t.IP.IsLoopback() {
		return fmt.Errorf("provider-serve: refusing to serve on %s: not a loopback address (use 127.0.0.1:PORT or [::1]:PORT)", t)
	}
	return nil
}

// Listen listens on addr, which must name a loopback host ("127.0.0.1:0",
// "[::1]:8787", "localhost:8787"); "" is DefaultAddr.
func Listen(addr string) (net.Listener, error) {
	if addr == "" {
		addr = DefaultAddr
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("provider-serve: --addr %q: %v", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("provider-serve: --addr %q: not a loopback address (use 127.0.0.1:PORT, [::1]:PORT or localhost:PORT)", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	if err := CheckLoopback(ln.Addr()); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}

// ListenKeyed listens on addr (Listen) and writes the key file
// (guard.WriteKeyFile) for the command cmd, as provider-serve and the
// edge both start; what fails is said on stderr under cmd's name. The
// exit status is 0 once both are ready, 2 for a usage error (an address
// that is not loopback, a key file that cannot be written) and 3 for an
// address that cannot be listened on.
func ListenKeyed(addr, keyFile, cmd string, stderr io.Writer) (net.Listener, *guard.KeyFile, int) {
	ln, err := Listen(addr)
	if err != nil {
		fmt.Fprintln(stderr, strings.Replace(err.Error(), "provider-serve", cmd, 1))
		if strings.Contains(err.Error(), "loopback") {
			return nil, nil, 2
		}
		return nil, nil, 3
	}
	key, err := guard.WriteKeyFile(keyFile, cmd+"-key")
	if err != nil {
		ln.Close()
		fmt.Fprintln(stderr, "detsim "+cmd+":", err)
		return nil, nil, 2
	}
	return ln, key, 0
}

// Logger is Options.Logf writing a line a call to w, one call at a time
// (handlers log from their own goroutines).
func Logger(w io.Writer) func(format string, a ...any) {
	var mu sync.Mutex
	return func(format string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, format+"\n", a...)
	}
}

// handler serves one script; its entries are taken once each, in the
// order requests arrive.
type handler struct {
	sc    provider.Script
	opts  Options
	mu    sync.Mutex
	used  []bool
	calls int64
}

// NewHandler is Serve's handler, for tests (httptest) and for callers
// with their own http.Server.
func NewHandler(script provider.Script, opts Options) http.Handler {
	// Each zero option takes its own default, as the edge's New and
	// guard.NewListener do theirs: alike in shape only, the fields
	// differ.
	if opts.TimeScale <= 0 {
		opts.TimeScale = 1
	}
	if opts.MaxRequestBytes <= 0 {
		opts.MaxRequestBytes = DefaultMaxRequestBytes
	}
	if opts.BodyIdle <= 0 {
		opts.BodyIdle = DefaultBodyIdle
	}
	if opts.BodyRead <= 0 {
		opts.BodyRead = DefaultBodyRead
	}
	return &handler{sc: script, opts: opts, used: make([]bool, len(script.Entries))}
}

func (h *handler) logf(format string, args ...any) {
	if h.opts.Logf != nil {
		h.opts.Logf(format, args...)
	}
}

// bodyReader reads r's body up to MaxRequestBytes, each read under a
// deadline: BodyIdle from now, never past BodyRead from the first. The
// deadline is lifted once the body is read, so a long streamed response
// is not cut.
func (h *handler) bodyReader(w http.ResponseWriter, r *http.Request) io.Reader {
	return BodyReader(w, r, h.opts.MaxRequestBytes, h.opts.BodyIdle, h.opts.BodyRead)
}

// BodyReader reads r's body up to max bytes (more is an
// *http.MaxBytesError), each read under a deadline: idle from now, never
// past read from the first (os.ErrDeadlineExceeded). The deadline is
// lifted once the body is read, so a long streamed response is not cut.
func BodyReader(w http.ResponseWriter, r *http.Request, max int64, idle, read time.Duration) io.Reader {
	rc := http.NewResponseController(w)
	end := time.Now().Add(read)
	return &deadlineReader{r: http.MaxBytesReader(w, r.Body, max), idle: idle, end: end, set: rc.SetReadDeadline}
}

type deadlineReader struct {
	r    io.Reader
	idle time.Duration
	end  time.Time
	set  func(time.Time) error
}

func (d *deadlineReader) Read(p []byte) (int, error) {
	at := time.Now().Add(d.idle)
	if at.After(d.end) {
		at = d.end
	}
	_ = d.set(at) // a connection that cannot take a deadline reads without one
	n, err := d.r.Read(p)
	if err == io.EOF {
		_ = d.set(time.Time{})
	}
	return n, err
}

// apiError writes an error the way the API does: a JSON body naming the
// error type.
func apiError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("content-type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"type":"error","error":{"type":%s,"message":%s}}`, strconv.Quote(typ), strconv.Quote(msg))
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		// A handler panic would kill only this request, but it is a bug
		// here, never the client's fault: log it and end the request.
		if p := recover(); p != nil && p != http.ErrAbortHandler {
			h.logf("provider-serve: internal error on %s %s: %v", r.Method, r.URL.Path, p)
		}
	}()
	if ref := guard.CheckRequest(r); ref != nil {
		h.logf("provider-serve: refused %s %s: %s", r.Method, r.URL.Path, ref.Reason)
		apiError(w, ref.Status, ref.Type, ref.Reason)
		return
	}
	if !guard.Equal(guard.Presented(r), h.opts.Key) {
		ref := guard.Unauthorized(r)
		h.logf("provider-serve: refused %s %s: %s", r.Method, r.URL.Path, ref.Reason)
		apiError(w, ref.Status, ref.Type, ref.Reason)
		return
	}
	if r.URL.Path != "/v1/messages" {
		apiError(w, http.StatusNotFound, "not_found_error", "only POST /v1/messages is served")
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("allow", "POST")
		apiError(w, http.StatusMethodNotAllowed, "invalid_request_error", "method "+r.Method+" not allowed: POST /v1/messages")
		return
	}
	body, err := io.ReadAll(h.bodyReader(w, r))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			apiError(w, http.StatusRequestEntityTooLarge, "request_too_large", fmt.Sprintf("request body over %d bytes", h.opts.MaxRequestBytes))
			return
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			w.Header().Set("connection", "close")
			apiError(w, http.StatusRequestTimeout, "request_timeout", fmt.Sprintf("the request body did not arrive in time (a byte at least every %v, all of it within %v)", h.opts.BodyIdle, h.opts.BodyRead))
			return
		}
		apiError(w, http.StatusBadRequest, "invalid_request_error", "reading the request body: "+err.Error())
		return
	}
	if !jsonObject(body) {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "the request body is not a JSON object")
		return
	}
	step := r.Header.Get(StepHeader)
	h.mu.Lock()
	h.calls++
	call := "http" + strconv.FormatInt(h.calls, 10)
	// A request without "stream": true gets one JSON message, as the API
	// answers it (before, it got an SSE body an SDK took for a message
	// with no content and no error).
	var req struct {
		Stream bool `json:"stream"`
	}
	_ = json.Unmarshal(body, &req)
	resp, entry := h.sc.RespondAs(h.used, step, call, provider.Format{Stream: req.Stream})
	h.mu.Unlock()
	fault := "script_exhausted"
	if entry >= 0 {
		fault = h.sc.Entries[entry].Fault.Kind
	}
	h.logf("provider-serve: %s step %q → entry %d status %d fault %q", call, step, entry, resp.Status, fault)
	h.write(w, r, &resp)
}

// jsonObject is a cheap shape check: the body starts with '{' after
// whitespace. The script decides the response, not the request; a body
// the API would reject for its fields is still answered from the script.
func jsonObject(b []byte) bool {
	b = bytes.TrimLeft(b, " \t\r\n")
	return len(b) > 0 && b[0] == '{'
}

// write sends resp: nothing at all for Never (until the client or the
// server gives up), else the head with the first piece after its delay,
// each later piece after its own, and then — for Hang — silence until
// the client goes. A truncated stream ends cleanly (the terminating
// chunk) with no message_stop, as a proxy cutting a stream would.
func (h *handler) write(w http.ResponseWriter, r *http.Request, resp *provider.Response) {
	ctx := r.Context()
	if resp.Never {
		<-ctx.Done()
		return
	}
	fl, _ := w.(http.Flusher)
	for i, p := range resp.Pieces {
		if !h.sleep(ctx, p.DelayNs) {
			return
		}
		if i == 0 {
			for _, hd := range resp.Headers {
				w.Header().Set(hd.Name, hd.Value)
			}
			if resp.Status != http.StatusOK {
				w.Header().Set("content-length", strconv.Itoa(len(p.Data)))
			}
			w.WriteHeader(resp.Status)
		}
		if _, err := w.Write(p.Data); err != nil {
			return
		}
		if i == 0 && resp.Status == http.StatusOK && bytes.HasPrefix(p.Data, []byte("event: message_start")) {
			w.Write(Ping) // the keep-alive the API sends after message_start
		}
		if fl != nil {
			fl.Flush()
		}
	}
	if resp.Hang {
		<-ctx.Done()
	}
}

// Ping is the keep-alive event the Messages API sends in its streams,
// after message_start (the edge sends it too).
var Ping = []byte("event: ping\ndata: {\"type\": \"ping\"}\n\n")

// sleep waits d scaled, or until ctx ends (false).
func (h *handler) sleep(ctx context.Context, ns int64) bool {
	d := time.Duration(float64(ns) * h.opts.TimeScale)
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// LoadScript reads what provider-serve serves: a provider script file
// (a provider's kind_config: [[script]] entries and the optional model,
// max_chunk_bytes and steps), or a scenario — a file with [[peers]], or
// an embedded scenario name — whose first provider peer (by id) is
// served. A malformed script is an error naming the field.
func LoadScript(arg string, reg *hosts.Registry) (provider.Script, error) {
	data, err := readFile(arg)
	if err != nil {
		if os.IsNotExist(err) {
			if sc, lerr := scenarios.LoadLibrary(arg, reg); lerr == nil {
				return fromScenario(arg, sc)
			}
		}
		return provider.Script{}, fmt.Errorf("%s: %v", arg, err)
	}
	tree, err := scenarios.DecodeTree(data)
	if err != nil {
		return provider.Script{}, fmt.Errorf("%s: TOML: %v", arg, err)
	}
	if _, isScenario := tree["peers"]; isScenario {
		sc, err := scenarios.Load(arg, reg)
		if err != nil {
			return provider.Script{}, err
		}
		return fromScenario(arg, sc)
	}
	s, errs := provider.ParseScript(tree)
	if len(errs) > 0 {
		var b strings.Builder
		for i, e := range errs {
			if i > 0 {
				b.WriteByte('\n')
			}
			fmt.Fprintf(&b, "%s: %s: %s", arg, strings.TrimPrefix(e.Field, "kind_config."), e.Msg)
		}
		return provider.Script{}, errors.New(b.String())
	}
	return s, nil
}

func fromScenario(arg string, sc *scenarios.Scenario) (provider.Script, error) {
	for _, p := range sc.Peers {
		if p.Kind == provider.Tag {
			s, errs := provider.ParseScript(p.KindConfig)
			if len(errs) > 0 {
				return provider.Script{}, fmt.Errorf("%s: peers[%s].%s", arg, p.ID, errs[0].Error())
			}
			return s, nil
		}
	}
	return provider.Script{}, fmt.Errorf("%s: the scenario has no provider peer", arg)
}

func readFile(path string) ([]byte, error) {
	f, err := safefile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return safefile.Read(f, "it", maxScriptFileBytes)
}

// Command is `detsim provider-serve SCRIPT [--addr 127.0.0.1:PORT]
// [--time-scale F]` for the CLI to wire: it loads SCRIPT (LoadScript),
// listens on loopback (Listen), prints the address it serves on to
// stderr and serves until ctx is done or it is idle. Exit codes: 0
// stopped by ctx or idle, 2
// bad arguments, a malformed script or a non-loopback address, 3 a
// listener failure.
func Command(ctx context.Context, args []string, stderr io.Writer, reg *hosts.Registry) int {
	fs := flag.NewFlagSet("provider-serve", flag.ContinueOnError)
	addr := fs.String("addr", DefaultAddr, "loopback address to listen on (127.0.0.1:PORT, [::1]:PORT, localhost:PORT)")
	scale := fs.Float64("time-scale", 1, "multiply every scripted delay by this (0.01: a hundred times faster)")
	quiet := fs.Bool("q", false, "no line per request")
	maxConns := fs.Int("max-conns", DefaultMaxConns, "connections one client (a local user) has open at once; one more is closed")
	keyFile := fs.String("key-file", "", "write the run's key here (0600; must not exist); default: a new directory under $TMPDIR")
	idle := fs.Duration("idle-stop", DefaultIdleStop, "stop by itself once no request has been in flight this long (0: only on SIGINT/SIGTERM)")
	pos, err := flagargs.Interspersed(fs, args)
	if err != nil {
		fmt.Fprintf(stderr, "detsim: provider-serve: %v\nrun 'detsim help provider-serve' for usage\n", err)
		return 2
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "detsim provider-serve: want one SCRIPT (a provider script file or a scenario); see detsim help provider-serve")
		return 2
	}
	if *scale <= 0 {
		fmt.Fprintf(stderr, "detsim provider-serve: --time-scale %v: want a positive number\n", *scale)
		return 2
	}
	if *maxConns <= 0 || *idle < 0 {
		fmt.Fprintf(stderr, "detsim provider-serve: --max-conns %d, --idle-stop %v: want a positive count and a duration of 0 or more\n", *maxConns, *idle)
		return 2
	}
	sc, err := LoadScript(pos[0], reg)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	ln, key, code := ListenKeyed(*addr, *keyFile, "provider-serve", stderr)
	if code != 0 {
		return code
	}
	defer key.Remove()
	fmt.Fprintf(stderr, "provider-serve: %d entries of %s on http://%s (POST /v1/messages; time scale %v)\n", len(sc.Entries), pos[0], ln.Addr(), *scale)
	fmt.Fprintf(stderr, "provider-serve: key in %s (send it as x-api-key or Authorization: Bearer; the SDKs' apiKey)\n", key.Path)
	opts := Options{TimeScale: *scale, MaxConns: *maxConns, IdleStop: *idle, Key: key.Key}
	if !*quiet {
		opts.Logf = Logger(stderr)
	}
	if err := Serve(ctx, ln, sc, opts); err != nil {
		fmt.Fprintln(stderr, "provider-serve:", err)
		return 3
	}
	return 0
}
