package provider

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"

	"github.com/detsim/detsim/internal/jsonw"
)

// Response is one entry rendered as the bytes the Anthropic Messages API
// sends for a streaming request (POST /v1/messages, "stream": true): an
// HTTP status and headers, then a body of pieces, each sent DelayNs after
// the one before (the first DelayNs after the request arrived). For a 200
// the pieces are SSE events — event: message_start, content_block_start,
// content_block_delta (text_delta, input_json_delta), content_block_stop,
// message_delta (stop_reason, usage), message_stop, or event: error — one
// piece per event; for an error status the one piece is the JSON error
// body.
type Response struct {
	Status  int
	Headers []Header
	Pieces  []Piece
	// Never: no byte is ever sent (timeout before the first byte).
	Never bool
	// Hang: after the last piece the connection stays open, silent.
	Hang bool
	// Complete: the body ends with message_stop (a whole 200 stream).
	Complete bool
	// Carried is the digest (llmwire.Content.Digest) of the content the
	// stream carries when a strict client can read it as one whole
	// response, "" when it cannot (a torn, malformed or error response).
	Carried string
	// BodyBytes is the body's length: every piece's bytes, the status
	// line and headers not included.
	BodyBytes int64
	// Cut: a one-piece body (not a stream) that ends short of what the
	// headers promise, the connection closed after it (a truncated
	// non-streaming response).
	Cut bool
}

// Header is one response header.
type Header struct{ Name, Value string }

// Piece is one body piece.
type Piece struct {
	DelayNs int64
	Data    []byte
}

