package jsonscan

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

func TestSkip(t *testing.T) {
	tests := []struct {
		in   string
		want int // -1: not recognised
	}{
		{`0`, 1}, {`-0`, 2}, {`12.5e-3`, 7}, {`1E+2`, 4}, {`true`, 4}, {`false`, 5}, {`null`, 4},
		{`"a\"\\\/\b\f\n\r\t\u00e9"`, 25}, {"\"\xff\"", 3},
		{`{}`, 2}, {`[]`, 2}, {`{"a":[1,{"b":null}],"c":{}}`, 27}, {`[[[]]],`, 6},
		{`{"a":1}x`, 7},
		{``, -1}, {`01`, 1}, {`-`, -1}, {`1.`, -1}, {`.5`, -1}, {`1e`, -1}, {`+1`, -1},
		{`tru`, -1}, {`nul`, -1}, {`"abc`, -1}, {`"\x"`, -1}, {`"\u12g4"`, -1}, {"\"\x01\"", -1},
		{`{`, -1}, {`[1,]`, -1}, {`{"a":1,}`, -1}, {`{"a"}`, -1}, {`{1:2}`, -1}, {`[1}`, -1}, {`{"a":1]`, -1},
		{`{ "a":1}`, -1}, {`[1, 2]`, -1},
		{strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth), 2 * maxDepth},
		{strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1), -1},
	}
	for _, tt := range tests {
		next, ok := Skip([]byte(tt.in), 0)
		if !ok {
			next = -1
		}
		if next != tt.want {
			t.Errorf("Skip(%q) = %d, want %d", tt.in, next, tt.want)
		}
	}
}

func TestUintAndInt(t *testing.T) {
	tests := []struct {
		in      string
		u       uint64
		uOK     bool
		i       int64
		iOK     bool
		nextLen int
	}{
		{"0", 0, true, 0, true, 1},
		{"18446744073709551615", 1<<64 - 1, true, 0, false, 20},
		{"18446744073709551616", 0, false, 0, false, 0},
		{"9223372036854775807", 1<<63 - 1, true, 1<<63 - 1, true, 19},
		{"9223372036854775808", 1 << 63, true, 0, false, 19},
		{"-9223372036854775808", 0, false, -1 << 63, true, 20},
		{"-9223372036854775809", 0, false, 0, false, 0},
		{"-0", 0, false, 0, true, 2},
		{"01", 0, false, 0, false, 0},
		{"1.0", 0, false, 0, false, 0},
		{"1e2", 0, false, 0, false, 0},
		{"-", 0, false, 0, false, 0},
		{"", 0, false, 0, false, 0},
		{"7,", 7, true, 7, true, 1},
	}
	for _, tt := range tests {
		u, next, ok := Uint([]byte(tt.in), 0)
		if ok != tt.uOK || ok && (u != tt.u || next != tt.nextLen) {
			t.Errorf("Uint(%q) = %d, %d, %v", tt.in, u, next, ok)
		}
		i, next, ok := Int([]byte(tt.in), 0)
		if ok != tt.iOK || ok && (i != tt.i || next != tt.nextLen) {
			t.Errorf("Int(%q) = %d, %d, %v", tt.in, i, next, ok)
		}
	}
}

func TestString(t *testing.T) {
	tests := []struct {
		in string
		ok bool
	}{
		{`"abc"`, true}, {`""`, true}, {`"héllo 日本"`, true},
		{`"a\"b"`, false}, {`"a\nb"`, false}, {"\"a\x1fb\"", false}, {"\"a\xffb\"", false},
		{"\"\xed\xa0\x80\"", false}, {`"abc`, false}, {`abc"`, false},
	}
	for _, tt := range tests {
		s, next, ok := String([]byte(tt.in), 0)
		if ok != tt.ok || ok && (string(s) != tt.in[1:len(tt.in)-1] || next != len(tt.in)) {
			t.Errorf("String(%q) = %q, %d, %v; want ok=%v", tt.in, s, next, ok, tt.ok)
		}
	}
}

