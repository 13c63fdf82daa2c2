package node

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
)

// A keyed node's datagram is the codec's bytes, then the destination
// member's id, then its length (one byte), then an 8-byte sequence
// number (big-endian), then a 16-byte tag: HMAC-SHA256 under the cluster
// key over a domain label and everything before the tag, truncated to its
// first 16 bytes (128 bits).
//
// Why an HMAC and not memberlist's AES-GCM keyring: a cluster key here
// must stop packets from outside the cluster, not hide membership from a
// reader on the wire (nothing in a SWIM message is secret).
// Authentication alone leaves the codec's bytes untouched at the front of
// the datagram — the bytes the simulator charges the link for and the
// codec contract fixes. Truncation to 128 bits is what RFC 2104 §5 and
// NIST SP 800-107 allow. The sequence number is what makes a captured
// datagram useless a second time (Replay); the destination is what makes
// it useless at any other member: a datagram captured on its way from a
// to b and sent to c is refused by c (before, every member took it,
// docs/decisions.md). The sender needs no field of its own: its id is
// inside the codec's bytes, which the tag covers, so the sender the tag
// authenticates and the sender the datagram claims are the same bytes.
const (
	// TagBytes is the length of the authentication tag.
	TagBytes = 16
	// SeqBytes is the length of the sequence number.
	SeqBytes = 8
	// fixedFrameBytes is the frame less the destination's id.
	fixedFrameBytes = 1 + SeqBytes + TagBytes
)

// FrameLen is what a keyed node adds to the codec's bytes of a datagram
// to the member to.
func FrameLen(to string) int { return len(to) + fixedFrameBytes }

// macLabel separates this framing's tags from any other use of the key.
// It names the framing's version: a datagram of another version never
// authenticates under it.
const macLabel = "detsim/swim datagram v3\x00"

// macLabelV2 is the framing before the destination was in the tag (the
// codec's bytes, the sequence number, the tag). Its datagrams are refused;
// it is kept only to name them (ReasonOldFormat): a member still running
// the old framing is then told apart from a wrong key.
const macLabelV2 = "detsim/swim datagram v2\x00"

// MinKeyBytes is the shortest cluster key accepted: 128 bits.
const MinKeyBytes = 16

// MaxKeyBytes is the longest cluster key accepted (an HMAC-SHA256 key
// longer than its 64-byte block is hashed first; more adds nothing).
const MaxKeyBytes = 64

// ErrKeyLength is returned for a key outside [MinKeyBytes, MaxKeyBytes].
var ErrKeyLength = errors.New("cluster key must be 16 to 64 bytes")

// CheckKey validates a cluster key; a nil key means an unkeyed cluster,
// which only an explicit --insecure asks for.
func CheckKey(key []byte) error {
	if key != nil && (len(key) < MinKeyBytes || len(key) > MaxKeyBytes) {
		return ErrKeyLength
	}
	return nil
}

// Seal appends to's id, seq and the tag of all three under key to msg
// (nothing when key is nil) and returns the datagram for the member to.
// to is at most 255 bytes (swim.MaxIDBytes; a longer id is cut, and no
// member of that id exists to take it).
func Seal(key []byte, to string, msg []byte, seq uint64) []byte {
	if key == nil {
		return msg
	}
	to = to[:min(len(to), 255)]
	msg = append(msg, to...)
	msg = append(msg, byte(len(to)))
	msg = binary.BigEndian.AppendUint64(msg, seq)
	return append(msg, tag(macLabel, key, msg)...)
}

func tag(label string, key, framed []byte) []byte {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(label))
	mac.Write(framed)
	return mac.Sum(nil)[:TagBytes]
}

// Drop reasons of packet_dropped (docs/events.md).
const (
	ReasonNoTag       = "no_tag"            // keyed node, datagram shorter than the frame
	ReasonBadTag      = "bad_tag"           // keyed node, tag does not authenticate the bytes
	ReasonOldFormat   = "old_format"        // keyed node, a tag of the earlier framing (macLabelV2), which did not cover the destination
	ReasonWrongDest   = "wrong_destination" // keyed node, authenticated, but for another member
	ReasonDecodeError = "decode_error"      // the codec rejected the bytes
	ReasonReplay      = "replay"            // keyed node, this sender's sequence number was seen, or is below its window
	ReasonStale       = "stale"             // keyed node, sequence number outside the receiver's clock window
	ReasonSenders     = "too_many_senders"
)

// Open checks and strips the frame of a datagram to the member self
// (nothing when key is nil) and returns the codec's bytes and the
// sequence number, or the reason it is dropped. It never panics and does
// not retain b.
func Open(key []byte, self string, b []byte) ([]byte, uint64, string) {
	if key == nil {
		return b, 0, ""
	}
	var framed, got []byte
	ok := len(b) >= fixedFrameBytes
	if ok {
		framed, got = b[:len(b)-TagBytes], b[len(b)-TagBytes:]
		ok = hmac.Equal(tag(macLabel, key, framed), got)
	}
	if !ok {
		// An earlier framing's datagram fails the tag above: named, so
		// a cluster of mixed versions is told apart from a wrong key.
		if len(b) >= SeqBytes+TagBytes && hmac.Equal(tag(macLabelV2, key, b[:len(b)-TagBytes]), b[len(b)-TagBytes:]) {
			return nil, 0, ReasonOldFormat
		}
		if len(b) < fixedFrameBytes {
			return nil, 0, ReasonNoTag
		}
		return nil, 0, ReasonBadTag
	}
	seq := binary.BigEndian.Uint64(framed[len(framed)-SeqBytes:])
	rest := framed[:len(framed)-SeqBytes]
	n := int(rest[len(rest)-1])
	rest = rest[:len(rest)-1]
	if n > len(rest) {
		// Authenticated, so sealed by a key holder, but not by Seal.
		return nil, 0, ReasonNoTag
	}
	if string(rest[len(rest)-n:]) != self {
		return nil, 0, ReasonWrongDest
	}
	return rest[:len(rest)-n], seq, ""
}
