package schemadiff

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// A JSON type as the schema sees it. Numbers are integer when written
// with neither a fraction nor an exponent, float otherwise: a float field
// whose value happens to be integral and is written without ".0" (as Go's
// encoder writes 1.0) reads as integer on that record, so such a field
// shows both types.
type jsonType uint8

const (
	tString jsonType = 1 << iota
	tInteger
	tFloat
	tBool
	tNull
	tObject
	tArray
)

// typeNames are the names of the types, in bit order.
var typeNames = [...]string{"string", "integer", "float", "bool", "null", "object", "array"}

// Types is a set of JSON types.
type Types uint8

// String lists the set's types, "|"-separated, in a fixed order.
func (t Types) String() string {
	var b []byte
	for i, n := range typeNames {
		if t&(1<<i) != 0 {
			if len(b) > 0 {
				b = append(b, '|')
			}
			b = append(b, n...)
		}
	}
	if len(b) == 0 {
		return "-"
	}
	return string(b)
}

// Limits that keep a hostile or corrupt file from using unbounded memory
// or time. A detsim bundle is far inside all of them.
const (
	maxLine        = 64 << 20 // bytes in one events.ndjson line (the bundle reader's limit)
	maxDepth       = 64       // nesting of objects and arrays in one record
	maxPath        = 1024     // bytes in one field path
	maxKinds       = 4096     // distinct event kinds in one bundle
	maxFields      = 4096     // distinct field paths in one kind
	maxShapes      = 1 << 14  // record shapes remembered per bundle
	maxShapeKey    = 4 << 10  // longest shape remembered
	readBufferSize = 1 << 20
)

// walker reads one record line and writes its shape: a sequence of
// (field path, type) entries, each encoded as the path's length (two
// bytes), the path, and the type byte. Consecutive array elements of
// the same shape are written once, so an array's length does not change
// the record's shape.
type walker struct {
	b     []byte
	shape []byte
	path  []byte
	// tag and typ are the envelope's kind_tag and the event's type, as
	// read (unescaped only when they hold an escape).
	tag, typ       []byte
	hasTag, hasTyp bool
	err            error
}

func (w *walker) fail(format string, args ...any) {
	if w.err == nil {
		w.err = fmt.Errorf(format, args...)
	}
}

// line reads one record: a JSON object, the §9.2 envelope, whose
// "kind_tag" is a string and whose "event" is an object with a string
// "type". Any member order and JSON spacing is accepted.
func (w *walker) line(b []byte) error {
	*w = walker{b: b, shape: w.shape[:0], path: w.path[:0]}
	i := w.space(0)
	if i >= len(b) || b[i] != '{' {
		return errors.New("not a JSON object")
	}
	i = w.value(i, 0)
	if w.err != nil {
		return w.err
	}
	if i = w.space(i); i != len(b) {
		return errors.New("text after the record's closing brace")
	}
	switch {
	case !w.hasTag:
		return errors.New(`no string "kind_tag"`)
	case !w.hasTyp:
		return errors.New(`"event" is not an object with a string "type"`)
	case len(w.tag) == 0:
		return errors.New("kind_tag is empty")
	case len(w.typ) == 0:
		return errors.New("event type is empty")
	}
	return nil
}

