package edge

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/detsim/detsim/kinds/agent/internal/httpfuzz"
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
		req, body, ok := httpfuzz.Parse(raw)
		if !ok {
			return
		}
		e, err := New(sc, Options{TimeScale: 1e-9, Out: filepath.Join(t.TempDir(), "out"), Allow: []string{"true"}, Key: "dsk_fuzz",
			MaxRequestBytes: 1 << 10, Logf: httpfuzz.Logf(t)})
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
		first := httptest.NewRequest("POST", "/s/f/v1/messages", strings.NewReader(`{"messages":[]}`))
		first.Header.Set("x-api-key", s.key)
		first.Header.Set("content-type", "application/json")
		first.Host = "127.0.0.1:8788"
		e.serveHTTP(httptest.NewRecorder(), first.WithContext(ctx)) // a served response: toolu_1
		// The fuzzed request presents the session's key.
		httpfuzz.Replay(t, ctx, req, body, s.key, 2, e.serveHTTP)
		s.end("fuzz")
	})
}
