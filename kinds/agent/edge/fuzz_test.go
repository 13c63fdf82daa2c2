package edge

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// FuzzEdge feeds the edge any request a client could send (one the
// server's own parser accepts) on a session with a served response: it
// must answer each with a status and never panic (a recovered panic is
// logged as an internal error, which fails here).
func FuzzEdge(f *testing.F) {
	for _, s := range []string{
		"POST /s/f/v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: 15\r\n\r\n{\"messages\":[]}",
		"POST /s/f/v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 29\r\n\r\n{\"stream\":true,\"messages\":[]}",
		"POST /s/f/report HTTP/1.1\r\nHost: x\r\nContent-Length: 27\r\n\r\n{\"turn\":1,\"outcome\":\"ok\"}",
		"POST /s/f/tools/bash HTTP/1.1\r\nHost: x\r\nContent-Length: 16\r\n\r\n{\"id\":\"toolu_1\"}",
		"POST /s/f/tools/bash/toolu_1/cancel HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /s/f/control?after=-3&wait=abc HTTP/1.1\r\nHost: x\r\n\r\n",
		"POST /v1/messages HTTP/1.1\r\nHost: x\r\nx-detsim-session: f\r\nContent-Length: 3\r\n\r\n[1]",
		"POST /sessions HTTP/1.1\r\nHost: x\r\nContent-Length: 9\r\n\r\n{\"id\":7}",
	} {
		f.Add([]byte(s))
	}
	sc := scenario(f, "[[script]]\n"+clean+"[[script]]\nfault = { kind = \"rate_limit\" }\n", "", "")
	f.Fuzz(func(t *testing.T, raw []byte) {
		req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(raw)))
		if err != nil {
			return // the server's parser refuses it before any handler runs
		}
		body, _ := io.ReadAll(io.LimitReader(req.Body, 1<<12))
		e, err := New(sc, Options{TimeScale: 1e-9, Out: filepath.Join(t.TempDir(), "out"), Allow: []string{"true"}, Key: "dsk_fuzz",
			MaxRequestBytes: 1 << 10, Logf: func(format string, args ...any) {
				if msg := fmt.Sprintf(format, args...); strings.Contains(msg, "internal error") {
					t.Fatal(msg)
				}
			}})
		if err != nil {
			t.Fatal(err)
		}
		s, err := e.newSession("f", "uid:0")
		if err != nil {
			t.Fatal(err)
		}
		e.sessions["f"], e.open = s, 1
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		// The fuzzed request presents the session's key (unless it
		// brings one of its own), so it reaches the handlers behind the
		// guard; internal/guard's tests hold the guard itself.
		if req.Header.Get("x-api-key") == "" && req.Header.Get("authorization") == "" {
			req.Header.Set("x-api-key", s.key)
		}
		first := httptest.NewRequest("POST", "/s/f/v1/messages", strings.NewReader(`{"messages":[]}`))
		first.Header.Set("x-api-key", s.key)
		first.Header.Set("content-type", "application/json")
		first.Host = "127.0.0.1:8788"
		e.serveHTTP(httptest.NewRecorder(), first.WithContext(ctx)) // a served response: toolu_1
		for range 2 {
			w := httptest.NewRecorder()
			r := req.Clone(ctx)
			r.Body = io.NopCloser(bytes.NewReader(body))
			e.serveHTTP(w, r)
			if w.Code < 200 || w.Code > 599 {
				t.Fatalf("status %d", w.Code)
			}
		}
		s.end("fuzz")
	})
}
