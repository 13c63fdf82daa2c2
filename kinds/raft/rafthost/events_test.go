package rafthost

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/jsonw"
	pb "github.com/detsim/detsim/kinds/raft/rafthost/raftseam/raftpb"
)

// appendEscaped is msgEvent.AppendJSON with its strings escaped by
// jsonw, as it was before they were appended as they are.
func appendEscaped(b []byte, e *msgEvent) []byte {
	b = jsonw.AppendStringField(jsonw.AppendTypeField(b, e.typ), "peer", e.peer)
	return e.appendRest(jsonw.AppendStringField(b, "message", e.message))
}

// TestMsgEvent_UnescapedIsEscaped: message records appended without
// escaping are the bytes escaping gives, and valid JSON, for every byte
// a peer id may hold and every message name.
func TestMsgEvent_UnescapedIsEscaped(t *testing.T) {
	id := []byte("_-")
	for c := byte('0'); c <= 'z'; c++ {
		if c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' {
			id = append(id, c)
		}
	}
	for _, typ := range pb.MessageType_name {
		for _, e := range []*msgEvent{
			{typ: tSent, peer: string(id), message: typ, sender: "n1", id: 7, bytes: 40, term: 3, index: 9, commit: 2, entries: 1},
			{typ: tReceived, peer: "n2", message: typ, sender: string(id), id: 1 << 40, bytes: 1},
			{typ: tReceived, peer: "n2", message: typ, bytes: 1, reject: true},
		} {
			got := e.AppendJSON(nil)
			if want := appendEscaped(nil, e); !bytes.Equal(got, want) || !json.Valid(got) {
				t.Fatalf("%s\nescaped %s", got, want)
			}
		}
	}
}

// BenchmarkMsgEvent_AppendJSON: a message_sent record, appended as it
// is and escaped.
func BenchmarkMsgEvent_AppendJSON(b *testing.B) {
	e := &msgEvent{typ: tSent, peer: "n2", message: "MsgApp", sender: "n1", id: 12345, bytes: 120, term: 3, index: 4567, logTerm: 3, commit: 4566, entries: 1}
	buf := make([]byte, 0, 512)
	b.Run("unescaped", func(b *testing.B) {
		for b.Loop() {
			buf = e.AppendJSON(buf[:0])
		}
	})
	b.Run("escaped", func(b *testing.B) {
		for b.Loop() {
			buf = appendEscaped(buf[:0], e)
		}
	})
}

// BenchmarkEvents_AppendJSON: one of every record type but the message
// records (BenchmarkMsgEvent_AppendJSON), as the run appends them.
func BenchmarkEvents_AppendJSON(b *testing.B) {
	var evs []hosts.Event
	for _, e := range eventPrototypes() {
		if _, msg := e.(*msgEvent); !msg {
			evs = append(evs, e)
		}
	}
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for b.Loop() {
		for _, e := range evs {
			buf = e.AppendJSON(buf[:0])
		}
	}
}
