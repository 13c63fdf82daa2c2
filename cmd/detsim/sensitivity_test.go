package main

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
