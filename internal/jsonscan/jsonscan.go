// Package jsonscan reads the compact JSON that internal/jsonw writes, for
// the fast paths of the events.ndjson reader and the verdict payload
// decoders. It reads one shape only: no whitespace between tokens, keys
// of printable ASCII without escapes, strings that decode to their own
// bytes. Anything else it reports as not recognised (ok false), and the
// caller falls back to encoding/json, which decides.
//
// The contract every function keeps is the one that makes the fallback
// safe: whatever it accepts, encoding/json accepts too and decodes to the
// same value. It therefore validates everything it passes over, skipped
// values included, exactly as strictly as encoding/json's scanner does.
package jsonscan

import (
	"math"
	"unicode/utf8"
)

// The classes of bytes inside a JSON string.
const (
	plain   = iota // printable ASCII that stands for itself
	quote          // the closing quote
	escape         // a backslash
	control        // below 0x20: never valid unescaped
	high           // a byte of a multi-byte UTF-8 sequence, or invalid UTF-8
)

var byteClass = func() (t [256]uint8) {
	for c := range 256 {
		switch {
		case c < 0x20:
			t[c] = control
		case c == '"':
			t[c] = quote
		case c == '\\':
			t[c] = escape
		case c >= utf8.RuneSelf:
			t[c] = high
		}
	}
	return t
}()

// maxDepth is the deepest nesting Skip follows. encoding/json allows
// 10000 levels; the simulator's payloads nest two or three, so deeper
// values are left to it rather than tracked here.
const maxDepth = 64

// String returns the contents of the JSON string starting at b[i], and
// the index just past its closing quote, when the contents decode to
// themselves: no escape, no control byte and valid UTF-8 (encoding/json
// turns each invalid byte into U+FFFD). It does not allocate.
func String(b []byte, i int) (s []byte, next int, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, 0, false
	}
	ascii := true
	for j := i + 1; j < len(b); j++ {
		switch byteClass[b[j]] {
		case plain:
		case quote:
			s = b[i+1 : j]
			if !ascii && !utf8.Valid(s) {
				return nil, 0, false
			}
			return s, j + 1, true
		case high:
			ascii = false
		default: // a control byte or an escape
			return nil, 0, false
		}
	}
	return nil, 0, false
}

// Key returns the object key starting at b[i], and the index just past
// the colon after it, when the key is printable ASCII without escapes.
// Such a key matches a struct field in encoding/json exactly when it is
// equal to the field's name or ASCII-case-insensitively equal to it, which
// is what FoldsTo tells.
func Key(b []byte, i int) (key []byte, next int, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, 0, false
	}
	for j := i + 1; j < len(b); j++ {
		switch byteClass[b[j]] {
		case plain:
		case quote:
			if j+1 >= len(b) || b[j+1] != ':' {
				return nil, 0, false
			}
			return b[i+1 : j], j + 2, true
		default: // a control byte, an escape or non-ASCII
			return nil, 0, false
		}
	}
	return nil, 0, false
}

// FoldsTo reports whether an ASCII key equals one of names when ASCII
// letter case is ignored. A decoder that matched key against names
// exactly and found none calls it: encoding/json would still match the
// key to that field, so the fast path must step aside.
func FoldsTo(key []byte, names ...string) bool {
	for _, n := range names {
		if len(n) == len(key) && equalFoldASCII(key, n) {
			return true
		}
	}
	return false
}

func equalFoldASCII(key []byte, name string) bool {
	for i := range len(key) {
		a, b := key[i], name[i]
		if 'A' <= a && a <= 'Z' {
			a += 'a' - 'A'
		}
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		if a != b {
			return false
		}
	}
	return true
}

// Uint returns the JSON number starting at b[i] when it is a
// non-negative integer that fits in a uint64, as encoding/json decodes it
// into one, and the index just past it.
func Uint(b []byte, i int) (v uint64, next int, ok bool) {
	j := i
	for ; j < len(b) && '0' <= b[j] && b[j] <= '9'; j++ {
		d := uint64(b[j] - '0')
		if v > (math.MaxUint64-d)/10 {
			return 0, 0, false
		}
		v = v*10 + d
	}
	switch {
	case j == i, b[i] == '0' && j > i+1: // no digit, or a leading zero
		return 0, 0, false
	case j < len(b) && (b[j] == '.' || b[j] == 'e' || b[j] == 'E'):
		return 0, 0, false // a fraction or exponent: not an integer literal
	}
	return v, j, true
}

