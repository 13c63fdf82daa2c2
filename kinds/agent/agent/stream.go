package agent

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/detsim/detsim/kinds/agent/llmwire"
)

// attempt is one model call in flight: what has arrived of its response
// and how it parses. The agent reads the Anthropic Messages streaming
// shape the provider kind sends (kinds/agent/provider/stream.go).
type attempt struct {
	id         string
	seq        uint64 // the next frame expected
	frames     int64
	bytes      int64
	buf        []byte
	headDone   bool
	status     int
	retryAfter int64 // ns, from a retry-after header
	content    bool  // a content delta has been delivered
	text       []byte
	blocks     []block
	stop       bool // message_stop seen
	firstTok   uint64
	idleTok    uint64
	callTok    uint64
	gotFirst   bool
	ooo        []llmwire.Frame // frames that arrived ahead of seq
	silent     bool            // the planted unrecorded_retry: no started record, no outcome
}

type block struct {
	index    int64
	typ      string
	id, name string
	args     []byte
	stopped  bool // content_block_stop seen: no delta may follow
}

func (a *attempt) clone() *attempt {
	if a == nil {
		return nil
	}
	c := *a
	c.buf = bytes.Clone(a.buf)
	c.text = bytes.Clone(a.text)
	c.ooo = slices.Clone(a.ooo) // their Data is never written after the copy
	c.blocks = make([]block, len(a.blocks))
	for i, b := range a.blocks {
		b.args = bytes.Clone(b.args)
		c.blocks[i] = b
	}
	return &c
}

// verdict is how parsing ended an attempt, if it did.
type verdict struct {
	done      bool
	outcome   string // ok, failed
	reason    string
	retryable bool
}

func failed(reason string, retryable bool) verdict {
	return verdict{done: true, outcome: "failed", reason: reason, retryable: retryable}
}

// accepted is the content the attempt assembled, as the agent takes it
// on an ok outcome: the text and each tool use's input (a tool use with
// no fragments has the empty object).
func (a *attempt) accepted() llmwire.Content {
	c := llmwire.Content{Text: string(a.text)}
	for _, b := range a.blocks {
		if b.typ == "tool_use" {
			in := b.args
			if len(in) == 0 {
				in = []byte("{}")
			}
			c.Tools = append(c.Tools, llmwire.ToolUse{ID: b.id, Name: b.name, Input: in})
		}
	}
	return c
}

// parseOpts are the planted bugs the parser has (config.go).
type parseOpts struct {
	limit          int64 // max_response_bytes; 0: none (no_response_cap)
	skipBadEvents  bool
	lenientToolIn  bool
	acceptTruncate bool
}

// feed appends data and parses what is complete.
func (a *attempt) feed(data []byte, o parseOpts) verdict {
	a.buf = append(a.buf, data...)
	if !a.headDone {
		i := bytes.Index(a.buf, []byte("\r\n\r\n"))
		if i < 0 {
			if len(a.buf) > 16<<10 {
				return failed("malformed_head", false)
			}
			return verdict{}
		}
		if v := a.head(a.buf[:i]); v.done {
			return v
		}
		a.buf = a.buf[i+4:]
	}
	a.bytes += int64(len(data))
	if o.limit > 0 && a.bytes > o.limit {
		return failed("oversized", false)
	}
	if a.status != 200 {
		return verdict{} // the error body is read whole at EOF
	}
	for {
		i := bytes.Index(a.buf, []byte("\n\n"))
		if i < 0 {
			return verdict{}
		}
		ev := a.buf[:i]
		a.buf = a.buf[i+2:]
		if v := a.event(ev, o); v.done {
			return v
		}
	}
}

func (a *attempt) head(h []byte) verdict {
	lines := bytes.Split(h, []byte("\r\n"))
	f := bytes.Fields(lines[0])
	if len(f) < 2 || !bytes.HasPrefix(f[0], []byte("HTTP/")) {
		return failed("malformed_head", false)
	}
	code, err := strconv.Atoi(string(f[1]))
	if err != nil || code < 100 || code > 599 {
		return failed("malformed_head", false)
	}
	a.status = code
	for _, l := range lines[1:] {
		k, v, ok := bytes.Cut(l, []byte(":"))
		if ok && string(bytes.ToLower(bytes.TrimSpace(k))) == "retry-after" {
			if secs, err := strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64); err == nil && secs >= 0 && secs < 1<<32 {
				a.retryAfter = secs * 1_000_000_000
			}
		}
	}
	a.headDone = true
	return verdict{}
}

