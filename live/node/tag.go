package node

import (
	"crypto/hmac"
	"crypto/sha256"
	"errors"
)

// TagBytes is the length of the authentication tag a keyed node appends
// to every datagram: HMAC-SHA256 over the codec's bytes, truncated to its
// first 16 bytes (128 bits).
//
// Why an HMAC and not memberlist's AES-GCM keyring: a cluster key here
// must stop packets from outside the cluster, not hide membership from a
// reader on the wire (loopback only, and nothing in a SWIM message is
// secret). Authentication alone leaves the codec's bytes untouched inside
// the datagram — the bytes the simulator charges the link for and the
// codec contract fixes — and adds no nonce, so a datagram is a pure
// function of the message and the key. Truncation to 128 bits is what
// RFC 2104 §5 and NIST SP 800-107 allow; it keeps the overhead at 16
// bytes per datagram (a forger needs 2^128 tries for one packet) where
// AES-GCM would add a 12-byte nonce, a 16-byte tag and a version byte.
const TagBytes = 16

// MinKeyBytes is the shortest cluster key accepted: 128 bits.
const MinKeyBytes = 16

// MaxKeyBytes is the longest cluster key accepted (an HMAC-SHA256 key
// longer than its 64-byte block is hashed first; more adds nothing).
const MaxKeyBytes = 64

// ErrKeyLength is returned for a key outside [MinKeyBytes, MaxKeyBytes].
var ErrKeyLength = errors.New("cluster key must be 16 to 64 bytes")

// CheckKey validates a cluster key; a nil key means an unkeyed cluster.
func CheckKey(key []byte) error {
	if key != nil && (len(key) < MinKeyBytes || len(key) > MaxKeyBytes) {
		return ErrKeyLength
	}
	return nil
}

// Seal appends the tag of msg under key to msg (nothing when key is nil)
// and returns the datagram.
func Seal(key, msg []byte) []byte {
	if key == nil {
		return msg
	}
	mac := hmac.New(sha256.New, key)
	mac.Write(msg)
	return mac.Sum(msg)[:len(msg)+TagBytes]
}

// Drop reasons of packet_dropped (docs/events.md).
const (
	ReasonNoTag       = "no_tag"       // keyed node, datagram shorter than a tag
	ReasonBadTag      = "bad_tag"      // keyed node, tag does not authenticate the bytes
	ReasonDecodeError = "decode_error" // the codec rejected the bytes
)

// Open checks and strips the tag of a datagram (nothing when key is nil)
// and returns the codec's bytes, or the reason it is dropped. It never
// panics and does not retain b.
func Open(key, b []byte) ([]byte, string) {
	if key == nil {
		return b, ""
	}
	if len(b) < TagBytes {
		return nil, ReasonNoTag
	}
	msg, tag := b[:len(b)-TagBytes], b[len(b)-TagBytes:]
	mac := hmac.New(sha256.New, key)
	mac.Write(msg)
	if !hmac.Equal(mac.Sum(nil)[:TagBytes], tag) {
		return nil, ReasonBadTag
	}
	return msg, ""
}
