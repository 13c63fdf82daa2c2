package llmwire

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/detsim/detsim/internal/jsonw"
)

// Content is a model response's content as a client assembles it: the
// text of its text blocks, concatenated, and its tool uses with their
// input. It is what the no_torn_success oracle compares: the content a
// provider's stream carried against the content an agent accepted
// (docs/assertions.md).
type Content struct {
	Text  string
	Tools []ToolUse
}

// ToolUse is one tool_use block (Anthropic) or tool call (OpenAI): its
// id, tool name and input, the JSON its argument fragments assemble to.
type ToolUse struct {
	ID, Name string
	Input    []byte
}

// Whole reports whether every tool input is a JSON object: a stream
// whose fragments were duplicated or reordered assembles to input that
// does not parse, which no client may take for a whole response.
func (c *Content) Whole() bool {
	for _, u := range c.Tools {
		if !jsonObject(u.Input) {
			return false
		}
	}
	return true
}

// StreamEvent is the JSON of a Messages API stream event (the data line
// of an SSE event), as much of it as the agent's parser and the
// provider's own readers look at. The shape is the wire's; each reader
// keeps its own rules about which sequences of events it accepts.
type StreamEvent struct {
	Type         string `json:"type"`
	Index        int64  `json:"index"`
	ContentBlock *struct {
		Type string `json:"type"`
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"content_block"`
	Delta *struct {
		Type        string  `json:"type"`
		Text        *string `json:"text"`
		PartialJSON *string `json:"partial_json"`
		StopReason  string  `json:"stop_reason"`
	} `json:"delta"`
	Error *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

func jsonObject(b []byte) bool {
	b = bytes.TrimLeft(b, " \t\r\n")
	return len(b) > 0 && b[0] == '{' && json.Valid(b)
}

// Digest names the content by the SHA-256 of its canonical form, as 64
// hex digits: two clients that assembled the same text and the same tool
// inputs (whitespace between JSON tokens aside, as an SDK re-serialises
// a parsed input) get the same digest, and one skipped or merged piece
// changes it. Input that is not JSON enters as its raw bytes.
//
// A JSON array of objects appended by hand, alike in shape to the provider's
// and the tool's snapshots and the OpenAI dialect's tool_calls: the members
// are each one's own.
func (c *Content) Digest() string {
	b := []byte(`{"text":`)
	b = jsonw.AppendString(b, c.Text)
	b = append(b, `,"tool_uses":[`...)
	for i, u := range c.Tools {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":`...)
		b = jsonw.AppendString(b, u.ID)
		b = append(b, `,"name":`...)
		b = jsonw.AppendString(b, u.Name)
		b = append(b, `,"input":`...)
		var in bytes.Buffer
		if json.Valid(u.Input) && json.Compact(&in, u.Input) == nil {
			b = append(b, in.Bytes()...)
		} else {
			b = jsonw.AppendString(b, string(u.Input))
		}
		b = append(b, '}')
	}
	b = append(b, "]}"...)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// ToolResultSize is one tool result a request body carries back to the
// model: the tool use it answers and the bytes of its content.
type ToolResultSize struct {
	ID    string
	Bytes int64
}

// ToolResults lists the tool results a request body carries, in order:
// Anthropic's tool_result blocks in user messages (content a string, or
// text blocks whose texts count) and OpenAI's role "tool" messages. A
// body that is not a JSON object with a messages array is an error; a
// message of another shape carries no result. Both the simulated
// provider and the HTTP edge record these sizes (tool_result_received),
// the facts the output_bounded oracle checks an agent's claims against.
func ToolResults(body []byte) ([]ToolResultSize, error) {
	var req struct {
		Messages []struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			ToolCallID string          `json:"tool_call_id"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	var out []ToolResultSize
	for _, m := range req.Messages {
		if m.Role == "tool" {
			out = append(out, ToolResultSize{ID: m.ToolCallID, Bytes: textBytes(m.Content)})
			continue
		}
		var blocks []struct {
			Type      string          `json:"type"`
			ToolUseID string          `json:"tool_use_id"`
			Content   json.RawMessage `json:"content"`
		}
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue // a string: no tool result
		}
		for _, b := range blocks {
			if b.Type == "tool_result" {
				out = append(out, ToolResultSize{ID: b.ToolUseID, Bytes: textBytes(b.Content)})
			}
		}
	}
	return out, nil
}

// textBytes is the length of a content member: a string's bytes, or the
// sum of the texts of an array of blocks.
func textBytes(raw json.RawMessage) int64 {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return int64(len(s))
	}
	var blocks []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return int64(len(raw))
	}
	n := int64(0)
	for _, b := range blocks {
		n += int64(len(b.Text))
	}
	return n
}

// Turn is the 1-based turn of the conversation a request body belongs
// to: one more than the assistant messages it carries. A retry of a
// turn (by an SDK or by the agent) sends the same conversation, so it
// has the same turn; the next turn carries one more assistant message.
// The HTTP edge keys outside agents' requests by it.
func Turn(body []byte) (int64, error) {
	var req struct {
		Messages []struct {
			Role string `json:"role"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return 0, err
	}
	n := int64(1)
	for _, m := range req.Messages {
		if m.Role == "assistant" {
			n++
		}
	}
	return n, nil
}