// eof ends the response: the connection closed after the last frame.
func (a *attempt) eof(acceptTruncated bool) verdict {
	if !a.headDone {
		return failed("truncated", true)
	}
	if a.status != 200 {
		var body struct {
			Error struct {
				Type string `json:"type"`
			} `json:"error"`
		}
		typ := "http_" + strconv.Itoa(a.status)
		if json.Unmarshal(a.buf, &body) == nil && body.Error.Type != "" {
			typ = body.Error.Type
		}
		return failed(typ, a.status == 429 || a.status >= 500)
	}
	if a.stop {
		return verdict{} // already ended by message_stop
	}
	if acceptTruncated {
		return verdict{done: true, outcome: "ok", reason: "closed"}
	}
	return failed("truncated", true)
}

// event handles one SSE event (its bytes before the blank line).
func (a *attempt) event(ev []byte, o parseOpts) verdict {
	v := a.parseEvent(ev, o)
	if o.skipBadEvents && v.done && (v.reason == "malformed_sse" || v.reason == "malformed_json") {
		return verdict{} // the planted bug: as some SDKs do, skip the event and read on
	}
	return v
}

func (a *attempt) parseEvent(ev []byte, o parseOpts) verdict {
	var name string
	var data []byte
	hasData := false
	for _, line := range bytes.Split(ev, []byte("\n")) {
		switch {
		case len(line) == 0 || line[0] == ':':
		case bytes.HasPrefix(line, []byte("event:")):
			name = string(bytes.TrimSpace(line[len("event:"):]))
		case bytes.HasPrefix(line, []byte("data:")):
			d := line[len("data:"):]
			if len(d) > 0 && d[0] == ' ' {
				d = d[1:]
			}
			data, hasData = append(data, d...), true
		default:
			// An unknown field: the SSE rules ignore it.
		}
	}
	if name == "" || !hasData {
		return failed("malformed_sse", false)
	}
	var d llmwire.StreamEvent
	if err := json.Unmarshal(data, &d); err != nil {
		return failed("malformed_json", false)
	}
	if d.Type != name {
		return failed("malformed_sse", false)
	}
	switch name {
	case "message_start", "ping", "message_delta":
	case "content_block_stop":
		b := a.block(d.Index)
		if b == nil || b.stopped {
			return failed("malformed_sse", false)
		}
		b.stopped = true
	case "content_block_start":
		if d.ContentBlock == nil {
			return failed("malformed_json", false)
		}
		a.blocks = append(a.blocks, block{index: d.Index, typ: d.ContentBlock.Type, id: d.ContentBlock.ID, name: d.ContentBlock.Name})
	case "content_block_delta":
		if d.Delta == nil {
			return failed("malformed_json", false)
		}
		b := a.block(d.Index)
		if b == nil || b.stopped {
			// A delta to a block never started, or already stopped: the
			// API sends neither, and text appended there is not content.
			return failed("malformed_sse", false)
		}
		switch {
		case d.Delta.Type == "text_delta" && d.Delta.Text != nil:
			a.text = append(a.text, *d.Delta.Text...)
		case d.Delta.Type == "input_json_delta" && d.Delta.PartialJSON != nil:
			b.args = append(b.args, *d.Delta.PartialJSON...)
		default:
			return failed("malformed_json", false)
		}
		a.content = true
	case "message_stop":
		a.stop = true
		for _, b := range a.blocks {
			if b.typ == "tool_use" && (len(b.args) == 0 || !json.Valid(b.args)) {
				// Duplicated or reordered fragments assemble into
				// arguments that do not parse: a torn result.
				if len(b.args) != 0 && !o.lenientToolIn {
					return failed("invalid_tool_args", false)
				}
			}
		}
		return verdict{done: true, outcome: "ok", reason: "message_stop"}
	case "error":
		typ := "error"
		if d.Error != nil && d.Error.Type != "" {
			typ = d.Error.Type
		}
		return failed(typ, typ == "overloaded_error" || typ == "api_error")
	default:
		return failed("malformed_sse", false)
	}
	return verdict{}
}

func (a *attempt) block(index int64) *block {
	for i := range a.blocks {
		if a.blocks[i].index == index {
			return &a.blocks[i]
		}
	}
	return nil
}
