// Package jsonmember finds a member's value in a JSON object as detsim's
// encoders write it (compact: no spaces, fixed member order, ids and
// names without escapes), without decoding the object. The debugger's
// conditions, the causal index and the page's charts read records this
// way: one record costs a few byte searches, not a decode.
package jsonmember

import "bytes"

// Find returns the raw bytes of the first `"key":` member's value in
// obj: a string with its quotes, an array with its brackets, or a number
// or literal as written. It does not descend: a key that only occurs
// inside a nested value is found there too, which detsim's flat event
// payloads never have.
func Find(obj []byte, key string) ([]byte, bool) {
	var pat [48]byte
	return FindKey(obj, append(append(append(pat[:0], '"'), key...), '"', ':'))
}

// FindKey is Find with the key already written as `"key":`.
func FindKey(obj, key []byte) ([]byte, bool) {
	i := bytes.Index(obj, key)
	if i < 0 {
		return nil, false
	}
	v := obj[i+len(key):]
	if len(v) == 0 {
		return nil, false
	}
	switch v[0] {
	case '"':
		j := bytes.IndexByte(v[1:], '"')
		if j < 0 {
			return nil, false
		}
		return v[:j+2], true
	case '[':
		j := bytes.IndexByte(v, ']')
		if j < 0 {
			return nil, false
		}
		return v[:j+1], true
	}
	j := bytes.IndexAny(v, ",}]")
	if j < 0 {
		return v, true
	}
	return v[:j], true
}

// String is a string member's contents, or a number or literal as
// written; "" when absent.
func String(obj []byte, key string) string {
	raw, _ := Find(obj, key)
	if len(raw) >= 2 && raw[0] == '"' {
		return string(raw[1 : len(raw)-1])
	}
	return string(raw)
}

// Int reads a raw number as written (an integer, no exponent) without
// allocating; false for anything else or one of more than 18 digits.
func Int(raw []byte) (int64, bool) {
	neg := len(raw) > 0 && raw[0] == '-'
	if neg {
		raw = raw[1:]
	}
	if len(raw) == 0 || len(raw) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range raw {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}
