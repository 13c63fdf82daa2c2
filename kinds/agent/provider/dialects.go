package provider

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/detsim/detsim/internal/jsonw"
	"github.com/detsim/detsim/kinds/agent/llmwire"
)

// The HTTP edge (package edge) serves a script entry four ways: the
// Anthropic Messages API streaming (Render) or not, and the OpenAI Chat
// Completions API streaming or not. The other three are conversions of
// Render's response, piece by piece, so an entry's fault — a stall, a
// cut, a malformed event, a duplicated fragment, an error in the stream
// — is the same fault in every form, at the same place and time.

// Format is how a response is served.
type Format struct {
	OpenAI bool // Chat Completions instead of Messages
	Stream bool // SSE instead of one JSON body
	// IncludeUsage: a Chat Completions stream ends with a chunk of no
	// choices carrying the usage, before [DONE], as the API sends when
	// the request's stream_options.include_usage is true.
	IncludeUsage bool
}

// RenderAs renders entry e for call in format f.
func (s *Script) RenderAs(e *Entry, call string, f Format) Response {
	r := s.Render(e, call)
	switch {
	case !f.OpenAI && f.Stream:
		return r
	case f.OpenAI && f.Stream:
		return s.openAIStream(r, e, call, f.IncludeUsage)
	}
	return s.whole(r, e, call, f.OpenAI)
}

// errorOpenAI is the Chat Completions API's error body for an Anthropic
// error of type typ.
func errorOpenAI(typ, msg string) []byte {
	code := "null"
	otype := "server_error"
	switch typ {
	case "rate_limit_error":
		otype, code = "requests", `"rate_limit_exceeded"`
	case "authentication_error":
		otype, code = "invalid_request_error", `"invalid_api_key"`
	case "invalid_request_error", "not_found_error", "request_too_large", "request_timeout":
		otype = "invalid_request_error"
	}
	b := []byte(`{"error":{"message":`)
	b = jsonw.AppendString(b, msg)
	b = append(b, `,"type":`...)
	b = jsonw.AppendString(b, otype)
	b = append(b, `,"param":null,"code":`...)
	b = append(b, code...)
	return append(b, "}}"...)
}

// ErrorBody is the error body of the API f names for an error of the
// Anthropic type typ: what the edge answers a request it refuses with.
func ErrorBody(f Format, typ, msg string) []byte {
	if f.OpenAI {
		return errorOpenAI(typ, msg)
	}
	return errorJSON(typ, msg)
}

