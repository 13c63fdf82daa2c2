package swim

import (
	"strconv"
	"unicode/utf8"
)

// Tiny JSON writers for events and snapshots: fixed member order, no
// reflection, no maps, and the same bytes on every platform.
//
// NB: appendJSONString is a twin of the simulator's internal/jsonw
// AppendString, kept because this package imports nothing of the
// simulator. Both escape exactly as encoding/json does with HTML escaping
// off; internal/jsonw's TestAppendString_SameAsSwim fails if they drift.
// The field writers below are twins of jsonw's Append*Field in the same
// way (TestFields_SameAsSwim), and object of jsonw.Object: the one
// encoder every event of this package writes through.

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string. Quotes, backslashes and
// control characters are escaped (\b \f \n \r \t in short form, the rest
// as \u00XX), invalid UTF-8 becomes U+FFFD, and U+2028 and U+2029 are
// escaped so the output is also valid JavaScript.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendKey appends `"key":`, preceded by a comma unless it is the first
// member. Keys are package constants and need no escaping.
func appendKey(dst []byte, key string, first bool) []byte {
	if !first {
		dst = append(dst, ',')
	}
	dst = append(dst, '"')
	dst = append(dst, key...)
	return append(dst, '"', ':')
}

func appendStringField(dst []byte, key, v string) []byte {
	return appendJSONString(appendKey(dst, key, false), v)
}

func appendIntField(dst []byte, key string, v int64) []byte {
	return strconv.AppendInt(appendKey(dst, key, false), v, 10)
}

func appendUintField(dst []byte, key string, v uint64) []byte {
	return strconv.AppendUint(appendKey(dst, key, false), v, 10)
}

func appendBoolField(dst []byte, key string, v bool) []byte {
	return strconv.AppendBool(appendKey(dst, key, false), v)
}

// appendTypeField opens an event object with its "type" member.
func appendTypeField(dst []byte, typ string) []byte {
	dst = append(dst, `{"type":`...)
	return appendJSONString(dst, typ)
}

// object is an event object being written: openObject writes its
// "type", each method one member, end the closing brace, so an event's
// AppendJSON is its member list.
type object []byte

func openObject(dst []byte, typ string) object { return appendTypeField(dst, typ) }

func (o object) str(key, v string) object         { return appendStringField(o, key, v) }
func (o object) int(key string, v int64) object   { return appendIntField(o, key, v) }
func (o object) uint(key string, v uint64) object { return appendUintField(o, key, v) }
func (o object) end() []byte                      { return append(o, '}') }

// strs appends ,"key":["v0","v1",…], [] for none.
func (o object) strs(key string, vs []string) object {
	o = append(appendKey(o, key, false), '[')
	for i, v := range vs {
		if i > 0 {
			o = append(o, ',')
		}
		o = appendJSONString(o, v)
	}
	return append(o, ']')
}
