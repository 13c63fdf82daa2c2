// Package httpfuzz is the agent family's harness for fuzzing its HTTP
// servers (the edge and provider-serve) with raw requests: what a fuzzed
// input becomes, and what every answer to it must be. Each server's fuzz
// test keeps its own seeds and the setup its server needs.
package httpfuzz

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// Parse reads raw as the server's own parser does; ok is false for input
// it refuses, which no handler ever sees. The body is read once, at most
// 4 KiB of it, so that Replay can send it again each round.
func Parse(raw []byte) (req *http.Request, body []byte, ok bool) {
	req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(raw)))
	if err != nil {
		return nil, nil, false
	}
	body, _ = io.ReadAll(io.LimitReader(req.Body, 1<<12))
	return req, body, true
}

// Logf is a server's Logf that fails t on the line a recovered handler
// panic logs ("internal error"): a panic is a bug whatever the input.
func Logf(t *testing.T) func(format string, args ...any) {
	return func(format string, args ...any) {
		if msg := fmt.Sprintf(format, args...); strings.Contains(msg, "internal error") {
			t.Fatal(msg)
		}
	}
}

// Replay serves req with body rounds times in ctx and fails t on any
// answer that is not an HTTP status. The request presents key unless it
// brings a key of its own, so that it reaches the handlers behind the
// guard; internal/guard's tests hold the guard itself.
func Replay(t *testing.T, ctx context.Context, req *http.Request, body []byte, key string, rounds int, serve http.HandlerFunc) {
	t.Helper()
	if req.Header.Get("x-api-key") == "" && req.Header.Get("authorization") == "" {
		req.Header.Set("x-api-key", key)
	}
	for range rounds {
		w := httptest.NewRecorder()
		r := req.Clone(ctx)
		r.Body = io.NopCloser(bytes.NewReader(body))
		serve(w, r)
		if w.Code < 200 || w.Code > 599 {
			t.Fatalf("status %d", w.Code)
		}
	}
}
