package term

import (
	"io"
	"strconv"
	"sync"
	"unicode/utf8"
)

// Escape returns s with every character a terminal would act on instead
// of showing shown as an escape: C0 and C1 controls other than newline
// and tab (ESC starts colour, cursor, title and hyperlink sequences; CR
// and BS overwrite what was printed), DEL, the Unicode bidirectional
// overrides, embeddings, isolates and marks (they reorder what follows on
// the line, so a name can read as something it is not), and bytes that
// are not UTF-8. Controls come out as \xNN, the Unicode ones as \uNNNN,
// both Go and JSON escape syntax, so escaped JSON stays JSON. A string
// with none of them is returned as it is.
//
// Strings from a bundle or a scenario — file names, event types,
// assertion names, reasons — are not detsim's: an events.ndjson line can
// carry an OSC that retitles the terminal or a bidi override that hides a
// failing verdict.
func Escape(s string) string {
	if clean(s) {
		return s
	}
	return string(appendEscaped(nil, []byte(s), true))
}

func clean(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if unsafeASCII(c) {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 || unsafeRune(r) {
			return false
		}
		i += n
	}
	return true
}

func unsafeASCII(c byte) bool { return (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f }

// unsafeRune reports the non-ASCII runes Escape escapes: C1 controls and
// the bidirectional formatting characters (Unicode UAX #9).
func unsafeRune(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f: // C1: 0x9b is a one-byte CSI on some terminals
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f: // ALM, LRM, RLM
		return true
	case r >= 0x202a && r <= 0x202e: // LRE RLE PDF LRO RLO
		return true
	case r >= 0x2066 && r <= 0x2069: // LRI RLI FSI PDI
		return true
	}
	return false
}

// appendEscaped appends b, escaped, to dst; final says b ends the text
// (see escapePrefix).
func appendEscaped(dst, b []byte, final bool) []byte {
	dst, _ = escapePrefix(dst, b, final)
	return dst
}

// escapePrefix is appendEscaped that also returns how many bytes of b it
// took: all of them, unless final is false and b ends inside a UTF-8
// sequence that more bytes could complete.
func escapePrefix(dst, b []byte, final bool) ([]byte, int) {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if unsafeASCII(c) {
				dst = appendHexByte(dst, c)
			} else {
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			if !final && !utf8.FullRune(b[i:]) {
				return dst, i
			}
			dst = appendHexByte(dst, c)
			i++
			continue
		}
		if unsafeRune(r) {
			dst = append(dst, `\u`...)
			h := strconv.FormatUint(uint64(r), 16)
			for range 4 - len(h) {
				dst = append(dst, '0')
			}
			dst = append(dst, h...)
		} else {
			dst = append(dst, b[i:i+n]...)
		}
		i += n
	}
	return dst, len(b)
}

func appendHexByte(dst []byte, c byte) []byte {
	const hex = "0123456789abcdef"
	return append(dst, '\\', 'x', hex[c>>4], hex[c&15])
}

// Writer passes text to an underlying writer with Escape's escapes, so
// whatever a command prints on it — its own words, and the names and
// messages it got from a bundle — cannot act on the terminal. Detsim's
// own control sequences (a progress line's carriage return and erase) go
// through Raw. A UTF-8 sequence split across two writes is held until it
// is complete; Flush escapes a sequence left incomplete at the end.
type Writer struct {
	mu   sync.Mutex
	w    io.Writer
	hold []byte // the start of a UTF-8 sequence the last write ended in
	buf  []byte
}

// NewWriter returns a Writer over w. A Writer over a Writer is the same
// Writer.
func NewWriter(w io.Writer) *Writer {
	if e, ok := w.(*Writer); ok {
		return e
	}
	return &Writer{w: w}
}

// Write escapes p and writes it. It reports len(p) on success, as the
// caller's bytes are all taken even when more are written.
func (e *Writer) Write(p []byte) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	in := p
	if len(e.hold) > 0 {
		in = append(e.hold, p...)
	}
	out, n := escapePrefix(e.buf[:0], in, false)
	e.hold = append(e.hold[:0:0], in[n:]...)
	e.buf = out[:0]
	if len(out) == 0 {
		return len(p), nil
	}
	if _, err := e.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes, escaped, an incomplete UTF-8 sequence the last write
// ended in.
func (e *Writer) Flush() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.hold) == 0 {
		return nil
	}
	out := appendEscaped(nil, e.hold, true)
	e.hold = e.hold[:0]
	_, err := e.w.Write(out)
	return err
}

// Unwrap is the writer under e.
func (e *Writer) Unwrap() io.Writer { return e.w }

// Raw returns the writer under w's escaping, for detsim's own control
// sequences; any other writer is returned as it is.
func Raw(w io.Writer) io.Writer {
	if e, ok := w.(*Writer); ok {
		return e.w
	}
	return w
}

// ClearLine returns a progress line's cursor to the start of the line
// and erases it, on the writer under w's escaping: a sequence of
// detsim's own.
func ClearLine(w io.Writer) { _, _ = io.WriteString(Raw(w), "\r\x1b[2K") }
