package provider

import (
	"bytes"
	"encoding/json"

	"github.com/detsim/detsim/kinds/agent/llmwire"
)

// carried is the content a 200 stream's events carry, read the way a
// strict client must read them: every event a well-formed SSE event
// whose data is JSON of the event's type; message_start first; deltas
// only to blocks that were started, text to text blocks and JSON to tool
// blocks; ended by message_stop; every tool input a JSON object. whole
// is false when any of that fails: the stream carried no response a
// client may take as a success, whatever it makes of the pieces.
//
// It is the provider's own account of what it sent, kept apart from the
// agent's parser (kinds/agent/agent/stream.go) on purpose: the oracle that
// compares the two (no_torn_success) would prove nothing if the agent
// under test and the account it is judged by shared one parser.
func carried(events [][]byte) (c llmwire.Content, whole bool) {
	type blk struct {
		typ  string
		tool int // index into c.Tools, -1 for text
		open bool
	}
	var blocks map[int64]*blk
	started, stopped := false, false
	for _, ev := range events {
		name, data, ok := sseEvent(ev)
		if !ok || stopped {
			return c, false
		}
		var d llmwire.StreamEvent
		if json.Unmarshal(data, &d) != nil || d.Type != name {
			return c, false
		}
		if name != "message_start" && name != "ping" && !started {
			return c, false
		}
		switch name {
		case "message_start":
			if started {
				return c, false
			}
			started, blocks = true, map[int64]*blk{}
		case "ping", "message_delta":
		case "content_block_start":
			if d.ContentBlock == nil || blocks[d.Index] != nil {
				return c, false
			}
			b := &blk{typ: d.ContentBlock.Type, tool: -1, open: true}
			switch b.typ {
			case "text":
			case "tool_use":
				b.tool = len(c.Tools)
				c.Tools = append(c.Tools, llmwire.ToolUse{ID: d.ContentBlock.ID, Name: d.ContentBlock.Name})
			default:
				return c, false
			}
			blocks[d.Index] = b
		case "content_block_delta":
			b := blocks[d.Index]
			if b == nil || !b.open || d.Delta == nil {
				return c, false
			}
			switch {
			case b.typ == "text" && d.Delta.Type == "text_delta" && d.Delta.Text != nil:
				c.Text += *d.Delta.Text
			case b.typ == "tool_use" && d.Delta.Type == "input_json_delta" && d.Delta.PartialJSON != nil:
				c.Tools[b.tool].Input = append(c.Tools[b.tool].Input, *d.Delta.PartialJSON...)
			default:
				return c, false
			}
		case "content_block_stop":
			b := blocks[d.Index]
			if b == nil || !b.open {
				return c, false
			}
			b.open = false
		case "message_stop":
			stopped = true
		default: // error, or an event the API does not send
			return c, false
		}
	}
	for i := range c.Tools {
		if len(c.Tools[i].Input) == 0 {
			c.Tools[i].Input = []byte("{}") // a tool use with no fragments has empty input
		}
	}
	return c, stopped && c.Whole()
}

// toolCall is a Chat Completions tool call, in a message or a chunk's
// delta (where index says which one a fragment continues).
type toolCall struct {
	Index    int64  `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// sseEvent reads one event's name and data by the SSE rules: a line
// "field: value" (one optional space after the colon), data lines
// joined by newlines; a line without a colon is a field with an empty
// value. An event with no name or no data line is not one the API sends.
func sseEvent(ev []byte) (name string, data []byte, ok bool) {
	hasName, hasData := false, false
	for _, line := range bytes.Split(bytes.TrimSuffix(ev, []byte("\n\n")), []byte("\n")) {
		if len(line) == 0 || line[0] == ':' {
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			name, hasName = string(value), true
		case "data":
			if hasData {
				data = append(data, '\n')
			}
			data, hasData = append(data, value...), true
		}
	}
	return name, data, hasName && hasData
}
