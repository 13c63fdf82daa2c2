package mlevents

import (
	"bytes"
	"compress/lzw"
	"encoding/binary"
	"io"

	"github.com/hashicorp/go-msgpack/v2/codec"
)

// What is read of memberlist v0.7.0's wire format (net.go,
// util.go): a one-byte message type, then a msgpack body; a compound
// message is the type byte, a count, that many big-endian uint16 lengths
// and the parts; a compressed one is a msgpack {Algo, Buf} with Buf LZW
// (LSB, 8-bit literals); a datagram to a node speaking protocol 5 starts
// with a CRC header (type byte and 4 bytes of CRC-32). No label and no
// encryption: neither the witness nor memberlistd runs memberlist with
// either.
const (
	mlPing         = 0
	mlIndirectPing = 1
	mlAck          = 2
	mlSuspect      = 3
	mlAlive        = 4
	mlDead         = 5
	mlPushPull     = 6
	mlCompound     = 7
	mlUser         = 8
	mlCompress     = 9
	mlEncrypt      = 10
	mlNack         = 11
	mlHasCrc       = 12
	mlErr          = 13
)

// Msg is one decoded memberlist datagram or stream message.
type Msg struct {
	// Type is the first message's type: the primary of a compound (a ping
	// with piggybacked broadcasts), or the only one. -1 when undecodable.
	Type int
	// Broadcasts counts the alive, suspect and dead parts after the
	// primary (or all of them, for a compound of broadcasts only: a
	// gossip-timer datagram).
	Broadcasts int
	// GossipOnly: every part is a broadcast (alive, suspect, dead, user).
	GossipOnly bool
	// Seq is the SeqNo of a ping, indirect ping, ack or nack.
	Seq uint32
	// Node is a ping's or indirect ping's target name.
	Node string
	// Source is a ping's sender name (memberlist's SourceNode), when
	// it gives one.
	Source string
	// Parts are the decoded broadcasts, in order.
	Parts []Broadcast
}

// Broadcast is one alive, suspect or dead part.
type Broadcast struct {
	Type        int
	Node        string
	Incarnation uint32
}

type mlSeqBody struct {
	SeqNo      uint32
	Node       string
	SourceNode string
}

type mlUpdateBody struct {
	Incarnation uint32
	Node        string
}

type mlCompressBody struct {
	Algo int
	Buf  []byte
}

var mlHandle = &codec.MsgpackHandle{}

func mlDecodeBody(b []byte, v any) bool {
	return codec.NewDecoderBytes(b, mlHandle).Decode(v) == nil
}

// mlUnwrap strips the CRC header and decompresses, as memberlist's
// ingestPacket and readStream do.
func mlUnwrap(b []byte) []byte {
	if len(b) >= 5 && b[0] == mlHasCrc {
		b = b[5:]
	}
	if len(b) > 0 && b[0] == mlCompress {
		var c mlCompressBody
		if !mlDecodeBody(b[1:], &c) || c.Algo != 0 {
			return nil
		}
		r := lzw.NewReader(bytes.NewReader(c.Buf), lzw.LSB, 8)
		defer r.Close()
		out, err := io.ReadAll(io.LimitReader(r, 64<<20))
		if err != nil {
			return nil
		}
		return out
	}
	return b
}

// Decode decodes one datagram or stream message as it was written.
func Decode(wire []byte) Msg {
	b := mlUnwrap(wire)
	if len(b) == 0 {
		return Msg{Type: -1}
	}
	parts := [][]byte{b}
	if b[0] == mlCompound {
		parts = splitCompound(b[1:])
		if len(parts) == 0 {
			return Msg{Type: -1}
		}
	}
	m := Msg{Type: int(parts[0][0]), GossipOnly: true}
	for i, p := range parts {
		t := int(p[0])
		switch t {
		case mlAlive, mlSuspect, mlDead:
			var u mlUpdateBody
			mlDecodeBody(p[1:], &u)
			m.Parts = append(m.Parts, Broadcast{Type: t, Node: u.Node, Incarnation: u.Incarnation})
			m.Broadcasts++
		case mlUser:
		default:
			m.GossipOnly = false
			if i == 0 {
				var s mlSeqBody
				mlDecodeBody(p[1:], &s)
				m.Seq, m.Node, m.Source = s.SeqNo, s.Node, s.SourceNode
			}
		}
	}
	if m.GossipOnly {
		m.Type = mlAlive // a broadcast-only datagram: its kind is gossip
	}
	return m
}