func (w *walker) space(i int) int {
	for i < len(w.b) {
		switch w.b[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// emit records that the value at the current path has type t.
func (w *walker) emit(t jsonType) {
	n := len(w.path)
	if n == 0 {
		return // the record itself, always an object
	}
	w.shape = append(w.shape, byte(n>>8), byte(n))
	w.shape = append(w.shape, w.path...)
	w.shape = append(w.shape, byte(t))
}

// value reads the value at b[i] (no leading space), records its type at
// the current path and, for containers, its members'. It returns the
// index just past it.
func (w *walker) value(i, depth int) int {
	b := w.b
	if w.err != nil {
		return len(b)
	}
	if i >= len(b) {
		w.fail("unexpected end of line")
		return len(b)
	}
	switch c := b[i]; {
	case c == '{':
		w.emit(tObject)
		return w.object(i, depth+1)
	case c == '[':
		w.emit(tArray)
		return w.array(i, depth+1)
	case c == '"':
		w.emit(tString)
		_, next, _ := w.str(i)
		return next
	case c == 't':
		return w.literal(i, "true", tBool)
	case c == 'f':
		return w.literal(i, "false", tBool)
	case c == 'n':
		return w.literal(i, "null", tNull)
	case c == '-' || '0' <= c && c <= '9':
		next, float := w.number(i)
		if float {
			w.emit(tFloat)
		} else {
			w.emit(tInteger)
		}
		return next
	}
	w.fail("unexpected %q", b[i])
	return len(b)
}

func (w *walker) literal(i int, text string, t jsonType) int {
	if len(w.b)-i < len(text) || string(w.b[i:i+len(text)]) != text {
		w.fail("bad literal")
		return len(w.b)
	}
	w.emit(t)
	return i + len(text)
}

// object reads the object at b[i]. At depth 1 (the envelope) it picks out
// kind_tag and event; in the event it picks out type.
func (w *walker) object(i, depth int) int {
	b := w.b
	if depth > maxDepth {
		w.fail("nested more than %d levels deep", maxDepth)
		return len(b)
	}
	base := len(w.path)
	isEvent := depth == 2 && string(w.path) == "event"
	i = w.space(i + 1)
	if i < len(b) && b[i] == '}' {
		return i + 1
	}
	for {
		if i >= len(b) || b[i] != '"' {
			w.fail("expected an object key")
			return len(b)
		}
		key, next, escaped := w.str(i)
		if w.err != nil {
			return len(b)
		}
		if escaped {
			key = unescape(b[i:next])
		}
		i = w.space(next)
		if i >= len(b) || b[i] != ':' {
			w.fail("expected ':' after an object key")
			return len(b)
		}
		i = w.space(i + 1)
		if base > 0 {
			w.path = append(w.path, '.')
		}
		w.path = append(w.path, key...)
		if len(w.path) > maxPath {
			w.fail("a field path is longer than %d bytes", maxPath)
			return len(b)
		}
		start := i
		i = w.value(i, depth)
		if w.err != nil {
			return len(b)
		}
		switch {
		case depth == 1 && string(key) == "kind_tag" && b[start] == '"':
			w.tag, w.hasTag = w.text(start, i), true
		case isEvent && string(key) == "type" && b[start] == '"':
			w.typ, w.hasTyp = w.text(start, i), true
		}
		w.path = w.path[:base]
		// After a member: a comma or the close, as an array's
		// elements below, alike in shape with each its own bracket
		// and message.
		i = w.space(i)
		if i < len(b) && b[i] == ',' {
			i = w.space(i + 1)
			continue
		}
		if i < len(b) && b[i] == '}' {
			return i + 1
		}
		w.fail("expected ',' or '}' in an object")
		return len(b)
	}
}

// array reads the array at b[i]; its elements' path is the array's with
// "[]" appended.
func (w *walker) array(i, depth int) int {
	b := w.b
	if depth > maxDepth {
		w.fail("nested more than %d levels deep", maxDepth)
		return len(b)
	}
	base := len(w.path)
	w.path = append(w.path, "[]"...)
	if len(w.path) > maxPath {
		w.fail("a field path is longer than %d bytes", maxPath)
		return len(b)
	}
	defer func() { w.path = w.path[:base] }()
	i = w.space(i + 1)
	if i < len(b) && b[i] == ']' {
		return i + 1
	}
	prevStart, prevEnd := -1, -1
	for {
		start := len(w.shape)
		i = w.value(i, depth)
		if w.err != nil {
			return len(b)
		}
		end := len(w.shape)
		if prevStart >= 0 && bytes.Equal(w.shape[prevStart:prevEnd], w.shape[start:end]) {
			w.shape = w.shape[:start] // the same shape as the element before
		} else {
			prevStart, prevEnd = start, end
		}
		i = w.space(i)
		if i < len(b) && b[i] == ',' {
			i = w.space(i + 1)
			continue
		}
		if i < len(b) && b[i] == ']' {
			return i + 1
		}
		w.fail("expected ',' or ']' in an array")
		return len(b)
	}
}

// text is the decoded contents of the string b[start:end].
func (w *walker) text(start, end int) []byte {
	s := w.b[start+1 : end-1]
	if bytes.IndexByte(s, '\\') >= 0 {
		return unescape(w.b[start:end])
	}
	return s
}

// unescape decodes a JSON string literal with escapes (rare in a
// bundle: encoding/json is fast enough for it).
func unescape(lit []byte) []byte {
	var s string
	if json.Unmarshal(lit, &s) != nil {
		return lit
	}
	return []byte(s)
}

// str checks the JSON string at b[i] and returns its raw contents, the
// index past its closing quote, and whether it holds an escape.
func (w *walker) str(i int) (s []byte, next int, escaped bool) {
	b := w.b
	for j := i + 1; j < len(b); j++ {
		c := b[j]
		switch {
		case c == '"':
			return b[i+1 : j], j + 1, escaped
		case c < 0x20:
			w.fail("a control character in a string")
			return nil, len(b), false
		case c == '\\':
			escaped = true
			j++
			if j >= len(b) {
				break
			}
			switch b[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(b)-j <= 4 || !isHex(b[j+1]) || !isHex(b[j+2]) || !isHex(b[j+3]) || !isHex(b[j+4]) {
					w.fail("a bad \\u escape in a string")
					return nil, len(b), false
				}
				j += 4
			default:
				w.fail("a bad escape in a string")
				return nil, len(b), false
			}
		}
	}
	w.fail("an unterminated string")
	return nil, len(b), false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// number checks the JSON number at b[i]:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? and says whether it has
// a fraction or an exponent.
func (w *walker) number(i int) (next int, float bool) {
	b := w.b
	if b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		w.fail("a bad number")
		return len(b), false
	case b[i] == '0':
		i++
	case '1' <= b[i] && b[i] <= '9':
		i = digits(b, i)
	default:
		w.fail("a bad number")
		return len(b), false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			w.fail("a bad number")
			return len(b), false
		}
		i, float = j, true
	}
	// JSON's number grammar, as jsonscan skips it: kept here because the
	// schema needs whether a fraction or an exponent made the number a
	// float, and where a bad one is.
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			w.fail("a bad number")
			return len(b), false
		}
		i, float = j, true
	}
	return i, float
}

