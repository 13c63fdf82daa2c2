package term

import (
	"bytes"
	"testing"
)

func TestEscape(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text, ünïcode, 日本", "plain text, ünïcode, 日本"},
		{"line\nand\ttab", "line\nand\ttab"},
		{"\x1b]0;title\x07", `\x1b]0;title\x07`},
		{"\x1b[2J\r\b\x7f", `\x1b[2J\x0d\x08\x7f`},
		{"ok\u202eliaf", `ok\u202eliaf`},
		{"\u2066\u2069\u200e\u200f\u061c", `\u2066\u2069\u200e\u200f\u061c`},
		{"c1 \u009b31m", `c1 \u009b31m`},
		{"bad \xff\xfe utf8", `bad \xff\xfe utf8`},
	} {
		if got := Escape(c.in); got != c.want {
			t.Errorf("Escape(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// A Writer escapes what it is given, holds a UTF-8 sequence split across
// two writes until it is whole, and lets detsim's own sequences through
// Raw.
func TestWriter(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b)
	r := []byte("é\u202e")
	w.Write([]byte("a\x1b"))
	w.Write(r[:1])
	w.Write(r[1:3])
	w.Write(r[3:])
	ClearLine(w)
	w.Write([]byte("\xff"))
	w.Flush()
	if got, want := b.String(), "a\\x1bé\\u202e\r\x1b[2K\\xff"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if NewWriter(w) != w {
		t.Error("a Writer over a Writer escapes twice")
	}
}