// apiErrorOf reads an Anthropic error body's type and message.
func apiErrorOf(body []byte) (typ, msg string) {
	var e struct {
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	_ = json.Unmarshal(body, &e)
	return e.Error.Type, e.Error.Message
}

// openAIStream converts a rendered Anthropic stream into the Chat
// Completions stream: message_start becomes the role chunk, text deltas
// content chunks, a tool_use start a tool_calls chunk with its id and
// name, input_json_delta an arguments chunk, message_delta the chunk
// with finish_reason and usage, message_stop "data: [DONE]", an error
// event a chunk carrying "error". Events with no counterpart (block
// starts and stops of text, ping) are dropped, their delay carried to
// the next piece. A malformed event stays malformed the same way.
func (s *Script) openAIStream(r Response, e *Entry, call string, usage bool) Response {
	if r.Status != 200 {
		return s.openAIError(r)
	}
	out := Response{Status: 200, Never: r.Never, Hang: r.Hang, Headers: []Header{
		{"content-type", "text/event-stream; charset=utf-8"},
		{"cache-control", "no-cache"},
		{"x-request-id", "req_" + call},
	}}
	id := "chatcmpl-" + call
	tools := map[int64]int{} // Anthropic block index → OpenAI tool_calls index
	carry := int64(0)
	for _, p := range r.Pieces {
		carry += p.DelayNs
		var data []byte
		if len(p.Data) > 0 {
			data = s.openAIChunk(p.Data, id, tools)
			if data == nil {
				continue
			}
			if usage && string(data) == "data: [DONE]\n\n" {
				u := sseData(s.usageChunk(id, e))
				out.Pieces = append(out.Pieces, Piece{DelayNs: carry, Data: u})
				out.BodyBytes += int64(len(u))
				carry = 0
			}
		}
		out.Pieces = append(out.Pieces, Piece{DelayNs: carry, Data: data})
		out.BodyBytes += int64(len(data))
		carry = 0
	}
	if len(out.Pieces) == 0 && !out.Never {
		out.Pieces = append(out.Pieces, Piece{DelayNs: carry})
	}
	out.Complete = r.Complete
	if c, whole := carriedOpenAI(out.Pieces); out.Complete && whole {
		out.Carried = c.Digest()
	}
	return out
}

func (s *Script) openAIError(r Response) Response {
	out := Response{Status: r.Status, Never: r.Never}
	for _, h := range r.Headers {
		if h.Name == "request-id" {
			h.Name = "x-request-id"
		}
		out.Headers = append(out.Headers, h)
	}
	for _, p := range r.Pieces {
		typ, msg := apiErrorOf(p.Data)
		body := errorOpenAI(typ, msg)
		out.Pieces = append(out.Pieces, Piece{DelayNs: p.DelayNs, Data: body})
		out.BodyBytes += int64(len(body))
	}
	return out
}

// openAIChunk is the SSE event of the Chat Completions stream standing
// for one Anthropic event, nil when there is none.
func (s *Script) openAIChunk(ev []byte, id string, tools map[int64]int) []byte {
	name, data, ok := sseEvent(ev)
	var d llmwire.StreamEvent
	if !ok || json.Unmarshal(data, &d) != nil {
		// Malformed in the Anthropic stream: malformed here too, the
		// same way (a data line without its colon, or JSON cut short).
		chunk := s.chunk(id, []byte(`{"content":"`+string(bytes.Repeat([]byte("?"), 8))+`"}`), "")
		if !ok {
			return append(append([]byte("data"), chunk...), "\n\n"...) // no colon: a field named "data{…"
		}
		return sseData(chunk[:len(chunk)/2])
	}
	switch name {
	case "message_start":
		return sseData(s.chunk(id, []byte(`{"role":"assistant","content":""}`), ""))
	case "content_block_start":
		if d.ContentBlock == nil || d.ContentBlock.Type != "tool_use" {
			return nil
		}
		i := len(tools)
		tools[d.Index] = i
		b := []byte(`{"tool_calls":[{"index":`)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, `,"id":`...)
		b = jsonw.AppendString(b, d.ContentBlock.ID)
		b = append(b, `,"type":"function","function":{"name":`...)
		b = jsonw.AppendString(b, d.ContentBlock.Name)
		b = append(b, `,"arguments":""}}]}`...)
		return sseData(s.chunk(id, b, ""))
	case "content_block_delta":
		if d.Delta == nil {
			return nil
		}
		switch {
		case d.Delta.Text != nil:
			b := []byte(`{"content":`)
			b = jsonw.AppendString(b, *d.Delta.Text)
			return sseData(s.chunk(id, append(b, '}'), ""))
		case d.Delta.PartialJSON != nil:
			b := []byte(`{"tool_calls":[{"index":`)
			b = strconv.AppendInt(b, int64(tools[d.Index]), 10)
			b = append(b, `,"function":{"arguments":`...)
			b = jsonw.AppendString(b, *d.Delta.PartialJSON)
			return sseData(s.chunk(id, append(b, "}}]}"...), ""))
		}
		return nil
	case "message_delta":
		reason := "stop"
		if d.Delta != nil && d.Delta.StopReason == "tool_use" {
			reason = "tool_calls"
		}
		return sseData(s.chunk(id, []byte(`{}`), reason))
	case "message_stop":
		return []byte("data: [DONE]\n\n")
	case "error":
		typ, msg := "overloaded_error", "Overloaded"
		if d.Error != nil {
			typ, msg = d.Error.Type, d.Error.Message
		}
		return sseData(errorOpenAI(typ, msg))
	}
	return nil // ping, content_block_stop
}

// usageChunk is the chunk of no choices that carries the usage.
func (s *Script) usageChunk(id string, e *Entry) []byte {
	b := []byte(`{"id":`)
	b = jsonw.AppendString(b, id)
	b = append(b, `,"object":"chat.completion.chunk","created":0,"model":`...)
	b = jsonw.AppendString(b, s.Model)
	b = append(b, `,"choices":[],"usage":`...)
	return append(appendChatUsage(b, e), '}')
}

