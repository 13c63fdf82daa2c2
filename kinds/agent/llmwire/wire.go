// Package llmwire is the wire shared by the provider, tool and agent host
// kinds (kinds/agent/provider, kinds/agent/tool, kinds/agent/agent). The engine decodes a
// delivery with the receiver's codec and encodes it with the sender's, so
// the three kinds use this one codec.
//
// A message is one tag byte followed by its fields: strings and byte
// strings as a uvarint length and the bytes, integers as uvarints. The
// encoded length is what the network charges, and a Frame carries the
// HTTP bytes a real provider would put on the wire (status line, headers,
// SSE events), so the bandwidth model sees a provider's real stream.
package llmwire

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// MaxMessageBytes bounds one decoded message: a tool's huge output is one
// message and must fit.
const MaxMessageBytes = 16 << 20

// Request is a model call: an agent asks a provider for one response.
// Call names the attempt ("t3.a1"); Step is the workflow step id the
// script may key entries by; Body is the JSON request body.
type Request struct {
	Call, Step string
	Body       []byte
}

// Frame is one network message of a response stream: the provider sends
// the HTTP status line and headers in the first frame of a response and
// one SSE event per frame after it. Seq counts frames from 0 within the
// call, so a receiver sees a lost frame as a gap (a reset connection).
// EOF says the provider closed the connection after Data.
type Frame struct {
	Call string
	Seq  uint64
	EOF  bool
	Data []byte
}

// Abort closes a call's connection from the agent's side: the provider
// stops streaming it.
type Abort struct{ Call string }

// ToolCall asks a tool host to run the tool use Call (an id unique in the
// episode) named Name with the JSON arguments Args.
type ToolCall struct {
	Call, Name string
	Args       []byte
}

// ToolStatus is how a tool run ended, as the tool reports it.
type ToolStatus uint8

const (
	ToolOK ToolStatus = iota + 1
	ToolFailed
	ToolCancelled
)

func (s ToolStatus) String() string {
	switch s {
	case ToolOK:
		return "ok"
	case ToolFailed:
		return "failed"
	case ToolCancelled:
		return "cancelled"
	}
	return "unknown"
}

// ToolResult is a tool run's end: its status, exit code and output (which
// may be partial, huge or binary).
type ToolResult struct {
	Call   string
	Status ToolStatus
	Exit   uint64
	Output []byte
}

// ToolCancel asks a tool host to cancel the run of Call.
type ToolCancel struct{ Call string }

const (
	tagRequest byte = iota + 1
	tagFrame
	tagAbort
	tagToolCall
	tagToolResult
	tagToolCancel
)

// Codec is the hosts.Codec of the three kinds.
type Codec struct{}

// Append encodes m onto b.
//
// One case a message type, alike in shape on purpose: each appends its own
// fields in the order Decode reads them back, which is the wire format.
func (Codec) Append(b []byte, m any) ([]byte, error) {
	switch x := m.(type) {
	case *Request:
		b = append(b, tagRequest)
		b = appendStr(b, x.Call)
		b = appendStr(b, x.Step)
		b = appendBytes(b, x.Body)
	case *Frame:
		b = append(b, tagFrame)
		b = appendStr(b, x.Call)
		b = binary.AppendUvarint(b, x.Seq)
		eof := byte(0)
		if x.EOF {
			eof = 1
		}
		b = append(b, eof)
		b = appendBytes(b, x.Data)
	case *Abort:
		b = append(b, tagAbort)
		b = appendStr(b, x.Call)
	case *ToolCall:
		b = append(b, tagToolCall)
		b = appendStr(b, x.Call)
		b = appendStr(b, x.Name)
		b = appendBytes(b, x.Args)
	case *ToolResult:
		b = append(b, tagToolResult)
		b = appendStr(b, x.Call)
		b = append(b, byte(x.Status))
		b = binary.AppendUvarint(b, x.Exit)
		b = appendBytes(b, x.Output)
	case *ToolCancel:
		b = append(b, tagToolCancel)
		b = appendStr(b, x.Call)
	default:
		return nil, fmt.Errorf("llmwire: cannot encode %T", m)
	}
	return b, nil
}

func appendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendBytes(b []byte, p []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(p)))
	return append(b, p...)
}

var errShort = errors.New("llmwire: message ends inside a field")

// reader walks a message's fields; the first error sticks.
type reader struct {
	b   []byte
	err error
}

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errShort
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) byte1() byte {
	if r.err != nil {
		return 0
	}
	if len(r.b) == 0 {
		r.err = errShort
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

// bytes returns a copy: Decode must not retain its input.
func (r *reader) bytes() []byte {
	n := r.uvarint()
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.b)) {
		r.err = errShort
		return nil
	}
	out := append([]byte(nil), r.b[:n]...)
	r.b = r.b[n:]
	return out
}

func (r *reader) str() string { return string(r.bytes()) }

// Decode parses one message; malformed bytes are an error, never a panic.
func (Codec) Decode(b []byte) (any, error) {
	if len(b) == 0 {
		return nil, errors.New("llmwire: empty message")
	}
	if len(b) > MaxMessageBytes {
		return nil, fmt.Errorf("llmwire: message of %d bytes exceeds %d", len(b), MaxMessageBytes)
	}
	r := &reader{b: b[1:]}
	var m any
	switch b[0] {
	case tagRequest:
		m = &Request{Call: r.str(), Step: r.str(), Body: r.bytes()}
	case tagFrame:
		f := &Frame{Call: r.str(), Seq: r.uvarint()}
		switch r.byte1() {
		case 0:
		case 1:
			f.EOF = true
		default:
			if r.err == nil {
				r.err = errors.New("llmwire: frame EOF flag is neither 0 nor 1")
			}
		}
		f.Data = r.bytes()
		m = f
	case tagAbort:
		m = &Abort{Call: r.str()}
	case tagToolCall:
		m = &ToolCall{Call: r.str(), Name: r.str(), Args: r.bytes()}
	case tagToolResult:
		t := &ToolResult{Call: r.str(), Status: ToolStatus(r.byte1())}
		t.Exit = r.uvarint()
		t.Output = r.bytes()
		if r.err == nil && (t.Status < ToolOK || t.Status > ToolCancelled) {
			r.err = fmt.Errorf("llmwire: unknown tool status %d", t.Status)
		}
		m = t
	case tagToolCancel:
		m = &ToolCancel{Call: r.str()}
	default:
		return nil, fmt.Errorf("llmwire: unknown message tag 0x%02x", b[0])
	}
	if r.err != nil {
		return nil, r.err
	}
	if len(r.b) != 0 {
		return nil, fmt.Errorf("llmwire: %d bytes after the message", len(r.b))
	}
	return m, nil
}
