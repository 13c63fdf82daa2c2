package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheck_ExitCodes(t *testing.T) {
	good, bad, broken := t.TempDir(), t.TempDir(), t.TempDir()
	ref, err := os.ReadFile("../scenarios/reference/echo_parity.toml")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(good, "ok.toml"), ref, 0o644)
	os.WriteFile(filepath.Join(bad, "ok.toml"), ref, 0o644)
	wrong := strings.Replace(string(ref), "# expect: pass-now", "# expect: fail-until-fix", 1)
	os.WriteFile(filepath.Join(bad, "wrong.toml"), []byte(wrong), 0o644)
	os.WriteFile(filepath.Join(broken, "x.toml"), []byte("name = 3\n"), 0o644)
	checkExits(t, []exitCase{
		{"as expected", []string{"check", good}, 0, "1 scenarios: 1 as expected, 0 mismatched"},
		{"mismatch", []string{"check", bad}, 1, "MISMATCH  " + filepath.Join(bad, "wrong.toml")},
		{"does not load", []string{"check", broken}, 2, "x.toml: "},
		{"empty dir", []string{"check", t.TempDir()}, 2, "no .toml scenario files"},
		{"two dirs", []string{"check", good, bad}, 2, "at most one DIR"},
	})
}
