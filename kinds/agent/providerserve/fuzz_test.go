package providerserve

import (
	"context"
	"testing"
	"time"

	"github.com/detsim/detsim/kinds/agent/internal/httpfuzz"
)

// FuzzHandler feeds the handler any request a client could send (a raw
// HTTP/1.1 request the server's own parser accepts): it must answer each
// with a status and never panic (a recovered panic is logged as an
// internal error, which fails here). Three rounds per input: the script's
// entries, then the script exhausted.
func FuzzHandler(f *testing.F) {
	for _, s := range []string{
		"POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
		"POST /v1/messages HTTP/1.1\r\nHost: x\r\nx-detsim-step: plan\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
		"GET /v1/messages HTTP/1.1\r\nHost: x\r\n\r\n",
		"POST /v1/../messages?x=%zz HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n{\"a\":",
		"POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\n[1]",
	} {
		f.Add([]byte(s))
	}
	sc := script(f, "[[script]]\n"+clean+"[[script]]\nfault = { kind = \"rate_limit\" }\n[[script]]\n"+clean+
		"fault = { kind = \"overloaded\", after_chunks = 2 }\n")
	f.Fuzz(func(t *testing.T, raw []byte) {
		req, body, ok := httpfuzz.Parse(raw)
		if !ok {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		h := NewHandler(sc, Options{Key: "dsk_fuzz", TimeScale: 1e-9, MaxRequestBytes: 1 << 10, Logf: httpfuzz.Logf(t)})
		httpfuzz.Replay(t, ctx, req, body, "dsk_fuzz", 3, h.ServeHTTP)
	})
}
