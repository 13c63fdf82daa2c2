package echo

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
)

// Wire format: one version-and-kind byte (0x01 ping, 0x02 pong), the
// sequence number as 8 bytes big-endian, then the payload as zero bytes.
const (
	headerLen = 9
	maxWire   = 65507 // one UDP datagram
	tagPing   = 0x01
	tagPong   = 0x02
)

// msg is an echo application message.
type msg struct {
	pong    bool
	seq     uint64
	payload int
}

type codec struct{}

// describe names a message from its header: "ping #3", "pong #3" (the
// queue pane); "" for bytes that are not an echo message.
func describe(b []byte) string {
	if len(b) < headerLen {
		return ""
	}
	seq := " #" + strconv.FormatUint(binary.BigEndian.Uint64(b[1:]), 10)
	switch b[0] {
	case tagPing:
		return "ping" + seq
	case tagPong:
		return "pong" + seq
	}
	return ""
}

func (codec) Append(b []byte, m any) ([]byte, error) {
	x, ok := m.(*msg)
	if !ok {
		return nil, fmt.Errorf("echo: cannot encode %T", m)
	}
	if x.payload < 0 || headerLen+x.payload > maxWire {
		return nil, fmt.Errorf("echo: payload of %d bytes does not fit a datagram", x.payload)
	}
	tag := byte(tagPing)
	if x.pong {
		tag = tagPong
	}
	b = append(b, tag)
	b = binary.BigEndian.AppendUint64(b, x.seq)
	return append(b, make([]byte, x.payload)...), nil
}

var errShort = errors.New("echo: message shorter than its 9-byte header")

func (c codec) Decode(b []byte) (any, error) { return c.DecodeInto(b, nil) }

// DecodeInto makes codec a hosts.ReusingCodec: an echo host reads a
// delivered message within Recv and keeps nothing of it.
func (codec) DecodeInto(b []byte, into any) (any, error) {
	if len(b) < headerLen {
		return nil, errShort
	}
	if len(b) > maxWire {
		return nil, fmt.Errorf("echo: message of %d bytes exceeds a datagram", len(b))
	}
	var pong bool
	switch b[0] {
	case tagPing:
	case tagPong:
		pong = true
	default:
		return nil, fmt.Errorf("echo: unknown message tag 0x%02x", b[0])
	}
	m, ok := into.(*msg)
	if !ok {
		m = new(msg)
	}
	*m = msg{pong: pong, seq: binary.BigEndian.Uint64(b[1:]), payload: len(b) - headerLen}
	return m, nil
}

func sortedKeys(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }
