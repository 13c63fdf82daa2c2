package bench

import (
	"bytes"
	"compress/lzw"
	"encoding/binary"
	"io"

	"github.com/hashicorp/go-msgpack/v2/codec"
)

// What the witness reads of memberlist v0.7.0's wire format (net.go,
// util.go): a one-byte message type, then a msgpack body; a compound
// message is the type byte, a count, that many big-endian uint16 lengths
// and the parts; a compressed one is a msgpack {Algo, Buf} with Buf LZW
// (LSB, 8-bit literals); a datagram to a node speaking protocol 5 starts
// with a CRC header (type byte and 4 bytes of CRC-32). No label and no
// encryption: the witness runs memberlist without either.
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

// mlMessage is one decoded memberlist datagram or stream message.
type mlMessage struct {
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
	// Parts are the decoded broadcasts, in order.
	Parts []mlBroadcast
}

// mlBroadcast is one alive, suspect or dead part.
type mlBroadcast struct {
	Type        int
	Node        string
	Incarnation uint32
}

type mlSeqBody struct {
	SeqNo uint32
	Node  string
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

// decodeML decodes one datagram or stream message as it was written.
func decodeML(wire []byte) mlMessage {
	b := mlUnwrap(wire)
	if len(b) == 0 {
		return mlMessage{Type: -1}
	}
	parts := [][]byte{b}
	if b[0] == mlCompound {
		parts = splitCompound(b[1:])
		if len(parts) == 0 {
			return mlMessage{Type: -1}
		}
	}
	m := mlMessage{Type: int(parts[0][0]), GossipOnly: true}
	for i, p := range parts {
		t := int(p[0])
		switch t {
		case mlAlive, mlSuspect, mlDead:
			var u mlUpdateBody
			mlDecodeBody(p[1:], &u)
			m.Parts = append(m.Parts, mlBroadcast{Type: t, Node: u.Node, Incarnation: u.Incarnation})
			m.Broadcasts++
		case mlUser:
		default:
			m.GossipOnly = false
			if i == 0 {
				var s mlSeqBody
				mlDecodeBody(p[1:], &s)
				m.Seq, m.Node = s.SeqNo, s.Node
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

// packetKind names a datagram's kind in detsim's message vocabulary:
// ping, ping_req, ack, indirect_ack (decided by the caller from context,
// see witness.sent), and "gossip" for a datagram of broadcasts only,
// which detsim's SWIM never sends (it has no gossip timer).
func packetKind(m mlMessage) string {
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