// appendChatUsage appends e's token counts as a chat completion's usage
// object, which its last chunk and a whole response both end with.
func appendChatUsage(b []byte, e *Entry) []byte {
	b = append(b, `{"prompt_tokens":`...)
	b = strconv.AppendInt(b, e.InputTokens, 10)
	b = append(b, `,"completion_tokens":`...)
	b = strconv.AppendInt(b, e.OutputTokens, 10)
	b = append(b, `,"total_tokens":`...)
	b = strconv.AppendInt(b, e.InputTokens+e.OutputTokens, 10)
	return append(b, '}')
}

// WithRequestID is an Anthropic error body with the request_id the API
// puts beside its error (the SDKs read it into the error they raise).
func WithRequestID(body []byte, id string) []byte {
	t := bytes.TrimRight(body, " \n")
	if len(t) < 2 || t[len(t)-1] != '}' || !json.Valid(t) {
		return body
	}
	out := append([]byte(nil), t[:len(t)-1]...)
	out = append(out, `,"request_id":`...)
	out = jsonw.AppendString(out, id)
	return append(out, '}')
}

// chunk is one chat.completion.chunk object with delta and, when set,
// finish_reason.
func (s *Script) chunk(id string, delta []byte, finish string) []byte {
	b := []byte(`{"id":`)
	b = jsonw.AppendString(b, id)
	b = append(b, `,"object":"chat.completion.chunk","created":0,"model":`...)
	b = jsonw.AppendString(b, s.Model)
	b = append(b, `,"choices":[{"index":0,"delta":`...)
	b = append(b, delta...)
	b = append(b, `,"finish_reason":`...)
	if finish == "" {
		b = append(b, "null"...)
	} else {
		b = jsonw.AppendString(b, finish)
	}
	return append(b, "}]}"...)
}

func sseData(data []byte) []byte {
	b := make([]byte, 0, len(data)+8)
	b = append(b, "data: "...)
	b = append(b, data...)
	return append(b, "\n\n"...)
}

