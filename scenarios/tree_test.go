package scenarios

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// encodeTree writes tree as property.Property writes a generated
// scenario's file.
func encodeTree(t *testing.T, tree map[string]any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := toml.NewEncoder(&buf)
	enc.Indent = ""
	if err := enc.Encode(tree); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestParseTree_IsParseEncodedOfItsFile holds ParseTree to ParseEncoded
// of the file the tree encodes to: the same scenario (but for
// SourceSHA256) or the same errors, whenever ParseTree takes the tree;
// and it must not take a tree whose file breaks MaxFileBytes or
// CheckNesting, which only the file's bytes show: a long string, one of
// control bytes (six bytes each once escaped), a line of floats (each a
// dot), arrays or tables nested deeper than MaxNesting.
func TestParseTree_IsParseEncodedOfItsFile(t *testing.T) {
	reg := testRegistry()
	nested := func(depth int, wrap func(any) any) any {
		var v any = int64(1)
		for range depth {
			v = wrap(v)
		}
		return v
	}
	floats := func(n int) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = 1.5
		}
		return out
	}
	for _, c := range []struct {
		name string
		pad  any  // put in the valid scenario's tree as "pad", when set
		take bool // ParseTree must take it
	}{
		{"valid", nil, true},
		{"a small unknown key", "x", true},
		{"100 KB of string", strings.Repeat("x", 100_000), true},
		{"ten floats on a line", floats(10), true},
		{"arrays 20 deep", nested(20, func(v any) any { return []any{v} }), true},
		{"MaxFileBytes of string", strings.Repeat("x", MaxFileBytes), false},
		{"control bytes, six bytes each written", strings.Repeat("\x01", MaxFileBytes/6+1), false},
		{"40 floats on a line", floats(40), false},
		{"arrays 40 deep", nested(40, func(v any) any { return []any{v} }), false},
		{"tables 40 deep", nested(40, func(v any) any { return map[string]any{"k": v} }), false},
		{"inline tables 40 deep", []any{int64(1), nested(40, func(v any) any { return map[string]any{"k": v} })}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			tree, err := DecodeTree([]byte(valid))
			if err != nil {
				t.Fatal(err)
			}
			if c.pad != nil {
				tree["pad"] = c.pad
			}
			data := encodeTree(t, tree)
			if broken := len(data) > MaxFileBytes || CheckNesting(data) != nil; broken == c.take {
				t.Fatalf("test bug: the file of %d bytes breaks a bound: %v", len(data), broken)
			}
			if d, _ := Decoded(tree); fileBound(d, 0, math.MaxInt) < len(data) {
				t.Errorf("fileBound %d, the file is %d bytes", fileBound(d, 0, math.MaxInt), len(data))
			}
			got, ok, gerr := ParseTree("t.toml", tree, reg)
			if ok != c.take {
				t.Fatalf("ParseTree took the tree: %v, want %v (file of %d bytes, CheckNesting: %v)", ok, c.take, len(data), CheckNesting(data))
			}
			if !ok {
				return
			}
			want, wok, werr := ParseEncoded("t.toml", data, tree, reg)
			if !wok {
				t.Fatal("ParseEncoded refused the tree")
			}
			if fmt.Sprint(gerr) != fmt.Sprint(werr) {
				t.Fatalf("ParseTree error %v, ParseEncoded error %v", gerr, werr)
			}
			if want == nil {
				return
			}
			if got.SourceSHA256 != [32]byte{} {
				t.Errorf("a scenario without a file has a SourceSHA256")
			}
			want.SourceSHA256 = [32]byte{}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("ParseTree and ParseEncoded made different scenarios:\n%+v\n%+v", got, want)
			}
		})
	}
}

// TestWithinFileLimits_Bounds checks the claim ParseTree rests on over
// trees near the limits: whenever withinFileLimits takes a tree, its
// file passes MaxFileBytes and CheckNesting.
func TestWithinFileLimits_Bounds(t *testing.T) {
	long := func(b string, n int) string { return strings.Repeat(b, n) }
	for _, tree := range []map[string]any{
		{"s": long("\"", MaxFileBytes/2-10)},
		{"s": long("\\", MaxFileBytes/2-10)},
		{"s": long("\x7f", MaxFileBytes/6-10)},
		{long("é", 1000): []any{long(".", 1000), 2.5e-300, -1.0, math.NaN(), math.Inf(-1)}},
		{"a": map[string]any{"b.c": map[string]any{"d": []any{map[string]any{"e": []any{1.5, "x"}}}}}},
		{"t": []any{map[string]any{"x": map[string]any{long("k", 200): long("[", 100)}}, map[string]any{}}},
	} {
		data := encodeTree(t, tree)
		if fileBound(tree, 0, math.MaxInt) < len(data) {
			t.Errorf("fileBound %d, the file is %d bytes", fileBound(tree, 0, math.MaxInt), len(data))
		}
		if withinFileLimits(tree) && (len(data) > MaxFileBytes || CheckNesting(data) != nil) {
			t.Errorf("withinFileLimits took a tree whose file is %d bytes, CheckNesting: %v", len(data), CheckNesting(data))
		}
	}
}

// FuzzWithinFileLimits: for any tree a TOML file decodes to, a bound
// withinFileLimits trusts is one the tree's encoding keeps.
func FuzzWithinFileLimits(f *testing.F) {
	for _, name := range LibraryNames(testRegistry()) {
		data, err := Library.ReadFile(name + ".toml")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(valid))
	f.Add([]byte("a = [1.5, 2.5, [3.5, {b = \"\\u0001.\"}]]\n[c.\"d.e\".f]\ng = -inf\n[[h]]\n[[h]]\ni = 1e300\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tree, err := DecodeTree(data)
		if err != nil {
			return
		}
		d, ok := Decoded(tree)
		if !ok {
			return // a date or time, which no generated tree holds
		}
		out := encodeTree(t, tree)
		if fileBound(d, 0, math.MaxInt) < len(out) {
			t.Fatalf("fileBound %d, the file is %d bytes", fileBound(d, 0, math.MaxInt), len(out))
		}
		if withinFileLimits(d) && (len(out) > MaxFileBytes || CheckNesting(out) != nil) {
			t.Fatalf("withinFileLimits took a tree whose file is %d bytes, CheckNesting: %v", len(out), CheckNesting(out))
		}
	})
}
