package jsonw

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"unicode/utf8"
)

func TestAppendString_Escaping(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", `""`},
		{"plain", "orch-1_a", `"orch-1_a"`},
		{"quote", `a"b`, `"a\"b"`},
		{"backslash", `a\b`, `"a\\b"`},
		{"short escapes", "\b\f\n\r\t", `"\b\f\n\r\t"`},
		{"other controls", "\x00\x01\x1f", `"\u0000\u0001\u001f"`},
		{"DEL stays raw", "\x7f", "\"\x7f\""},
		{"html stays raw", "<a&b>", `"<a&b>"`},
		{"slash stays raw", "a/b", `"a/b"`},
		{"multibyte raw", "héllo 世界 🦀", `"héllo 世界 🦀"`},
		{"line separators", "a\u2028b\u2029c", `"a\u2028b\u2029c"`},
		{"invalid byte", "a\xffb", `"a\ufffdb"`},
		{"each invalid byte", "\xc3\x28\xff", `"\ufffd(\ufffd"`},
		{"truncated rune at end", "ab\xe4\xb8", `"ab\ufffd\ufffd"`},
		{"surrogate half", "\xed\xa0\x80", `"\ufffd\ufffd\ufffd"`},
		{"literal U+FFFD raw", "\ufffd", "\"\ufffd\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(AppendString([]byte("x"), tt.in))
			if got != "x"+tt.want {
				t.Errorf("AppendString(%q) = %s, want %s", tt.in, got[1:], tt.want)
			}
		})
	}
}

func TestAppendTokens(t *testing.T) {
	var b []byte
	b = append(b, '{')
	b = AppendKey(b, "type")
	b = AppendString(b, "probe")
	b = append(b, ',')
	b = AppendKey(b, "n")
	b = AppendInt(b, -9223372036854775808)
	b = append(b, ',')
	b = AppendKey(b, "u")
	b = AppendUint(b, 18446744073709551615)
	b = append(b, ',')
	b = AppendKey(b, "ok")
	b = AppendBool(b, true)
	b = append(b, ',')
	b = AppendKey(b, "no")
	b = AppendBool(b, false)
	b = append(b, ',')
	b = AppendKey(b, "nil")
	b = AppendNull(b)
	b = append(b, ',')
	b = AppendKey(b, "ids")
	b = AppendStringArray(b, []string{"a", `"b"`})
	b = append(b, ',')
	b = AppendKey(b, "none")
	b = AppendStringArray(b, nil)
	b = append(b, '}')
	want := `{"type":"probe","n":-9223372036854775808,"u":18446744073709551615,` +
		`"ok":true,"no":false,"nil":null,"ids":["a","\"b\""],"none":[]}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	if !json.Valid(b) {
		t.Errorf("not valid JSON: %s", b)
	}
}

func TestAppendString_NoAllocationWithCapacity(t *testing.T) {
	buf := make([]byte, 0, 256)
	s := "node \"a\"\n\xff é"
	allocs := testing.AllocsPerRun(100, func() {
		buf = AppendString(buf[:0], s)
	})
	if allocs != 0 {
		t.Errorf("AppendString allocated %v times per call, want 0", allocs)
	}
}

// encodingJSON is the oracle: encoding/json with HTML escaping off.
func encodingJSON(t *testing.T, s string) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "a", `"\`, "\x00\n\x1f\x7f", "é世🦀", "\u2028", "\xff\xc3(", "\xed\xa0\x80", "\ufffd"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := AppendString(nil, s)
		if !json.Valid(got) {
			t.Fatalf("AppendString(%q) = %s is not valid JSON", s, got)
		}
		if want := encodingJSON(t, s); !bytes.Equal(got, want) {
			t.Fatalf("AppendString(%q) = %s, encoding/json writes %s", s, got, want)
		}
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("decoding %s: %v", got, err)
		}
		if utf8.ValidString(s) && back != s {
			t.Fatalf("round trip of valid UTF-8 %q gave %q", s, back)
		}
	})
}

func BenchmarkAppendString(b *testing.B) {
	buf := make([]byte, 0, 256)
	s := "suspect: orch accused sgp at incarnation 12 (probe failed)"
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		buf = AppendString(buf[:0], s)
	}
}

// TestObject: an event written through Object is the bytes the field
// writers give member by member (the raft kind's records, written either
// way, must not change), hex members are 16 digits as fmt's %016x, empty
// arrays are [], and writing into capacity allocates nothing.
func TestObject(t *testing.T) {
	const chain = 0x00ab_cdef_0123_4567
	got := Open(nil, `ty"pe`).Str("s", "a\"b").Uint("u", 1<<63).Bool("b", true).Int("i", -7).
		Hex64("h", chain).Uints("us", []uint64{1, 2}).Hex64s("hs", []uint64{chain, 0}).Uints("none", nil).End()
	want := AppendBoolField(AppendUintField(AppendStringField(AppendTypeField(nil, `ty"pe`), "s", "a\"b"), "u", 1<<63), "b", true)
	want = append(want, `,"i":-7,"h":"`+fmt.Sprintf("%016x", uint64(chain))+`","us":[1,2],"hs":["00abcdef01234567","0000000000000000"],"none":[]}`...)
	if !bytes.Equal(got, want) || !json.Valid(got) {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	buf := make([]byte, 0, 256)
	if n := testing.AllocsPerRun(100, func() {
		buf = Open(buf[:0], "t").Uint("u", 7).Hex64("h", chain).Hex64s("hs", []uint64{chain}).End()
	}); n != 0 {
		t.Errorf("%v allocations a record", n)
	}
}