// ServedDigest is the SHA-256 (hex) of every byte the response sends:
// the head, then each piece. A run's records carry it (response_end's
// served), so a run's digest, and a pinned seed's, holds what was served,
// not only its size.
func (r *Response) ServedDigest() string {
	h := sha256.New()
	h.Write(r.Head())
	for _, p := range r.Pieces {
		h.Write(p.Data)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Head renders the status line and headers as HTTP/1.1 bytes.
func (r *Response) Head() []byte {
	b := []byte("HTTP/1.1 ")
	b = strconv.AppendInt(b, int64(r.Status), 10)
	b = append(b, ' ')
	b = append(b, StatusText(r.Status)...)
	b = append(b, "\r\n"...)
	for _, h := range r.Headers {
		b = append(b, h.Name...)
		b = append(b, ": "...)
		b = append(b, h.Value...)
		b = append(b, "\r\n"...)
	}
	return append(b, "\r\n"...)
}

// StatusText is the reason phrase for the statuses a script produces.
func StatusText(code int) string {
	switch code {
	case 200:
		return "OK"
	case 401:
		return "Unauthorized"
	case 429:
		return "Too Many Requests"
	case 500:
		return "Internal Server Error"
	case 502:
		return "Bad Gateway"
	case 503:
		return "Service Unavailable"
	case 529:
		return "Overloaded"
	}
	return "Error"
}

// eventCount is the number of SSE events an entry's clean stream has:
// message_start, the text block (start, deltas, stop), each tool block,
// message_delta and message_stop.
func eventCount(e *Entry) int {
	n := 2 + len(e.Text) + 2 + 1
	for _, u := range e.Tools {
		n += 2 + len(u.Args)
	}
	return n
}

// Render builds the response of entry e to the request of call id call.
// It is a pure function of the script: ids derive from call.
func (s *Script) Render(e *Entry, call string) Response {
	reqID := "req_" + call
	switch e.Fault.Kind {
	case FaultTimeout:
		return Response{Status: 200, Never: true}
	case FaultRateLimit:
		secs := (e.Fault.RetryAfterNs + 999_999_999) / 1_000_000_000
		return errorResponse(429, reqID, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit",
			e.FirstByteNs, Header{"retry-after", strconv.FormatInt(secs, 10)})
	case FaultServerError:
		typ, msg := "api_error", "Internal server error"
		if e.Fault.Status == 529 {
			typ, msg = "overloaded_error", "Overloaded"
		}
		return errorResponse(int(e.Fault.Status), reqID, typ, msg, e.FirstByteNs)
	case FaultAuthExpired:
		return errorResponse(401, reqID, "authentication_error", "invalid x-api-key", e.FirstByteNs)
	}
	r := Response{Status: 200, Headers: []Header{
		{"content-type", "text/event-stream; charset=utf-8"},
		{"cache-control", "no-cache"},
		{"request-id", reqID},
	}}
	evs := s.events(e, call)
	f := e.Fault
	switch f.Kind {
	case FaultOverloaded:
		evs = append(evs[:f.AfterEvents:f.AfterEvents], sse("error", errorJSON("overloaded_error", "Overloaded")))
	case FaultHang:
		evs = evs[:f.AfterEvents]
		r.Hang = true
	case FaultTruncated:
		evs = evs[:f.AfterEvents]
	case FaultMalformedSSE:
		evs[f.AfterEvents] = malformedSSE(evs[f.AfterEvents])
	case FaultMalformedJSON:
		evs[f.AfterEvents] = malformedJSON(evs[f.AfterEvents])
	case FaultOversized:
		var fill [][]byte
		piece := make([]byte, s.MaxChunkBytes)
		for i := range piece {
			piece[i] = 'x'
		}
		for left := f.Bytes; left > 0; left -= s.MaxChunkBytes {
			n := min(left, s.MaxChunkBytes)
			fill = append(fill, sse("content_block_delta", textDelta(0, string(piece[:n]))))
		}
		// The filler is text deltas of block 0, so it goes where that
		// block is open — after its content_block_start, by its
		// content_block_stop at the latest —, the after_chunks nearest
		// inside it: a delta to a block not open is a broken stream, not
		// an oversized one (docs/agents.md, "Scripts").
		at := min(max(f.AfterEvents, 2), int64(2+len(e.Text)))
		evs = append(evs[:at:at], append(fill, evs[at:]...)...)
	case FaultDuplicateFrag, FaultReorderFrags:
		k := fragmentEvent(e, int(f.Fragment))
		if f.Kind == FaultDuplicateFrag {
			evs = append(evs[:k+1:k+1], evs[k:]...)
		} else {
			k2 := fragmentEvent(e, int(f.Fragment)+1)
			evs[k], evs[k2] = evs[k2], evs[k]
		}
	}
	r.Complete = !r.Hang && len(evs) > 0 && string(lastEventName(evs[len(evs)-1])) == "message_stop"
	if c, whole := carried(evs); r.Complete && whole {
		r.Carried = c.Digest()
	}
	for i, ev := range evs {
		d := e.ChunkNs
		if i == 0 {
			d = e.FirstByteNs
		}
		if f.Kind == FaultStall && int64(i) == f.AfterEvents {
			d += f.StallNs
		}
		r.Pieces = append(r.Pieces, Piece{DelayNs: d, Data: ev})
		r.BodyBytes += int64(len(ev))
	}
	switch {
	case f.Kind == FaultTruncated:
		// The clean close comes where the next event would, on a piece
		// of its own with no bytes.
		d := e.ChunkNs
		if len(r.Pieces) == 0 {
			d = e.FirstByteNs
		}
		r.Pieces = append(r.Pieces, Piece{DelayNs: d})
	case f.Kind == FaultHang && len(r.Pieces) == 0:
		r.Pieces = append(r.Pieces, Piece{DelayNs: e.FirstByteNs}) // the head alone
	}
	return r
}

func lastEventName(ev []byte) []byte {
	const p = "event: "
	if len(ev) < len(p) || string(ev[:len(p)]) != p {
		return nil
	}
	for i := len(p); i < len(ev); i++ {
		if ev[i] == '\n' {
			return ev[len(p):i]
		}
	}
	return nil
}

// fragmentEvent is the index, among the stream's events, of the k-th
// input_json_delta.
func fragmentEvent(e *Entry, k int) int {
	i := 2 + len(e.Text) + 1 // message_start, text block start, deltas, stop
	for _, u := range e.Tools {
		i++ // content_block_start
		if k < len(u.Args) {
			return i + k
		}
		k -= len(u.Args)
		i += len(u.Args) + 1
	}
	panic("provider: fragment out of range (validated)")
}

func (s *Script) events(e *Entry, call string) [][]byte {
	evs := make([][]byte, 0, eventCount(e))
	b := []byte(`{"type":"message_start","message":{"id":`)
	b = jsonw.AppendString(b, "msg_"+call)
	b = append(b, `,"type":"message","role":"assistant","model":`...)
	b = jsonw.AppendString(b, s.Model)
	b = append(b, `,"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":`...)
	b = strconv.AppendInt(b, e.InputTokens, 10)
	b = append(b, `,"output_tokens":1}}}`...)
	evs = append(evs, sse("message_start", b))
	evs = append(evs, sse("content_block_start", []byte(`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)))
	for _, t := range e.Text {
		evs = append(evs, sse("content_block_delta", textDelta(0, t)))
	}
	evs = append(evs, sse("content_block_stop", blockStop(0)))
	for i, u := range e.Tools {
		idx := i + 1
		b := []byte(`{"type":"content_block_start","index":`)
		b = strconv.AppendInt(b, int64(idx), 10)
		b = append(b, `,"content_block":{"type":"tool_use","id":`...)
		b = jsonw.AppendString(b, u.ID)
		b = append(b, `,"name":`...)
		b = jsonw.AppendString(b, u.Name)
		b = append(b, `,"input":{}}}`...)
		evs = append(evs, sse("content_block_start", b))
		for _, a := range u.Args {
			d := []byte(`{"type":"content_block_delta","index":`)
			d = strconv.AppendInt(d, int64(idx), 10)
			d = append(d, `,"delta":{"type":"input_json_delta","partial_json":`...)
			d = jsonw.AppendString(d, a)
			d = append(d, `}}`...)
			evs = append(evs, sse("content_block_delta", d))
		}
		evs = append(evs, sse("content_block_stop", blockStop(idx)))
	}
	stop := "end_turn"
	if len(e.Tools) > 0 {
		stop = "tool_use"
	}
	b = []byte(`{"type":"message_delta","delta":{"stop_reason":`)
	b = jsonw.AppendString(b, stop)
	b = append(b, `,"stop_sequence":null},"usage":{"output_tokens":`...)
	b = strconv.AppendInt(b, e.OutputTokens, 10)
	b = append(b, `}}`...)
	evs = append(evs, sse("message_delta", b))
	evs = append(evs, sse("message_stop", []byte(`{"type":"message_stop"}`)))
	return evs
}

func sse(name string, data []byte) []byte {
	b := make([]byte, 0, len(name)+len(data)+16)
	b = append(b, "event: "...)
	b = append(b, name...)
	b = append(b, "\ndata: "...)
	b = append(b, data...)
	return append(b, "\n\n"...)
}

func textDelta(idx int, text string) []byte {
	d := []byte(`{"type":"content_block_delta","index":`)
	d = strconv.AppendInt(d, int64(idx), 10)
	d = append(d, `,"delta":{"type":"text_delta","text":`...)
	d = jsonw.AppendString(d, text)
	return append(d, `}}`...)
}

func blockStop(idx int) []byte {
	b := []byte(`{"type":"content_block_stop","index":`)
	b = strconv.AppendInt(b, int64(idx), 10)
	return append(b, '}')
}

func errorJSON(typ, msg string) []byte {
	b := []byte(`{"type":"error","error":{"type":`)
	b = jsonw.AppendString(b, typ)
	b = append(b, `,"message":`...)
	b = jsonw.AppendString(b, msg)
	return append(b, `}}`...)
}

func errorResponse(status int, reqID, typ, msg string, delay int64, extra ...Header) Response {
	h := append([]Header{{"content-type", "application/json"}, {"request-id", reqID}}, extra...)
	if status == 429 || status >= 500 {
		h = append(h, Header{"x-should-retry", "true"})
	}
	body := errorJSON(typ, msg)
	return Response{Status: status, Headers: h, Pieces: []Piece{{DelayNs: delay, Data: body}}, BodyBytes: int64(len(body))}
}

// malformedSSE drops the colon after "data" on the event's data line, so
// an SSE parser sees a field named `data {...}` (ignored by the SSE
// rules) and an event with no data.
func malformedSSE(ev []byte) []byte {
	out := make([]byte, 0, len(ev))
	for i := 0; i < len(ev); i++ {
		if i+6 <= len(ev) && string(ev[i:i+6]) == "\ndata:" {
			out = append(out, "\ndata"...)
			i += 5
			continue
		}
		out = append(out, ev[i])
	}
	return out
}

// malformedJSON cuts the event's JSON data in half.
func malformedJSON(ev []byte) []byte {
	const p = "\ndata: "
	for i := 0; i+len(p) <= len(ev); i++ {
		if string(ev[i:i+len(p)]) == p {
			start := i + len(p)
			end := len(ev) - 2 // before "\n\n"
			cut := start + (end-start)/2
			out := append([]byte(nil), ev[:cut]...)
			return append(out, "\n\n"...)
		}
	}
	return ev
}
