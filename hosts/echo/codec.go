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

func (codec) Decode(b []byte) (any, error) {
	if len(b) < headerLen {
		return nil, errShort
	}
	if len(b) > maxWire {
		return nil, fmt.Errorf("echo: message of %d bytes exceeds a datagram", len(b))
	}
	m := &msg{seq: binary.BigEndian.Uint64(b[1:]), payload: len(b) - headerLen}
	switch b[0] {
	case tagPing:
	case tagPong:
		m.pong = true
	default:
		return nil, fmt.Errorf("echo: unknown message tag 0x%02x", b[0])
	}
	return m, nil
}

func sortedKeys(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }
