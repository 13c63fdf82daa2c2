package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// `detsim swimd` is the swimd daemon (kinds/swim/live/swimd, as kinds/swim/cmd/swimd): its
// flags, its ready line, its exit at --duration.
func TestSwimdMode_IsTheDaemon(t *testing.T) {
	r := detsim(t, "swimd", "--id", "a", "--bind", "127.0.0.1:0", "--insecure", "--duration", "300ms")
	if r.code != 0 || !strings.Contains(r.stderr, "swimd: a ready on 127.0.0.1:") {
		t.Fatalf("exit %d, want 0 after the ready line\nstderr: %s", r.code, r.stderr)
	}
	if r := detsim(t, "swimd", "--id", "a", "--bind", "127.0.0.1:0"); r.code != 2 || !strings.Contains(r.stderr, "no --cluster-key-file") {
		t.Errorf("without a key: exit %d, want swimd's 2\nstderr: %s", r.code, r.stderr)
	}
}

// With no swimd built anywhere, the detsim binary alone runs live
// --procs (and testbed, which finds its daemon the same way, findSwimd):
// each peer's process is detsim in swimd mode. Before, both refused:
// "no swimd beside detsim or on PATH: build it with go build ./kinds/swim/cmd/swimd".
func TestLive_ProcsNeedsOnlyTheDetsimBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs three daemons for two seconds of real time")
	}
	bin := detsimBinary(t)
	if _, err := os.Stat(filepath.Join(filepath.Dir(bin), "swimd")); err == nil {
		t.Fatal("a swimd beside the test's detsim: the test proves nothing")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "b")
	cmd := exec.Command(bin, "live", "smoke/three_mesh", "--procs", "--max-duration", "2s", "--out", out)
	// A PATH with go's directory only: no swimd on it.
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(goBin))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("live --procs: %v\nstdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
	}
	if v := detsim(t, "verify", out); v.code != 0 {
		t.Errorf("verify: exit %d\n%s", v.code, v.stdout)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(goBin), "swimd")); err == nil {
		t.Fatal("a swimd beside go: the test proves nothing")
	}
}

// findSwimd: a flag names the binary; else it is this executable, asked
// to be swimd by its first argument.
func TestFindSwimd_ThisBinaryUnlessNamed(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	path, args, err := findSwimd("")
	if err != nil || path != self || len(args) != 1 || args[0] != swimdMode {
		t.Errorf("findSwimd(\"\") = %q %q %v, want %q [%q]", path, args, err, self, swimdMode)
	}
	if _, _, err := findSwimd("/nonexistent/swimd"); err == nil {
		t.Error("findSwimd of a missing binary: no error")
	}
}