func digits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

// LineError is a line of events.ndjson schemadiff cannot read, named by
// its 1-based number.
type LineError struct {
	File string
	Line int64
	Err  error
}

func (e *LineError) Error() string {
	return fmt.Sprintf("%s line %d: %v", e.File, e.Line, e.Err)
}

func (e *LineError) Unwrap() error { return e.Err }

// eachLine calls fn with every line of r, without its newline, and its
// 1-based number. A final line without a newline is a line; a line
// longer than maxLine is an error. b is valid until fn returns.
func eachLine(r io.Reader, fn func(n int64, b []byte) error) error {
	buf := make([]byte, readBufferSize)
	start, end := 0, 0 // buf[start:end] is read and not yet handed out
	var n int64
	eof := false
	for {
		if nl := bytes.IndexByte(buf[start:end], '\n'); nl >= 0 {
			n++
			if err := fn(n, buf[start:start+nl]); err != nil {
				return err
			}
			start += nl + 1
			continue
		}
		if eof {
			if start < end {
				n++
				return fn(n, buf[start:end])
			}
			return nil
		}
		// No whole line in the buffer: move what is left to the front,
		// grow the buffer if a line fills it, and read more.
		if start > 0 {
			end = copy(buf, buf[start:end])
			start = 0
		}
		if end == len(buf) {
			if len(buf) >= maxLine {
				return &LineError{Line: n + 1, Err: fmt.Errorf("line longer than %d bytes", maxLine)}
			}
			bigger := make([]byte, min(2*len(buf), maxLine))
			copy(bigger, buf[:end])
			buf = bigger
		}
		m, err := r.Read(buf[end:])
		end += m
		switch {
		case err == io.EOF:
			eof = true
		case err != nil:
			return &LineError{Line: n + 1, Err: err}
		}
	}
}
