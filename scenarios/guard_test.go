package scenarios

import (
	"fmt"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// TestParse_PathologicalInputsFailFast covers inputs that, without the
// loader's guards, stall the TOML decoder for minutes or exhaust memory.
// A regression shows up as this test timing out.
func TestParse_PathologicalInputsFailFast(t *testing.T) {
	// The size bound rejects a million peers before decoding them.
	million := valid + strings.Repeat("[[peers]]\nid = \"p999999\"\nkind = \"echo\"\n", 1_000_000)
	tests := []struct {
		name, src, want string
	}{
		{"nested arrays", "a = " + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000),
			"t.toml: line 1: arrays and tables nest more than 32 levels deep"},
		{"nested inline tables", "x = 1\na = " + strings.Repeat("{b=", 10_000) + "1" + strings.Repeat("}", 10_000),
			"t.toml: line 2: arrays and tables nest more than 32 levels deep"},
		{"dotted key", "a" + strings.Repeat(".a", 100_000) + " = 1\n",
			"t.toml: line 1: more than 32 dots outside strings (a dotted key may have at most 33 parts)"},
		{"dotted table header", "[a" + strings.Repeat(".a", 100_000) + "]\n",
			"t.toml: line 1: more than 32 dots outside strings (a dotted key may have at most 33 parts)"},
		{"a million peers", million,
			fmt.Sprintf("t.toml: file is %d bytes; a scenario may be at most 4194304", len(million))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("t.toml", []byte(tt.src), testRegistry(), noFiles)
			if err == nil || err.Error() != tt.want {
				t.Errorf("err = %.300v\nwant %s", err, tt.want)
			}
		})
	}
}

func TestCheckNesting_IgnoresStringsAndComments(t *testing.T) {
	deep := strings.Repeat("[{.", 100)
	src := "a = \"" + deep + "\"\n" +
		"b = '" + deep + "'\n" +
		"c = \"\"\"\n" + deep + "\n\\\"\"\" still inside \"\"\"\"\"\n" +
		"d = '''" + deep + "''''\n" +
		"# " + deep + "\n" +
		"e = \"\\\"" + deep + "\"\n" +
		"f = [[[1]]]\n"
	var tree map[string]any
	if _, err := toml.Decode(src, &tree); err != nil {
		t.Fatalf("test input is not TOML: %v\n%s", err, src)
	}
	if err := CheckNesting([]byte(src)); err != nil {
		t.Errorf("checkNesting: %v", err)
	}
	if err := CheckNesting([]byte(src + "g = " + strings.Repeat("[", 33))); err == nil ||
		err.Error() != "line 10: arrays and tables nest more than 32 levels deep" {
		t.Errorf("err = %v", err)
	}
}

func BenchmarkParse_EchoParity(b *testing.B) {
	data, err := Library.ReadFile("reference/echo_parity.toml")
	if err != nil {
		b.Fatal(err)
	}
	reg := testRegistry()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("reference/echo_parity.toml", data, reg, Library.ReadFile); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParse_FullMesh1024 is the largest full mesh the loader accepts
// (1024 peers, 1,047,552 directed edges).
func BenchmarkParse_FullMesh1024(b *testing.B) {
	var src strings.Builder
	src.WriteString(with("[[peers]]\nid = \"a\"\nkind = \"echo\"\n[[peers]]\nid = \"b\"\nkind = \"echo\"\n[[peers]]\nid = \"c\"\nkind = \"echo\"\n", ""))
	for i := range 1024 {
		fmt.Fprintf(&src, "[[peers]]\nid = \"p%d\"\nkind = \"echo\"\n", i)
	}
	data := []byte(src.String())
	reg := testRegistry()
	for b.Loop() {
		s, err := Parse("mesh.toml", data, reg, noFiles)
		if err != nil {
			b.Fatal(err)
		}
		if !s.FullMesh {
			b.Fatal("not a full mesh")
		}
	}
}