func TestKeyAndFoldsTo(t *testing.T) {
	if k, next, ok := Key([]byte(`"seq":1`), 0); !ok || string(k) != "seq" || next != 6 {
		t.Errorf("Key = %q, %d, %v", k, next, ok)
	}
	for _, in := range []string{`"seq"1`, `"s\u0065q":1`, "\"s\xc3\xa9q\":1", `"seq"`} {
		if _, _, ok := Key([]byte(in), 0); ok {
			t.Errorf("Key(%q) recognised, want not", in)
		}
	}
	if !FoldsTo([]byte("SeQ"), "mode", "seq") || FoldsTo([]byte("seqs"), "seq") || FoldsTo([]byte("se_"), "seq") {
		t.Error("FoldsTo does not fold ASCII case only")
	}
}

func TestObject(t *testing.T) {
	raw := []byte(`{"s":"x","n":null,"u":7,"i":-7,"b":true,"a":["p",null],"us":[3,0,12],"z":{"q":[]}}`)
	o := NewObject(raw, 0)
	var got []string
	for o.Next() {
		switch string(o.Key()) {
		case "s", "n":
			s, null := o.Text()
			got = append(got, string(s), map[bool]string{true: "null"}[null])
		case "u":
			v, _ := o.Uint()
			got = append(got, string(rune('0'+v)))
		case "i":
			v, _ := o.Int()
			got = append(got, string(rune('0'-v)))
		case "b":
			v, _ := o.Bool()
			got = append(got, map[bool]string{true: "true"}[v])
		case "a":
			o.Texts(func(s []byte, null bool) { got = append(got, string(s)+map[bool]string{true: "null"}[null]) })
		case "us":
			o.Uints(func(v uint64) { got = append(got, strconv.FormatUint(v, 10)) })
		default:
			o.Skip()
		}
	}
	end, ok := o.End()
	if !ok || end != len(raw) || strings.Join(got, ",") != "x,,,null,7,7,true,p,null,3,0,12" {
		t.Errorf("read %q, end %d ok %v", got, end, ok)
	}
	for _, bad := range []string{`{"us":[1,]}`, `{"us":[-1]}`, `{"us":[1.5]}`, `{"us":[1`} {
		o := NewObject([]byte(bad), 0)
		for o.Next() {
			o.Uints(func(uint64) {})
		}
		if _, ok := o.End(); ok {
			t.Errorf("object %q recognised, want not", bad)
		}
	}
	for _, bad := range []string{`{"a":1`, `{"a":1,}`, `{,"a":1}`, `{"a" :1}`, `[]`, `{"a":1}`} {
		o := NewObject([]byte(bad), 0)
		for o.Next() {
			o.Text() // "a":1 is not a string: not recognised
		}
		if _, ok := o.End(); ok {
			t.Errorf("object %q recognised, want not", bad)
		}
	}
}

// FuzzScan checks each reader against encoding/json on any bytes: what
// a reader accepts, encoding/json reads as the same value.
func FuzzScan(f *testing.F) {
	for _, s := range []string{`{"a":[1,{"b":null}],"c":"\u00e9"}`, `"héllo"`, `-9223372036854775808`,
		`18446744073709551615`, `[1e5,true,false]`, `"\ud83d\ude00"`, "\"\xff\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if next, ok := Skip(b, 0); ok && !json.Valid(b[:next]) {
			t.Fatalf("Skip accepted invalid JSON %q", b[:next])
		}
		if s, next, ok := String(b, 0); ok {
			var v string
			if err := json.Unmarshal(b[:next], &v); err != nil || v != string(s) {
				t.Fatalf("String(%q) = %q; encoding/json: %q, %v", b, s, v, err)
			}
		}
		if u, next, ok := Uint(b, 0); ok {
			var v uint64
			if err := json.Unmarshal(b[:next], &v); err != nil || v != u {
				t.Fatalf("Uint(%q) = %d; encoding/json: %d, %v", b, u, v, err)
			}
		}
		if i, next, ok := Int(b, 0); ok {
			var v int64
			if err := json.Unmarshal(b[:next], &v); err != nil || v != i {
				t.Fatalf("Int(%q) = %d; encoding/json: %d, %v", b, i, v, err)
			}
		}
	})
}
