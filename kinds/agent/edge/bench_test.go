package edge

import (
	"bufio"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// BenchmarkEdge_ChunkLateness measures what the edge adds to each
// streamed chunk at time scale 1 on loopback: one response of 200 text
// deltas 2 ms apart (400 ms) per iteration, read by a plain HTTP client
// that notes when each SSE event arrives. A chunk's lateness is how much
// later than scheduled it arrived after the stream's first event
// (message_start): (arrival − first arrival) − (its delays since). The
// request's own trip and the first byte's wait are left out, as they are
// not per chunk; the client's read path is in, so it is an upper bound
// on the edge's part. Reports the p50, p99 and largest lateness in µs
// over every chunk of every iteration as client-p99; and edge-p50, -p99
// and -max, measured in the edge itself: how long after its scheduled
// instant each piece had been written and flushed to the socket — what
// the edge adds (the target: p99 under 1 ms).
func BenchmarkEdge_ChunkLateness(b *testing.B) {
	for _, spin := range []time.Duration{spinWindow, 0} {
		b.Run("spin="+spin.String(), func(b *testing.B) {
			defer func(old time.Duration) { spinWindow = old }(spinWindow)
			spinWindow = spin
			chunkLateness(b)
		})
	}
}

func chunkLateness(b *testing.B) {
	const chunks, chunkNs, firstNs = 200, 2_000_000, 5_000_000
	texts := make([]string, chunks)
	for i := range texts {
		texts[i] = strconv.Quote("word ")
	}
	entry := "[[script]]\nfirst_byte_ns = " + strconv.Itoa(firstNs) + "\nchunk_ns = " + strconv.Itoa(chunkNs) + "\ntext = [" + strings.Join(texts, ",") + "]\n"
	script := strings.Repeat(entry, 64)
	var mu sync.Mutex
	var edgeLate []time.Duration
	r := startWith(b, scenario(b, script, "", ""), Options{TimeScale: 1}, func(e *Edge) {
		e.pieceLate = func(d time.Duration) {
			mu.Lock()
			edgeLate = append(edgeLate, d)
			mu.Unlock()
		}
	})
	base := r.session(b, "bench")
	var late []time.Duration
	for b.Loop() {
		body := `{"stream":true,"messages":[{"role":"user","content":"go"}]}`
		var first time.Time
		resp, err := keyedPost(base+"/v1/messages", body)
		if err != nil {
			b.Fatal(err)
		}
		rd := bufio.NewReader(resp.Body)
		due := time.Duration(0)
		event := 0
		for {
			line, err := rd.ReadString('\n')
			if err != nil {
				break
			}
			if !strings.HasPrefix(line, "event: ") {
				continue
			}
			at := time.Now()
			name := strings.TrimSpace(line[len("event: "):])
			if name == "ping" {
				continue // sent with message_start, not a scheduled piece
			}
			if event == 0 {
				first = at
			} else {
				due += chunkNs
			}
			now := at.Sub(first)
			event++
			if name == "content_block_delta" {
				late = append(late, now-due)
			}
		}
		resp.Body.Close()
		if event < chunks {
			b.Fatalf("%d events, want over %d", event, chunks)
		}
		if code, _ := post(b, base+"/reset", ""); code != http.StatusOK {
			b.Fatal("reset")
		}
	}
	q := func(ds []time.Duration, p float64) float64 {
		slices.Sort(ds)
		return float64(ds[int(p*float64(len(ds)-1))].Microseconds())
	}
	b.ReportMetric(q(late, 0.99), "client-p99-µs")
	mu.Lock()
	defer mu.Unlock()
	b.ReportMetric(q(edgeLate, 0.5), "edge-p50-µs")
	b.ReportMetric(q(edgeLate, 0.99), "edge-p99-µs")
	b.ReportMetric(q(edgeLate, 1), "edge-max-µs")
}
