// Package jsonw appends JSON tokens to byte slices without reflection or
// allocation, so hosts, the engine and the bundle writer can emit event
// payloads with a fixed member order and bytes that never depend on an
// encoder's internals. Strings are escaped exactly as encoding/json does
// with HTML escaping off, so a payload written here is byte-identical to
// the same payload marshalled by a Go production emitter.
//
// The functions write tokens only; the caller writes the structure:
//
//	dst = append(dst, '{')
//	dst = jsonw.AppendKey(dst, "type")
//	dst = jsonw.AppendString(dst, "probe_sent")
//	dst = append(dst, ',')
//	dst = jsonw.AppendKey(dst, "seq")
//	dst = jsonw.AppendUint(dst, seq)
//	dst = append(dst, '}')
package jsonw

import (
	"strconv"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// plain marks the ASCII bytes that go into a JSON string unescaped: every
// printable character except the quote and the backslash.
var plain = func() (t [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\'
	}
	return t
}()

// AppendString appends s as a quoted JSON string. Quotes, backslashes and
// control characters are escaped (\b \f \n \r \t in short form, the rest as
// \u00XX); U+2028 and U+2029 are escaped because JavaScript treats them as
// line ends; each byte of invalid UTF-8 becomes \ufffd, so the output is
// valid JSON whatever s holds.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0 // s[start:i] is a run still to be copied verbatim
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if plain[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = appendEscapedASCII(dst, b)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendEscapedASCII appends the escape sequence of an ASCII byte that
// cannot appear in a JSON string as itself.
func appendEscapedASCII(dst []byte, b byte) []byte {
	switch b {
	case '"', '\\':
		return append(dst, '\\', b)
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	return append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
}

// AppendKey appends key as a JSON string followed by a colon, ready for
// the member's value. The caller writes the comma between members.
func AppendKey(dst []byte, key string) []byte {
	return append(AppendString(dst, key), ':')
}

// The field writers below append one member of an event object, the
// comma before it included, for the kinds that write their records in a
// fixed member order ({"type":… first). Keys are written as they are:
// package constants that need no escaping. kinds/swim/swim has twins of them,
// because it imports nothing of the simulator (TestFields_SameAsSwim).

// AppendTypeField opens an event object with its "type" member.
func AppendTypeField(dst []byte, typ string) []byte {
	dst = append(dst, `{"type":`...)
	return AppendString(dst, typ)
}

// AppendStringField appends ,"key":"v".
func AppendStringField(dst []byte, key, v string) []byte {
	return AppendString(appendFieldKey(dst, key), v)
}

// AppendUintField appends ,"key":v.
func AppendUintField(dst []byte, key string, v uint64) []byte {
	return strconv.AppendUint(appendFieldKey(dst, key), v, 10)
}

// AppendBoolField appends ,"key":true or ,"key":false.
func AppendBoolField(dst []byte, key string, v bool) []byte {
	return strconv.AppendBool(appendFieldKey(dst, key), v)
}

// appendFieldKey appends ,"key": with key as it is.
func appendFieldKey(dst []byte, key string) []byte {
	dst = append(dst, ',', '"')
	dst = append(dst, key...)
	return append(dst, '"', ':')
}

// AppendInt appends v as a JSON number.
func AppendInt(dst []byte, v int64) []byte {
	return strconv.AppendInt(dst, v, 10)
}

// AppendUint appends v as a JSON number. Values above 2^53 are exact in
// the bytes but lose precision in readers that parse numbers as doubles.
func AppendUint(dst []byte, v uint64) []byte {
	return strconv.AppendUint(dst, v, 10)
}

// AppendBool appends true or false.
func AppendBool(dst []byte, v bool) []byte {
	if v {
		return append(dst, "true"...)
	}
	return append(dst, "false"...)
}

// AppendNull appends null.
func AppendNull(dst []byte) []byte {
	return append(dst, "null"...)
}

// AppendStringArray appends ss as a JSON array of strings; a nil or empty
// slice is written as [] so a reader never has to tell null from empty.
func AppendStringArray(dst []byte, ss []string) []byte {
	dst = append(dst, '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendString(dst, s)
	}
	return append(dst, ']')
}

// AppendHex64 appends v as a JSON string of 16 lowercase hex digits, the
// spelling records give a 64-bit digest or chain.
func AppendHex64(dst []byte, v uint64) []byte {
	dst = append(dst, '"')
	for s := 60; s >= 0; s -= 4 {
		dst = append(dst, hexDigits[(v>>uint(s))&0xf])
	}
	return append(dst, '"')
}

// Object is an event object being written with the field writers above:
// Open writes its "type", each method one member, End the closing brace.
// An event's AppendJSON is then its member list and nothing else, so the
// events of a kind share one encoder instead of a copy each:
//
//	return jsonw.Open(b, "vote").Uint("term", e.term).Bool("pre", e.pre).End()
//
// It is the slice itself, so writing through it allocates no more than
// the field writers do.
type Object []byte

// Open starts an event object of type typ on dst.
func Open(dst []byte, typ string) Object { return AppendTypeField(dst, typ) }

// Str appends ,"key":"v".
func (o Object) Str(key, v string) Object { return AppendStringField(o, key, v) }

// Uint appends ,"key":v.
func (o Object) Uint(key string, v uint64) Object { return AppendUintField(o, key, v) }

// Int appends ,"key":v.
func (o Object) Int(key string, v int64) Object {
	return strconv.AppendInt(appendFieldKey(o, key), v, 10)
}

// Bool appends ,"key":true or ,"key":false.
func (o Object) Bool(key string, v bool) Object { return AppendBoolField(o, key, v) }

// Hex64 appends ,"key":"<v as 16 hex digits>" (AppendHex64).
func (o Object) Hex64(key string, v uint64) Object { return AppendHex64(appendFieldKey(o, key), v) }

// Uints appends ,"key":[v0,v1,…], [] for none.
func (o Object) Uints(key string, vs []uint64) Object { return o.array(key, vs, AppendUint) }

// Hex64s appends ,"key":["<v0>","<v1>",…] in AppendHex64's spelling, []
// for none.
func (o Object) Hex64s(key string, vs []uint64) Object { return o.array(key, vs, AppendHex64) }

func (o Object) array(key string, vs []uint64, elem func([]byte, uint64) []byte) Object {
	o = append(appendFieldKey(o, key), '[')
	for i, v := range vs {
		if i > 0 {
			o = append(o, ',')
		}
		o = elem(o, v)
	}
	return append(o, ']')
}

// End closes the object and returns its bytes.
func (o Object) End() []byte { return append(o, '}') }
