package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestShrink_WritesTheSmallestFailingScenario(t *testing.T) {
	out := filepath.Join(t.TempDir(), "min.toml")
	r := detsim(t, "shrink", "../shrink/testdata/planted.toml", "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		"before    5 peers, 3 links, 4 mutations, 2 assertions, 2 snapshots, 30s",
		"after     2 peers, 0 links, 1 mutations, 1 assertions, 0 snapshots",
		"kept      run ", "(fixed point)", "wrote     " + out,
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("no %q in\n%s", want, r.stdout)
		}
	}
	data, err := os.ReadFile(out)
	if err != nil || !strings.HasPrefix(string(data), "# expect: fail-until-fix\n") {
		t.Fatalf("%v\n%s", err, data)
	}
	b := detsim(t, "--batch", "--out", filepath.Join(t.TempDir(), "b"), out)
	if b.code != 1 || !strings.Contains(b.stdout, "Fail         no_delivery_drops") {
		t.Errorf("the shrunk scenario does not fail: exit %d\n%s", b.code, b.stdout)
	}
}

func TestShrink_ExitCodes(t *testing.T) {
	checkExits(t, []exitCase{
		{"no scenario", []string{"shrink"}, 2, "want one SCENARIO"},
		{"unknown scenario", []string{"shrink", "nope/nothing"}, 2, "no such file"},
		{"unknown assertion", []string{"shrink", "../shrink/testdata/planted.toml", "--assert", "zzz", "--out", filepath.Join(t.TempDir(), "x")}, 2, `no assertion "zzz"`},
		{"passing", []string{"shrink", "smoke/three_mesh", "--out", filepath.Join(t.TempDir(), "x")}, 2, "does not fail"},
		{"out in no directory", []string{"shrink", "smoke/three_mesh", "--out", filepath.Join(t.TempDir(), "no", "x.toml")}, 2, "no such directory"},
		{"bad budget", []string{"shrink", "smoke/three_mesh", "--budget", "0"}, 2, "--budget"},
		{"budget", []string{"shrink", "../shrink/testdata/planted.toml", "--budget", "2", "--out", filepath.Join(t.TempDir(), "x")}, 0, "runs      2 (budget spent before a fixed point)"},
	})
}