// Int returns the JSON number starting at b[i] when it is an integer
// that fits in an int64, and the index just past it.
func Int(b []byte, i int) (v int64, next int, ok bool) {
	neg := i < len(b) && b[i] == '-'
	if neg {
		i++
	}
	u, next, ok := Uint(b, i)
	switch {
	case !ok:
		return 0, 0, false
	case neg && u <= 1<<63:
		return int64(-u), next, true // -(1<<63) wraps to itself, MinInt64
	case !neg && u <= math.MaxInt64:
		return int64(u), next, true
	}
	return 0, 0, false
}

// Match returns the index just past text when b holds it at i; callers
// match literals ("null") and fixed runs of punctuation and keys.
func Match(b []byte, i int, text string) (next int, ok bool) {
	if i < 0 || len(b)-i < len(text) || string(b[i:i+len(text)]) != text {
		return 0, false
	}
	return i + len(text), true
}

// Skip returns the index just past the JSON value starting at b[i] after
// checking it is valid: any value, nested to maxDepth, with no whitespace
// between its tokens. Strings in it may hold any escape JSON allows.
func Skip(b []byte, i int) (next int, ok bool) {
	var objects uint64 // bit d is set when the container at depth d is an object
	depth := 0
	for {
		// b[i] starts a value.
		if i >= len(b) {
			return 0, false
		}
		switch c := b[i]; {
		case c == '{' || c == '[':
			if depth == maxDepth {
				return 0, false
			}
			isObject := c == '{'
			if isObject {
				objects |= 1 << depth
			} else {
				objects &^= 1 << depth
			}
			depth++
			i++
			if i < len(b) && (b[i] == '}' && isObject || b[i] == ']' && !isObject) {
				i++
				depth--
				break // an empty container is a complete value
			}
			if isObject {
				if i, ok = skipKey(b, i); !ok {
					return 0, false
				}
			}
			continue
		case c == '"':
			if i, ok = skipString(b, i); !ok {
				return 0, false
			}
		case c == 't':
			if i, ok = Match(b, i, "true"); !ok {
				return 0, false
			}
		case c == 'f':
			if i, ok = Match(b, i, "false"); !ok {
				return 0, false
			}
		case c == 'n':
			if i, ok = Match(b, i, "null"); !ok {
				return 0, false
			}
		case c == '-' || '0' <= c && c <= '9':
			if i, ok = skipNumber(b, i); !ok {
				return 0, false
			}
		default:
			return 0, false
		}
		// A value ended at i: close containers until one continues.
		for {
			if depth == 0 {
				return i, true
			}
			if i >= len(b) {
				return 0, false
			}
			isObject := objects>>(depth-1)&1 == 1
			switch b[i] {
			case ',':
				i++
				if isObject {
					if i, ok = skipKey(b, i); !ok {
						return 0, false
					}
				}
			case '}', ']':
				if (b[i] == '}') != isObject {
					return 0, false
				}
				i++
				depth--
				continue
			default:
				return 0, false
			}
			break
		}
	}
}

// skipKey skips an object key and its colon.
func skipKey(b []byte, i int) (next int, ok bool) {
	i, ok = skipString(b, i)
	if !ok || i >= len(b) || b[i] != ':' {
		return 0, false
	}
	return i + 1, true
}

// skipString skips a JSON string with any escapes, checking them as
// encoding/json's scanner does. Bytes of invalid UTF-8 are valid there.
func skipString(b []byte, i int) (next int, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return 0, false
	}
	for j := i + 1; j < len(b); j++ {
		switch byteClass[b[j]] {
		case plain, high:
		case quote:
			return j + 1, true
		case control:
			return 0, false
		case escape:
			j++
			if j >= len(b) {
				return 0, false
			}
			switch b[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(b)-j <= 4 || !isHex(b[j+1]) || !isHex(b[j+2]) || !isHex(b[j+3]) || !isHex(b[j+4]) {
					return 0, false
				}
				j += 4
			default:
				return 0, false
			}
		}
	}
	return 0, false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// skipNumber skips a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func skipNumber(b []byte, i int) (next int, ok bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return 0, false
	case b[i] == '0':
		i++
	case '1' <= b[i] && b[i] <= '9':
		i = skipDigits(b, i)
	default:
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		j := skipDigits(b, i+1)
		if j == i+1 {
			return 0, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := skipDigits(b, i)
		if j == i {
			return 0, false
		}
		i = j
	}
	return i, true
}

func skipDigits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}
