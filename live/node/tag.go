package node

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
)

// A keyed node's datagram is the codec's bytes, then an 8-byte sequence
// number (big-endian), then a 16-byte tag: HMAC-SHA256 under the cluster
// key over a domain label, the codec's bytes and the sequence number,
// truncated to its first 16 bytes (128 bits).
//
// Why an HMAC and not memberlist's AES-GCM keyring: a cluster key here
// must stop packets from outside the cluster, not hide membership from a
// reader on the wire (nothing in a SWIM message is secret).
// Authentication alone leaves the codec's bytes untouched at the front of
// the datagram — the bytes the simulator charges the link for and the
// codec contract fixes. Truncation to 128 bits is what RFC 2104 §5 and
// NIST SP 800-107 allow. The sequence number is what makes a captured
// datagram useless a second time (Replay).
const (
	// TagBytes is the length of the authentication tag.
	TagBytes = 16
	// SeqBytes is the length of the sequence number.
	SeqBytes = 8
	// FrameBytes is what a keyed node adds to the codec's bytes.
	FrameBytes = SeqBytes + TagBytes
)

// macLabel separates this framing's tags from any other use of the key
// (the earlier framing tagged the codec's bytes alone).
const macLabel = "detsim/swim datagram v2\x00"

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

// Seal appends seq and the tag of msg and seq under key to msg (nothing
// when key is nil) and returns the datagram.
func Seal(key, msg []byte, seq uint64) []byte {
	if key == nil {
		return msg
	}
	msg = binary.BigEndian.AppendUint64(msg, seq)
	return append(msg, tag(key, msg)...)
}

func tag(key, framed []byte) []byte {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(macLabel))
	mac.Write(framed)
	return mac.Sum(nil)[:TagBytes]
}

// Drop reasons of packet_dropped (docs/events.md).
const (
	ReasonNoTag       = "no_tag"       // keyed node, datagram shorter than the frame
	ReasonBadTag      = "bad_tag"      // keyed node, tag does not authenticate the bytes
	ReasonDecodeError = "decode_error" // the codec rejected the bytes
	ReasonReplay      = "replay"       // keyed node, this sender's sequence number was seen, or is below its window
	ReasonStale       = "stale"        // keyed node, sequence number outside the receiver's clock window
	ReasonSenders     = "too_many_senders"
)

// Open checks and strips the frame of a datagram (nothing when key is
// nil) and returns the codec's bytes and the sequence number, or the
// reason it is dropped. It never panics and does not retain b.
func Open(key, b []byte) ([]byte, uint64, string) {
	if key == nil {
		return b, 0, ""
	}
	if len(b) < FrameBytes {
		return nil, 0, ReasonNoTag
	}
	framed, got := b[:len(b)-TagBytes], b[len(b)-TagBytes:]
	if !hmac.Equal(tag(key, framed), got) {
		return nil, 0, ReasonBadTag
	}
	msg := framed[:len(framed)-SeqBytes]
	return msg, binary.BigEndian.Uint64(framed[len(framed)-SeqBytes:]), ""
}
