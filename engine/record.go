package engine

import (
	"bytes"
	"strconv"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/hosts"
)

// emit records one event at the current virtual time. hi is the host the
// record is bound to, -1 for none (host_id null). Records are emitted in
// pop order, so events.ndjson is in nondecreasing virtual time and streams
// to disk with flat memory (DESIGN §4).
func (e *Engine) emit(hi int32, kindTag string, ev hosts.Event) {
	e.st.records++
	hostID := ""
	if hi >= 0 {
		hostID = e.peers[hi]
	}
	if e.opts.Sink != nil {
		e.opts.Sink.Event(e.st.now, hostID, kindTag, ev)
		return
	}
	e.line = bundle.AppendEventLine(e.line[:0], e.st.now, hostID, kindTag, ev)
	e.st.digest.Write(e.line)
	if e.opts.Writer != nil && e.err == nil {
		e.err = e.opts.Writer.WriteEventLine(e.line)
	}
	if e.opts.Tap != nil {
		e.opts.Tap(e.st.records, e.st.now, e.line)
	}
	if e.st.monitor != nil {
		e.st.monitor.Observe(e.st.records, e.st.now, hostID, kindTag, ev.Type(), eventPayload(e.line))
	}
}

var payloadKey = []byte(`"event":`)

// eventPayload returns the event object inside a serialised envelope line.
// The envelope's earlier members are a number, a peer id and a kind tag,
// none of which can contain the key, so its first occurrence is the one.
func eventPayload(line []byte) []byte {
	i := bytes.Index(line, payloadKey)
	return line[i+len(payloadKey) : len(line)-2] // strip the envelope's "}\n"
}

// snapshot records one host's snapshot for snapshot request seq.
func (e *Engine) snapshot(hostID string, seq int, data []byte) {
	e.st.snaps++
	if e.opts.Sink != nil {
		e.opts.Sink.Snapshot(e.st.now, hostID, seq, data)
		return
	}
	h := e.line[:0]
	h = append(h, `{"snapshot":"snapshots/`...)
	h = append(h, hostID...)
	h = append(h, '/')
	h = strconv.AppendInt(h, int64(seq), 10)
	h = append(h, `.json","virtual_time_ns":`...)
	h = strconv.AppendInt(h, e.st.now, 10)
	h = append(h, `,"bytes":`...)
	h = strconv.AppendInt(h, int64(len(data)), 10)
	h = append(h, "}\n"...)
	e.line = h
	e.st.digest.Write(h)
	e.st.digest.Write(data)
	if e.opts.Writer != nil && e.err == nil {
		e.err = e.opts.Writer.WriteSnapshot(hostID, seq, data)
	}
}
