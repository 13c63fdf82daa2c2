package tomlguard

import (
	"strings"
	"testing"
)

// TestCheck: nesting and dotted keys past MaxNesting are refused at the
// line they reach it, and brackets, dots and quotes inside strings and
// comments are not counted (a scenario's URL or prose never trips it).
func TestCheck(t *testing.T) {
	deep := strings.Repeat("[", MaxNesting+1)
	limit := strings.Repeat("[", MaxNesting) + strings.Repeat("]", MaxNesting)
	atLimit := "a" + strings.Repeat(".a", MaxNesting) + " = 1" // MaxNesting dots
	dotted := "a" + strings.Repeat(".a", MaxNesting+1) + " = 1"
	for _, tc := range []struct {
		name, in, err string
	}{
		{"empty", "", ""},
		{"a scenario", "name = \"x\"\n[[peers]]\nid = \"a\"\nkind_config = { gossip = { fanout = 3 } }\n", ""},
		{"nesting at the limit", "x = " + limit + "\n", ""},
		{"nesting past the limit", "a = 1\nx = " + deep + "\n", "line 2: arrays and tables nest more than 32 levels deep"},
		{"closing brackets never go below zero", strings.Repeat("]", 40) + deep, "line 1: arrays and tables nest"},
		{"a dotted key at the limit", atLimit, ""},
		// The message once said 32 parts: 32 dots make 33.
		{"a dotted key past the limit", "\n\n" + dotted + "\n", "line 3: more than 32 dots outside strings (a dotted key may have at most 33 parts)"},
		{"dots counted per line", strings.Repeat("a.b = 1\n", 100), ""},
		{"brackets in a basic string", `s = "` + deep + `"`, ""},
		{"brackets in a literal string", `s = '` + deep + `'`, ""},
		{"an escaped quote does not end the string", `s = "\"` + deep + `"`, ""},
		{"a literal string has no escapes", `s = '\'` + "\n" + deep, "line 2: arrays and tables nest"},
		{"brackets in a comment", "# " + deep + "\nx = 1", ""},
		{"dots in a comment", "# " + strings.Repeat(".", 100), ""},
		{"a multi-line string", "s = \"\"\"\n" + deep + "\n" + dotted + "\n\"\"\"\n", ""},
		{"a multi-line string ending with extra quotes", "s = '''x''''' \n" + deep, "line 2: arrays and tables nest"},
		{"lines counted inside multi-line strings", "s = \"\"\"\n\n\n\"\"\"\nx = " + deep, "line 5: arrays"},
		{"an unterminated string ends at its line", "s = \"" + deep + "\nx = " + deep, "line 2: arrays"},
		{"an unterminated multi-line string hides the rest", "s = '''" + deep, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Check([]byte(tc.in))
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.err)):
				t.Fatalf("error %v, want one starting %q", err, tc.err)
			}
		})
	}
}
