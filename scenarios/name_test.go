package scenarios

import (
	"strings"
	"testing"
)

// TestParse_ScenarioNameCannotEscapeTheOutputDirectory_Issue9: the name
// becomes bundles/<name>-<seed> and <name>-shrunk.toml, so it is a
// single, visible, short path element: [A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}.
func TestParse_ScenarioNameCannotEscapeTheOutputDirectory_Issue9(t *testing.T) {
	long := strings.Repeat("n", MaxScenarioNameBytes+1)
	bad := []struct{ name, want string }{
		{"", `t.toml: name: must not be empty`},
		{".", `t.toml: name: "." must not start with '.' (no ".", ".." or hidden names)`},
		{"..", `t.toml: name: ".." must not start with '.' (no ".", ".." or hidden names)`},
		{".hidden", `t.toml: name: ".hidden" must not start with '.' (no ".", ".." or hidden names)`},
		{"../../etc/x", `t.toml: name: "../../etc/x" must not start with '.' (no ".", ".." or hidden names)`},
		{"a/b", `t.toml: name: "a/b": '/' is not allowed (a scenario name is 1 to 64 of A-Z a-z 0-9 _ - . and names the bundle directory)`},
		{`a\\b`, `t.toml: name: "a\\b": '\\' is not allowed (a scenario name is 1 to 64 of A-Z a-z 0-9 _ - . and names the bundle directory)`},
		{"two words", `t.toml: name: "two words": ' ' is not allowed (a scenario name is 1 to 64 of A-Z a-z 0-9 _ - . and names the bundle directory)`},
		{`new\nline`, `t.toml: name: "new\nline": '\n' is not allowed (a scenario name is 1 to 64 of A-Z a-z 0-9 _ - . and names the bundle directory)`},
		{"café", `t.toml: name: "café": 'é' is not allowed (a scenario name is 1 to 64 of A-Z a-z 0-9 _ - . and names the bundle directory)`},
		{long, `t.toml: name: is 65 bytes; a scenario name is at most 64 (it names the bundle directory bundles/<name>-<seed>)`},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) { wantParseErrs(t, with(`name = "t"`, `name = "`+c.name+`"`), c.want) })
	}
	for _, name := range []string{"t", "gossip_flap-113", "a.b", "v1.2-rc_3", "-x", "_", strings.Repeat("n", MaxScenarioNameBytes)} {
		if _, err := Parse("t.toml", []byte(with(`name = "t"`, `name = "`+name+`"`)), testRegistry(), noFiles); err != nil {
			t.Errorf("name %q: %v", name, err)
		}
	}
}