// splitCompound splits a compound body (after its type byte).
func splitCompound(b []byte) [][]byte {
	if len(b) < 1 {
		return nil
	}
	n := int(b[0])
	b = b[1:]
	if len(b) < 2*n {
		return nil
	}
	lens := make([]int, n)
	for i := range n {
		lens[i] = int(binary.BigEndian.Uint16(b[2*i:]))
	}
	b = b[2*n:]
	var parts [][]byte
	for _, l := range lens {
		if l == 0 || len(b) < l {
			return parts
		}
		parts = append(parts, b[:l])
		b = b[l:]
	}
	return parts
}

// PacketKind names a datagram's kind in detsim's message vocabulary:
// ping, ping_req, ack, indirect_ack (a nack; an ack is one when it
// answers a ping_req, which only context tells: Observer decides), and
// "gossip" for a datagram of broadcasts only, which detsim's SWIM never
// sends (it has no gossip timer).
func PacketKind(m Msg) string {
	if m.GossipOnly {
		return "gossip"
	}
	switch m.Type {
	case mlPing:
		return "ping"
	case mlIndirectPing:
		return "ping_req"
	case mlAck:
		return "ack"
	case mlNack:
		return "indirect_ack"
	case mlPushPull:
		return "push_pull"
	}
	return "other"
}

// StreamKind names a stream message's kind: memberlist's push/pull is
// detsim's join_request when the dialler sends it and join_response when
// the other end answers (the periodic anti-entropy push/pull too: it is
// the same exchange), its fallback ping and the answer are tcp_ping and
// tcp_ack; an error answer is tcp_error, anything else tcp_other.
func StreamKind(m Msg, fromDialer bool) string {
	switch m.Type {
	case mlPushPull:
		if fromDialer {
			return "join_request"
		}
		return "join_response"
	case mlPing:
		return "tcp_ping"
	case mlAck:
		return "tcp_ack"
	case mlErr:
		return "tcp_error"
	}
	return "tcp_other"
}

// StreamMessageLen is the length of the stream message b starts with, as
// memberlist's readStream frames it: a compressed message is its type
// byte and one msgpack {Algo, Buf}; a push/pull is its header, Nodes
// member states and UserStateLen bytes; a user message its header and
// UserMsgLen bytes; anything else its type byte and
// one msgpack body. false: b holds no whole message yet (or never will:
// the caller bounds what it buffers).
func StreamMessageLen(b []byte) (int, bool) {
	if len(b) == 0 {
		return 0, false
	}
	dec := codec.NewDecoderBytes(b[1:], mlHandle)
	tail := 0 // bytes after the msgpack part
	switch b[0] {
	case mlPushPull:
		var h struct {
			Nodes        int
			UserStateLen int
			Join         bool
		}
		if dec.Decode(&h) != nil || h.Nodes < 0 || h.UserStateLen < 0 {
			return 0, false
		}
		// Each state decoded takes at least a byte: at most len(b) rounds.
		for range h.Nodes {
			var node any
			if dec.Decode(&node) != nil {
				return 0, false
			}
		}
		tail = h.UserStateLen
	case mlUser:
		var h struct{ UserMsgLen int }
		if dec.Decode(&h) != nil || h.UserMsgLen < 0 {
			return 0, false
		}
		tail = h.UserMsgLen
	default:
		var body any
		if dec.Decode(&body) != nil {
			return 0, false
		}
	}
	n := 1 + dec.NumBytesRead() + tail
	if n > len(b) || n < 0 {
		return 0, false
	}
	return n, true
}
