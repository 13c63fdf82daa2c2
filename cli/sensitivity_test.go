package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSensitivity_UnreadablePairIsAnError: a calibration scenario whose
// bundle has no readable manifest is refused naming the pair (exit 2),
// not skipped: a skipped pair leaves the suite proving less than it
// says.
func TestSensitivity_UnreadablePairIsAnError(t *testing.T) {
	dir := t.TempDir()
	pairs, corpus := filepath.Join(dir, "pairs"), filepath.Join(dir, "corpus")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(pairs, 0o755))
	must(os.MkdirAll(filepath.Join(corpus, "n3_gone"), 0o755)) // a bundle without manifest.json
	must(os.WriteFile(filepath.Join(pairs, "n3_gone.toml"), []byte("name = \"n3_gone\"\n"), 0o644))
	r := detsim(t, "calibrate", "--sensitivity", "--pairs", pairs, "--corpus", corpus)
	if r.code != 2 || !strings.Contains(r.stderr, "pair n3_gone (") {
		t.Errorf("exit %d, want 2 naming pair n3_gone\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
}

// TestSensitivity_VerboseListsEveryRow: on a testbed pair of the corpus,
// latency ×2 fails more rows than the report lists by default; -v lists
// them all.
func TestSensitivity_VerboseListsEveryRow(t *testing.T) {
	dir := t.TempDir()
	pairs, corpus := filepath.Join(dir, "calibration"), filepath.Join(dir, "corpus")
	copyFile := func(from, to string) {
		t.Helper()
		b, err := os.ReadFile(from)
		if err == nil {
			err = os.MkdirAll(filepath.Dir(to), 0o755)
		}
		if err == nil {
			err = os.WriteFile(to, b, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	// The calibration scenario extends ../testbed/n3_default.toml.
	copyFile("../scenarios/calibration/n3_default.toml", filepath.Join(pairs, "n3_default.toml"))
	copyFile("../scenarios/testbed/n3_default.toml", filepath.Join(dir, "testbed", "n3_default.toml"))
	copyFile("../testdata/calibration/n3_default.known_failures", filepath.Join(corpus, "n3_default.known_failures"))
	if err := os.CopyFS(filepath.Join(corpus, "n3_default"), os.DirFS("../testdata/calibration/n3_default")); err != nil {
		t.Fatal(err)
	}
	table := filepath.Join(dir, "table.toml")
	if err := os.WriteFile(table, []byte("[[perturbation]]\nname = \"latency x2\"\nfield = \"link.latency_ns\"\nscale = 2.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	caught := func(out string) []string {
		for line := range strings.Lines(out) {
			if rows, ok := strings.CutPrefix(strings.TrimSpace(line), "n3_default: "); ok {
				return strings.Split(strings.TrimSpace(rows), ", ")
			}
		}
		t.Fatalf("no catch on n3_default:\n%s", out)
		return nil
	}
	args := []string{"calibrate", "--sensitivity", "--pairs", pairs, "--corpus", corpus, "--table", table}
	short, long := detsim(t, args...), detsim(t, append(args, "-v")...)
	if short.code > 1 || long.code > 1 {
		t.Fatalf("exit %d and %d\n%s\n%s", short.code, long.code, short.stderr, long.stderr)
	}
	s, l := caught(short.stdout), caught(long.stdout)
	if len(s) != 6 || !strings.Contains(short.stdout, " more\n") || len(l) <= 6 || strings.Contains(long.stdout, " more\n") {
		t.Errorf("default lists %d rows, -v %d; want 6 and \"and N more\", then all of them\ndefault:\n%s\n-v:\n%s", len(s), len(l), short.stdout, long.stdout)
	}
}