// carriedOpenAI is carried for a Chat Completions stream: every event a
// data line of a chunk object (or [DONE], last), no error, tool calls
// started with an id before their arguments, every tool input a JSON
// object, and [DONE] at the end.
func carriedOpenAI(pieces []Piece) (c llmwire.Content, whole bool) {
	done := false
	var order []int64
	args := map[int64]*llmwire.ToolUse{}
	for _, p := range pieces {
		if len(p.Data) == 0 {
			continue
		}
		if done {
			return c, false
		}
		ev := bytes.TrimSuffix(p.Data, []byte("\n\n"))
		data, ok := bytes.CutPrefix(ev, []byte("data: "))
		if !ok || bytes.Contains(ev, []byte("\n")) {
			return c, false
		}
		if string(data) == "[DONE]" {
			done = true
			continue
		}
		var ch struct {
			Error   json.RawMessage `json:"error"`
			Usage   json.RawMessage `json:"usage"`
			Choices []struct {
				Delta struct {
					Content   *string    `json:"content"`
					ToolCalls []toolCall `json:"tool_calls"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if json.Unmarshal(data, &ch) != nil || ch.Error != nil {
			return c, false
		}
		if len(ch.Choices) == 0 && ch.Usage != nil {
			continue // include_usage's last chunk
		}
		if len(ch.Choices) != 1 {
			return c, false
		}
		dl := ch.Choices[0].Delta
		if dl.Content != nil {
			c.Text += *dl.Content
		}
		for _, tc := range dl.ToolCalls {
			u := args[tc.Index]
			if u == nil {
				if tc.ID == "" {
					return c, false
				}
				u = &llmwire.ToolUse{ID: tc.ID, Name: tc.Function.Name}
				args[tc.Index] = u
				order = append(order, tc.Index)
			}
			u.Input = append(u.Input, tc.Function.Arguments...)
		}
	}
	for _, i := range order {
		u := *args[i]
		if len(u.Input) == 0 {
			u.Input = []byte("{}")
		}
		c.Tools = append(c.Tools, u)
	}
	return c, done && c.Whole()
}

// whole converts a rendered Anthropic stream into the one JSON body of a
// non-streaming request, in either API. The body comes when the stream
// would have ended (every piece's delay added up). A fault becomes what
// the API does without a stream: an error in the stream its status and
// error body (529 overloaded_error); a hang or timeout no answer; a
// stream cut short (truncated) a body cut in half on a connection that
// closes; a malformed event a body that is not JSON; duplicated or
// reordered fragments a tool input assembled from them, as sent.
func (s *Script) whole(r Response, e *Entry, call string, openAI bool) Response {
	if r.Status != 200 {
		if openAI {
			return s.openAIError(r)
		}
		return r
	}
	delay := int64(0)
	for _, p := range r.Pieces {
		delay += p.DelayNs
	}
	if r.Never || r.Hang {
		return Response{Status: 200, Never: true}
	}
	var evs [][]byte
	for _, p := range r.Pieces {
		if len(p.Data) > 0 {
			evs = append(evs, p.Data)
		}
	}
	for _, ev := range evs {
		if name, data, ok := sseEvent(ev); ok && name == "error" {
			typ, msg := apiErrorOf(data)
			er := errorResponse(529, "req_"+call, typ, msg, delay)
			if openAI {
				return s.openAIError(er)
			}
			return er
		}
	}
	content, whole := carried(evs)
	if !whole {
		content = s.assembled(e) // what the pieces say, faults and all
		if e.Fault.Kind == FaultOversized {
			content.Text += string(bytes.Repeat([]byte("x"), int(e.Fault.Bytes)))
		}
	}
	var body []byte
	if openAI {
		body = s.openAIMessage(content, call, e)
	} else {
		body = s.anthropicMessage(content, call, e)
	}
	out := Response{Status: 200, Headers: []Header{{"content-type", "application/json"}}}
	if openAI {
		out.Headers = append(out.Headers, Header{"x-request-id", "req_" + call})
	} else {
		out.Headers = append(out.Headers, Header{"request-id", "req_" + call})
	}
	switch e.Fault.Kind {
	case FaultTruncated:
		body = body[:len(body)/2]
		out.Cut = true
	case FaultMalformedSSE, FaultMalformedJSON:
		body = body[:len(body)/2]
	}
	out.Pieces = []Piece{{DelayNs: delay, Data: body}}
	out.BodyBytes = int64(len(body))
	out.Complete = !out.Cut
	if bc, ok := carriedJSON(body, openAI); out.Complete && ok {
		out.Carried = bc.Digest()
	}
	return out
}

// carriedJSON is what a non-streaming body carries: its text and tool
// uses when it is a message of the API that parses, every tool input a
// JSON object.
func carriedJSON(body []byte, openAI bool) (llmwire.Content, bool) {
	var c llmwire.Content
	if openAI {
		var m struct {
			Choices []struct {
				Message struct {
					Content   string     `json:"content"`
					ToolCalls []toolCall `json:"tool_calls"`
				} `json:"message"`
			} `json:"choices"`
		}
		if json.Unmarshal(body, &m) != nil || len(m.Choices) != 1 {
			return c, false
		}
		c.Text = m.Choices[0].Message.Content
		for _, t := range m.Choices[0].Message.ToolCalls {
			c.Tools = append(c.Tools, llmwire.ToolUse{ID: t.ID, Name: t.Function.Name, Input: []byte(t.Function.Arguments)})
		}
		return c, c.Whole()
	}
	var m struct {
		Content []struct {
			Type  string          `json:"type"`
			Text  string          `json:"text"`
			ID    string          `json:"id"`
			Name  string          `json:"name"`
			Input json.RawMessage `json:"input"`
		} `json:"content"`
	}
	if json.Unmarshal(body, &m) != nil {
		return c, false
	}
	for _, b := range m.Content {
		switch b.Type {
		case "text":
			c.Text += b.Text
		case "tool_use":
			c.Tools = append(c.Tools, llmwire.ToolUse{ID: b.ID, Name: b.Name, Input: b.Input})
		}
	}
	return c, c.Whole()
}

// assembled is what the entry's stream pieces assemble to, faults
// included: its text, and each tool's fragments joined in the order the
// stream sent them (a duplicate twice, a reordered pair swapped).
func (s *Script) assembled(e *Entry) llmwire.Content {
	c := llmwire.Content{}
	for _, t := range e.Text {
		c.Text += t
	}
	k := 0
	for _, u := range e.Tools {
		var in []byte
		for j := range u.Args {
			frag := u.Args[j]
			switch {
			case e.Fault.Kind == FaultDuplicateFrag && int64(k) == e.Fault.Fragment:
				in = append(in, frag...)
			case e.Fault.Kind == FaultReorderFrags && int64(k) == e.Fault.Fragment && j+1 < len(u.Args):
				frag = u.Args[j+1]
			case e.Fault.Kind == FaultReorderFrags && int64(k) == e.Fault.Fragment+1 && j > 0:
				frag = u.Args[j-1]
			}
			in = append(in, frag...)
			k++
		}
		if len(in) == 0 {
			in = []byte("{}")
		}
		c.Tools = append(c.Tools, llmwire.ToolUse{ID: u.ID, Name: u.Name, Input: in})
	}
	return c
}

// rawInput writes a tool input into a JSON body as it is: valid JSON as
// itself, anything else as sent, so the body does not parse — what a
// server joining broken fragments would send.
func rawInput(b, in []byte) []byte { return append(b, in...) }

func (s *Script) anthropicMessage(c llmwire.Content, call string, e *Entry) []byte {
	b := []byte(`{"id":`)
	b = jsonw.AppendString(b, "msg_"+call)
	b = append(b, `,"type":"message","role":"assistant","model":`...)
	b = jsonw.AppendString(b, s.Model)
	b = append(b, `,"content":[{"type":"text","text":`...)
	b = jsonw.AppendString(b, c.Text)
	b = append(b, '}')
	for _, u := range c.Tools {
		b = append(b, `,{"type":"tool_use","id":`...)
		b = jsonw.AppendString(b, u.ID)
		b = append(b, `,"name":`...)
		b = jsonw.AppendString(b, u.Name)
		b = append(b, `,"input":`...)
		b = rawInput(b, u.Input)
		b = append(b, '}')
	}
	stop := "end_turn"
	if len(c.Tools) > 0 {
		stop = "tool_use"
	}
	b = append(b, `],"stop_reason":`...)
	b = jsonw.AppendString(b, stop)
	b = append(b, `,"stop_sequence":null,"usage":{"input_tokens":`...)
	b = strconv.AppendInt(b, e.InputTokens, 10)
	b = append(b, `,"output_tokens":`...)
	b = strconv.AppendInt(b, e.OutputTokens, 10)
	return append(b, "}}"...)
}

func (s *Script) openAIMessage(c llmwire.Content, call string, e *Entry) []byte {
	b := []byte(`{"id":`)
	b = jsonw.AppendString(b, "chatcmpl-"+call)
	b = append(b, `,"object":"chat.completion","created":0,"model":`...)
	b = jsonw.AppendString(b, s.Model)
	b = append(b, `,"choices":[{"index":0,"message":{"role":"assistant","content":`...)
	b = jsonw.AppendString(b, c.Text)
	finish := "stop"
	if len(c.Tools) > 0 {
		finish = "tool_calls"
		// An array of objects by hand, alike in shape to llmwire's
		// Digest: these are OpenAI's members.
		b = append(b, `,"tool_calls":[`...)
		for i, u := range c.Tools {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"id":`...)
			b = jsonw.AppendString(b, u.ID)
			b = append(b, `,"type":"function","function":{"name":`...)
			b = jsonw.AppendString(b, u.Name)
			b = append(b, `,"arguments":`...)
			b = jsonw.AppendString(b, string(u.Input))
			b = append(b, "}}"...)
		}
		b = append(b, ']')
	}
	b = append(b, `},"finish_reason":`...)
	b = jsonw.AppendString(b, finish)
	b = append(b, `}],"usage":`...)
	return append(appendChatUsage(b, e), '}')
}

// RespondAs is Respond in format f: the entry a request for step takes,
// marked used and rendered for call, or the API's 500 "script exhausted"
// and entry -1.
func (s *Script) RespondAs(used []bool, step, call string, f Format) (Response, int) {
	i := s.Pick(used, step)
	if i < 0 {
		r := errorResponse(500, "req_"+call, "api_error", "script exhausted", 0)
		if f.OpenAI {
			r = s.openAIError(r)
		}
		return r, -1
	}
	used[i] = true
	return s.RenderAs(&s.Entries[i], call, f), i
}
