package bundle

import (
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
	dst = append(dst, `{"virtual_time_ns":`...)
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
	dst = append(dst, `{"virtual_time_ns":`...)
	dst = jsonw.AppendInt(dst, virtualTimeNs)
	dst = append(dst, env...)
	dst = ev.AppendJSON(dst)
	return append(dst, '}', '\n')
}

func appendEnvelope(dst []byte, hostID, kindTag string) []byte {
	dst = append(dst, `,"host_id":`...)
	if hostID == "" {
		dst = jsonw.AppendNull(dst)
	} else {
		dst = jsonw.AppendString(dst, hostID)
	}
	dst = append(dst, `,"kind_tag":`...)
	dst = jsonw.AppendString(dst, kindTag)
	return append(dst, `,"event":`...)
}
