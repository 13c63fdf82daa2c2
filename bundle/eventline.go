package bundle

import (
	"bytes"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/jsonw"
)

// AppendEventLine appends one events.ndjson line, trailing newline
// included, to dst:
//
//	{"virtual_time_ns":123,"host_id":"a","kind_tag":"echo","event":{...}}
//
// An empty hostID is written as null (engine records bound to no host).
// The members are always in this order and the event is ev.AppendJSON's
// bytes as they are, so the line depends on nothing but the arguments.
// It does not allocate when dst has room for the line.
func AppendEventLine(dst []byte, virtualTimeNs int64, hostID string, kindTag string, ev hosts.Event) []byte {
	dst = append(dst, lineTimeKey...)
	dst = jsonw.AppendInt(dst, virtualTimeNs)
	dst = appendEnvelope(dst, hostID, kindTag)
	dst = ev.AppendJSON(dst)
	return append(dst, '}', '\n')
}

// Envelope is the part of an event line between its time and its event,
// for one host id and kind tag, as AppendEventLine writes it. A writer of
// many records keeps one per (host, tag) instead of encoding both strings
// again on every line.
type Envelope []byte

// NewEnvelope encodes the envelope of hostID ("" for null) and kindTag.
func NewEnvelope(hostID, kindTag string) Envelope { return appendEnvelope(nil, hostID, kindTag) }

// AppendEventLineWith is AppendEventLine with the host id and kind tag of
// env: the bytes are the same.
func AppendEventLineWith(dst []byte, virtualTimeNs int64, env Envelope, ev hosts.Event) []byte {
	dst, _ = AppendEventLineAt(dst, virtualTimeNs, env, ev)
	return dst
}

// AppendEventLineAt is AppendEventLineWith that also returns where ev's
// JSON starts in dst: the line's payload (LinePayload) is
// dst[at:len(dst)-2], known without searching the line for it.
func AppendEventLineAt(dst []byte, virtualTimeNs int64, env Envelope, ev hosts.Event) (_ []byte, at int) {
	dst = append(dst, lineTimeKey...)
	dst = jsonw.AppendInt(dst, virtualTimeNs)
	dst = append(dst, env...)
	at = len(dst)
	dst = ev.AppendJSON(dst)
	return append(dst, '}', '\n'), at
}

func appendEnvelope(dst []byte, hostID, kindTag string) []byte {
	dst = append(dst, lineHostKey...)
	if hostID == "" {
		dst = jsonw.AppendNull(dst)
	} else {
		dst = jsonw.AppendString(dst, hostID)
	}
	dst = append(dst, lineKindKey...)
	dst = jsonw.AppendString(dst, kindTag)
	return append(dst, lineEventKey...)
}

// The envelope's members as AppendEventLine writes them, in its order and
// without whitespace. The fast reader (reader_fast.go), LineType and
// LinePayload read lines by these same keys.
const (
	lineTimeKey  = `{"virtual_time_ns":`
	lineHostKey  = `,"host_id":`
	lineKindKey  = `,"kind_tag":`
	lineEventKey = `,"event":`
)

var (
	eventKey     = []byte(lineEventKey)
	eventTypeKey = []byte(lineEventKey + `{"type":"`)
)

// LineType returns the event type of a line AppendEventLine wrote, with or
// without its newline, without decoding the line: the bytes between
// `"event":{"type":"` and the next quote (an event's first member is its
// type, and no type needs escaping), or nil when the line holds no such
// member. The envelope's earlier members are a number and two JSON
// strings, which cannot hold the key with its quotes unescaped, so the
// first occurrence is the one. It aliases line. ParseEventLine is the
// reader for any other line.
func LineType(line []byte) []byte {
	i := bytes.Index(line, eventTypeKey)
	if i < 0 {
		return nil
	}
	rest := line[i+len(eventTypeKey):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 {
		return nil
	}
	return rest[:j]
}

// LinePayload returns the event object of a line AppendEventLine wrote,
// with or without its newline, found the way LineType finds the type. It
// aliases line. It must be given such a line: on any other its result
// means nothing.
func LinePayload(line []byte) []byte {
	line = bytes.TrimSuffix(line, []byte{'\n'})
	i := bytes.Index(line, eventKey)
	return line[i+len(eventKey) : len(line)-1] // strip the envelope's "}"
}
